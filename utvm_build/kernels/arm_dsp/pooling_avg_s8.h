/* utvm-build kernels, DSP targets: AVERAGE_POOL_2D, int8; replaces kernels/pooling_avg_s8.h (same
 * function, same arguments, same results).
 *
 * Four channels per 32-bit load: SXTAB16 adds the even and the odd bytes of every window word to
 * two pairs of int16 lane sums (exact while the window has at most 255 taps: |sum| <= 128 x 255 <
 * 2^15; larger windows and the channels left over by the blocks of 4 take the generic loop). The
 * division (round half away from zero, C division) as one UMULL by the window's reciprocal, inlined
 * (utvm_avg_pool_s8_out), instead of a call of the generic division per output (VWW's global 3x3
 * pool: its window constant-folded into the operator, SDIV and the call about 20 cycles an output).
 */
#ifndef UTVM_KERNELS_POOLING_AVG_S8_H_
#define UTVM_KERNELS_POOLING_AVG_S8_H_

#if !defined(__ARM_FEATURE_DSP) || (__ARM_FEATURE_DSP != 1)
#error "utvm-build: these kernels were generated for a DSP target (--target cortex-m4/m7/m33/m55) but compiled without the DSP extension; use --target generic"
#endif

#include "dsp_s8.h"
#include "pooling_s8_window.h"

/* The average of a window of count taps whose sum is acc, rounded half away from zero (the
 * reference's C division of acc +- count / 2 by count), clamped to [lo, hi]: sign(acc) floor(n /
 * count) with n = |acc| + half, as the high word of n x inv. With inv = ceil(2^32 / count) = (2^32 +
 * e) / count, 0 <= e < count: n inv / 2^32 = n / count + n e / (count 2^32), and n e < 2^15 x 255 <
 * 2^32 keeps the floor (n < 2^15: windows of at most 255 taps). count 1: inv = 2^32 - 1 and half = 1,
 * (n + 1)(2^32 - 1) / 2^32 = n + 1 - (n + 1) / 2^32, whose floor is n. */
static UTVM_DSP_INLINE int8_t utvm_avg_pool_s8_out(int32_t acc, uint32_t half, uint32_t inv, int32_t lo, int32_t hi) {
  const uint32_t sgn = (uint32_t)(acc >> 31); /* all ones when acc < 0 (|acc| < 2^15): no branch */
  const uint32_t n = (((uint32_t)acc ^ sgn) - sgn) + half;
  const uint32_t q = (uint32_t)(((uint64_t)n * inv) >> 32u);
  const int32_t v = (int32_t)((q ^ sgn) - sgn);
  return (int8_t)(((lo == -128) && (hi == 127)) ? __ssat(v, 8) : utvm_clamp_i32(v, lo, hi));
}

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
      const uint32_t half = (count == 1) ? 1u : (uint32_t)count / 2u;
      const uint32_t inv = (count == 1) ? 0xFFFFFFFFu : ((0xFFFFFFFFu / (uint32_t)count) + 1u); /* ceil(2^32 / count) */
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
        w.y[c] = utvm_avg_pool_s8_out((int32_t)(int16_t)(uint16_t)((uint32_t)se & 0xFFFFu), half, inv, p->act_min,
                                      p->act_max);
        w.y[c + 1] = utvm_avg_pool_s8_out((int32_t)(int16_t)(uint16_t)((uint32_t)so & 0xFFFFu), half, inv, p->act_min,
                                          p->act_max);
        w.y[c + 2] = utvm_avg_pool_s8_out(se >> 16, half, inv, p->act_min, p->act_max);
        w.y[c + 3] = utvm_avg_pool_s8_out(so >> 16, half, inv, p->act_min, p->act_max);
      }
      scalar_from = (ch / 4) * 4;
    }
    for (c = scalar_from; c < ch; ++c) {
      w.y[c] = (int8_t)utvm_pool_avg_q_out(p, utvm_pool_s8_sum(&w, ch, c), count);
    }
  }
}

#endif /* UTVM_KERNELS_POOLING_AVG_S8_H_ */
