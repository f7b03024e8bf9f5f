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
#include "pooling_s8_window.h"

static void utvm_avg_pool_s8(const utvm_pool_q_params* p, const int8_t* in, int8_t* out) {
  const int32_t ch = p->channels;
  const int32_t pixels = p->batches * p->out_h * p->out_w;
  int32_t i;
  for (i = 0; i < pixels; ++i) {
    const utvm_pool_s8_win w = utvm_pool_s8_window(p, in, out, i);
    const int32_t count = w.rows * w.cols;
    int32_t c = 0;
    int32_t scalar_from = 0;   /* the channels the scalar loop does: all, or the tail after groups of 4 */
    if (count <= 255) {
      for (c = 0; (c + 4) <= ch; c += 4) {
        int32_t se = 0;
        int32_t so = 0;
        int32_t fy;
        int32_t fx;
        for (fy = 0; fy < w.rows; ++fy) {
          const int8_t* px = &w.px[(fy * w.row) + c];
          for (fx = 0; fx < w.cols; ++fx) {
            const int32_t v = utvm_dsp_ld4(px);
            se = __sxtab16(se, v);
            so = utvm_dsp_odd_add(so, v);
            px = &px[ch];
          }
        }
        w.y[c] = (int8_t)utvm_pool_avg_q_out(p, (int32_t)(int16_t)(uint16_t)((uint32_t)se & 0xFFFFu), count);
        w.y[c + 1] = (int8_t)utvm_pool_avg_q_out(p, (int32_t)(int16_t)(uint16_t)((uint32_t)so & 0xFFFFu), count);
        w.y[c + 2] = (int8_t)utvm_pool_avg_q_out(p, se >> 16, count);
        w.y[c + 3] = (int8_t)utvm_pool_avg_q_out(p, so >> 16, count);
      }
      scalar_from = (ch / 4) * 4;
    }
    for (c = scalar_from; c < ch; ++c) {
      w.y[c] = (int8_t)utvm_pool_avg_q_out(p, utvm_pool_s8_sum(&w, ch, c), count);
    }
  }
}

#endif /* UTVM_KERNELS_POOLING_AVG_S8_H_ */
