/* utvm-build kernels, Helium (MVE): MAX_POOL_2D, int8; replaces kernels/pooling_max_s8.h and
 * arm_dsp/pooling_max_s8.h (same function, same arguments, same results).
 *
 * 16 channels at a time: per window tap one load and one VMAX.S8 into the running maximum
 * (starting at -128, as the reference's), then the activation clamp (VMAX / VMIN against the
 * bounds) and one store; the last 1..15 channels predicated (nothing read or written past the
 * tensors). The window of each output pixel: arm_dsp/pooling_s8_window.h (shared with the DSP
 * kernels).
 */
#ifndef UTVM_KERNELS_POOLING_MAX_S8_H_
#define UTVM_KERNELS_POOLING_MAX_S8_H_

#if !defined(__ARM_FEATURE_MVE) || ((__ARM_FEATURE_MVE & 1) == 0)
#error "utvm-build: these kernels were generated for a Helium target (--target cortex-m55/m85/m52) but compiled without MVE; use --target cortex-m33 or generic"
#endif

#include "mve_s8.h"
#include "pooling_s8_window.h"

static UTVM_MVE_HOT void utvm_max_pool_s8(const utvm_pool_q_params* p, const int8_t* in, int8_t* out) {
  const int32_t ch = p->channels;
  const int8x16_t lo = vdupq_n_s8((int8_t)p->act_min);
  const int8x16_t hi = vdupq_n_s8((int8_t)p->act_max);
  const int32_t pixels = p->batches * p->out_h * p->out_w;
  int32_t i;
  for (i = 0; i < pixels; ++i) {
    const utvm_pool_s8_win w = utvm_pool_s8_window(p, in, out, i);
    int32_t c;
    for (c = 0; c < ch; c += 16) {
      const mve_pred16_t pr = vctp8q((uint32_t)(ch - c));
      int8x16_t m = vdupq_n_s8(INT8_MIN);
      int32_t fy;
      int32_t fx;
      for (fy = 0; fy < w.rows; ++fy) {
        const int8_t* q = &w.px[(fy * w.row) + c];
        for (fx = 0; fx < w.cols; ++fx) {
          m = vmaxq_s8(m, vldrbq_z_s8(&q[fx * ch], pr)); /* false lanes 0: not stored */
        }
      }
      vstrbq_p_s8(&w.y[c], vminq_s8(vmaxq_s8(m, lo), hi), pr);
    }
  }
}

#endif /* UTVM_KERNELS_POOLING_MAX_S8_H_ */
