/* utvm-build kernels, DSP targets: AVERAGE_POOL_2D, int8; replaces kernels/pooling_avg_s8.h (same
 * function, same arguments, same results).
 *
 * Four channels per 32-bit load: SXTAB16 adds the even and the odd bytes of every window word to
 * two pairs of int16 lane sums (exact while the window has at most 255 taps: |sum| <= 128 x 255 <
 * 2^15; larger windows and the channels left over by the blocks of 4 take the generic loop). The
 * division is the generic one (round half away from zero, C division).
 */
#ifndef UTVM_KERNELS_POOLING_AVG_S8_H_
#define UTVM_KERNELS_POOLING_AVG_S8_H_

#if !defined(__ARM_FEATURE_DSP) || (__ARM_FEATURE_DSP != 1)
#error "utvm-build: these kernels were generated for a DSP target (--target cortex-m4/m7/m33/m55) but compiled without the DSP extension; use --target generic"
#endif

#include "dsp_s8.h"
#include "pooling.h"

static int8_t utvm_avg_pool_s8_div(const utvm_pool_q_params* p, int32_t acc, int32_t count) {
  const int32_t v = (acc > 0) ? ((acc + (count / 2)) / count) : ((acc - (count / 2)) / count);
  return (int8_t)utvm_clamp_i32(v, p->act_min, p->act_max);
}

static void utvm_avg_pool_s8(const utvm_pool_q_params* p, const int8_t* in, int8_t* out) {
  const int32_t ch = p->channels;
  int32_t b;
  int32_t oy;
  int32_t ox;
  for (b = 0; b < p->batches; ++b) {
    for (oy = 0; oy < p->out_h; ++oy) {
      for (ox = 0; ox < p->out_w; ++ox) {
        int32_t iy;
        int32_t ix;
        int32_t fy0;
        int32_t fy1;
        int32_t fx0;
        int32_t fx1;
        int32_t count;
        int32_t c = 0;
        int32_t scalar_from = 0;   /* the channels the scalar loop does: all, or the tail after groups of 4 */
        int8_t* y = &out[((((b * p->out_h) + oy) * p->out_w) + ox) * ch];
        UTVM_POOL_WINDOW(p, oy, ox, iy, ix, fy0, fy1, fx0, fx1);
        count = (fy1 - fy0) * (fx1 - fx0);
        if (count <= 255) {
          for (c = 0; (c + 4) <= ch; c += 4) {
            int32_t se = 0;
            int32_t so = 0;
            int32_t fy;
            int32_t fx;
            for (fy = fy0; fy < fy1; ++fy) {
              const int8_t* px = &in[(((((b * p->in_h) + iy + fy) * p->in_w) + ix + fx0) * ch) + c];
              for (fx = fx0; fx < fx1; ++fx) {
                const int32_t v = utvm_dsp_ld4(px);
                se = __sxtab16(se, v);
                so = utvm_dsp_odd_add(so, v);
                px = &px[ch];
              }
            }
            y[c] = utvm_avg_pool_s8_div(p, (int32_t)(int16_t)(uint16_t)((uint32_t)se & 0xFFFFu), count);
            y[c + 1] = utvm_avg_pool_s8_div(p, (int32_t)(int16_t)(uint16_t)((uint32_t)so & 0xFFFFu), count);
            y[c + 2] = utvm_avg_pool_s8_div(p, se >> 16, count);
            y[c + 3] = utvm_avg_pool_s8_div(p, so >> 16, count);
          }
          scalar_from = (ch / 4) * 4;
        }
        for (c = scalar_from; c < ch; ++c) {
          int32_t fy;
          int32_t fx;
          int32_t acc = 0;
          for (fy = fy0; fy < fy1; ++fy) {
            for (fx = fx0; fx < fx1; ++fx) {
              acc += (int32_t)in[(((((b * p->in_h) + iy + fy) * p->in_w) + ix + fx) * ch) + c];
            }
          }
          y[c] = utvm_avg_pool_s8_div(p, acc, count);
        }
      }
    }
  }
}

#endif /* UTVM_KERNELS_POOLING_AVG_S8_H_ */
