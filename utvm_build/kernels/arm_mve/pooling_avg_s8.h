/* utvm-build kernels, Helium (MVE): AVERAGE_POOL_2D, int8; replaces kernels/pooling_avg_s8.h and
 * arm_dsp/pooling_avg_s8.h (same function, same arguments, same results).
 *
 * 16 channels at a time: per window tap two widening loads (VLDRB.S16, 8 channels each) added
 * to two int16 lane sums, exact while the window has at most 255 taps (|sum| <= 128 x 255 <
 * 2^15); the last 1..15 channels with predicated loads (false lanes 0, nothing read past the
 * tensor). The sums are stored to a small buffer on the stack and divided one channel at a time
 * as the reference does (pooling.h utvm_pool_avg_q_out: round half away from zero, C division:
 * MVE has no integer division). Windows of more than 255 taps take the generic loop. The window
 * of each output pixel: arm_dsp/pooling_s8_window.h (shared with the DSP kernels).
 */
#ifndef UTVM_KERNELS_POOLING_AVG_S8_H_
#define UTVM_KERNELS_POOLING_AVG_S8_H_

#if !defined(__ARM_FEATURE_MVE) || ((__ARM_FEATURE_MVE & 1) == 0)
#error "utvm-build: these kernels were generated for a Helium target (--target cortex-m55/m85/m52) but compiled without MVE; use --target cortex-m33 or generic"
#endif

#include "mve_s8.h"
#include "pooling_s8_window.h"

/* The window sums of 16 channels from px (rows of taps nx channels * ch apart, rows row bytes
 * apart) into s[0..15]; pr0 / pr1: the lanes of the two halves that exist (tail). */
static UTVM_MVE_INLINE void utvm_avg_pool_mve_sum16(const int8_t* px, int32_t rows, int32_t nx, int32_t ch,
                                                    int32_t row, int16_t* s, mve_pred16_t pr0, mve_pred16_t pr1,
                                                    bool tail) {
  int16x8_t a = vdupq_n_s16(0);
  int16x8_t b = a;
  int32_t fy;
  int32_t fx;
  for (fy = 0; fy < rows; ++fy) {
    const int8_t* q = &px[fy * row];
    for (fx = 0; fx < nx; ++fx) {
      const int8_t* const t = &q[fx * ch]; /* no pointer past the window is formed */
      if (tail) {
        a = vaddq_s16(a, vldrbq_z_s16(t, pr0));
        b = vaddq_s16(b, vldrbq_z_s16(&t[8], pr1));
      } else {
        a = vaddq_s16(a, vldrbq_s16(t));
        b = vaddq_s16(b, vldrbq_s16(&t[8]));
      }
    }
  }
  vst1q_s16(s, a);
  vst1q_s16(&s[8], b);
}

static UTVM_MVE_HOT void utvm_avg_pool_s8(const utvm_pool_q_params* p, const int8_t* in, int8_t* out) {
  const int32_t ch = p->channels;
  int16_t s[16];
  const int32_t pixels = p->batches * p->out_h * p->out_w;
  int32_t i;
  for (i = 0; i < pixels; ++i) {
    const utvm_pool_s8_win w = utvm_pool_s8_window(p, in, out, i);
    const int32_t count = w.rows * w.cols;
    int32_t c;
    if ((count > 0) && (count <= 255)) {
      int32_t j;
      for (c = 0; (c + 16) <= ch; c += 16) {
        utvm_avg_pool_mve_sum16(&w.px[c], w.rows, w.cols, ch, w.row, s, 0, 0, false);
        for (j = 0; j < 16; ++j) {
          w.y[c + j] = (int8_t)utvm_pool_avg_q_out(p, s[j], count);
        }
      }
      if (c < ch) {
        const int32_t n = ch - c;
        utvm_avg_pool_mve_sum16(&w.px[c], w.rows, w.cols, ch, w.row, s, vctp16q((uint32_t)n),
                                vctp16q((uint32_t)((n > 8) ? (n - 8) : 0)), true);
        for (j = 0; j < n; ++j) {
          w.y[c + j] = (int8_t)utvm_pool_avg_q_out(p, s[j], count);
        }
      }
    } else {
      /* the generic loop (a window of more than 255 taps; count 0 cannot occur in a valid model
       * but divides nothing here either) */
      for (c = 0; c < ch; ++c) {
        w.y[c] = (count > 0) ? (int8_t)utvm_pool_avg_q_out(p, utvm_pool_s8_sum(&w, ch, c), count)
                             : (int8_t)utvm_clamp_i32(0, p->act_min, p->act_max);
      }
    }
  }
}

#endif /* UTVM_KERNELS_POOLING_AVG_S8_H_ */
