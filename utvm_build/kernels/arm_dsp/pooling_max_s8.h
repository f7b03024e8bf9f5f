/* utvm-build kernels, DSP targets: MAX_POOL_2D, int8; replaces kernels/pooling_max_s8.h (same
 * function, same arguments, same results).
 *
 * Four channels per 32-bit load: SSUB8 sets the GE flags of the lanes where the new byte is not
 * smaller, SEL keeps the larger bytes; the activation clamp is the same pair against the bounds in
 * every lane. Channels left over by the blocks of 4 take the generic loop.
 */
#ifndef UTVM_KERNELS_POOLING_MAX_S8_H_
#define UTVM_KERNELS_POOLING_MAX_S8_H_

#if !defined(__ARM_FEATURE_DSP) || (__ARM_FEATURE_DSP != 1)
#error "utvm-build: these kernels were generated for a DSP target (--target cortex-m4/m7/m33/m55) but compiled without the DSP extension; use --target generic"
#endif

#include "dsp_s8.h"
#include "pooling_s8_window.h"

/* max(a, b) in each signed byte lane */
static UTVM_DSP_INLINE int32_t utvm_max_pool_s8_max4(int32_t a, int32_t b) {
  (void)__ssub8(a, b);
  return __sel(a, b);
}

static void utvm_max_pool_s8(const utvm_pool_q_params* p, const int8_t* in, int8_t* out) {
  const int32_t ch = p->channels;
  const int32_t lo = (int32_t)(((uint32_t)p->act_min & 0xFFu) * 0x01010101u);
  const int32_t hi = (int32_t)(((uint32_t)p->act_max & 0xFFu) * 0x01010101u);
  const int32_t pixels = p->batches * p->out_h * p->out_w;
  int32_t i;
  for (i = 0; i < pixels; ++i) {
    const utvm_pool_s8_win w = utvm_pool_s8_window(p, in, out, i);
    int32_t c;
    for (c = 0; (c + 4) <= ch; c += 4) {
      int32_t m = (int32_t)0x80808080u;
      int32_t fy;
      int32_t fx;
      uint32_t u;
      for (fy = 0; fy < w.rows; ++fy) {
        const int8_t* px = &w.px[(fy * w.row) + c];
        for (fx = 0; fx < w.cols; ++fx) {
          m = utvm_max_pool_s8_max4(utvm_dsp_ld4(px), m);
          px = &px[ch];
        }
      }
      m = utvm_max_pool_s8_max4(m, lo);
      (void)__ssub8(hi, m); /* GE where hi >= m */
      u = (uint32_t)__sel(m, hi);
      (void)memcpy(&w.y[c], &u, sizeof u);
    }
    for (c = (ch / 4) * 4; c < ch; ++c) {   /* the channels after the last group of 4 */
      int32_t fy;
      int32_t fx;
      int32_t m = INT8_MIN;
      for (fy = 0; fy < w.rows; ++fy) {
        for (fx = 0; fx < w.cols; ++fx) {
          m = utvm_max_i32(m, (int32_t)w.px[(fy * w.row) + (fx * ch) + c]);
        }
      }
      w.y[c] = (int8_t)utvm_pool_max_q_out(p, m, 0);
    }
  }
}

#endif /* UTVM_KERNELS_POOLING_MAX_S8_H_ */
