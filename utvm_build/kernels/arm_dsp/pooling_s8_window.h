/* utvm-build kernels, DSP and Helium targets: the output-pixel bookkeeping of the int8 pooling
 * overrides (arm_dsp/pooling_{avg,max}_s8.h, arm_mve/pooling_{avg,max}_s8.h), written once.
 *
 * Plain C (no DSP or MVE instruction), guarded like every header of this folder: a Helium target
 * finds it here too (its kernel folders are arm_mve then arm_dsp; the Helium cores have the DSP
 * extension).
 */
#ifndef UTVM_KERNELS_POOLING_S8_WINDOW_H_
#define UTVM_KERNELS_POOLING_S8_WINDOW_H_

#if !defined(__ARM_FEATURE_DSP) || (__ARM_FEATURE_DSP != 1)
#error "utvm-build: these kernels were generated for a DSP target (--target cortex-m4/m7/m33/m55) but compiled without the DSP extension; use --target generic"
#endif

#include "pooling.h"

/* One output pixel's window clamped to the image (pooling.h UTVM_POOL_WINDOW). */
typedef struct {
  const int8_t* px; /* the first tap inside the image, channel 0 (the input itself when no tap is) */
  int8_t* y;        /* the output pixel, channel 0 */
  int32_t rows;     /* filter rows inside the image */
  int32_t cols;     /* filter columns inside the image */
  int32_t row;      /* bytes from one input row to the next */
} utvm_pool_s8_win;

/* The window of output pixel i (batch, row and column from i: the kernels loop over
 * batches * out_h * out_w pixels). */
static inline utvm_pool_s8_win utvm_pool_s8_window(const utvm_pool_q_params* p, const int8_t* in, int8_t* out,
                                                   int32_t i) {
  const int32_t per_image = p->out_h * p->out_w;
  const int32_t b = i / per_image;
  const int32_t oy = (i - (b * per_image)) / p->out_w;
  const int32_t ox = i - (b * per_image) - (oy * p->out_w);
  utvm_pool_s8_win w;
  int32_t iy;
  int32_t ix;
  int32_t fy0;
  int32_t fy1;
  int32_t fx0;
  int32_t fx1;
  UTVM_POOL_WINDOW(p, oy, ox, iy, ix, fy0, fy1, fx0, fx1);
  w.rows = utvm_max_i32(fy1 - fy0, 0);
  w.cols = utvm_max_i32(fx1 - fx0, 0);
  w.row = p->in_w * p->channels;
  w.px = ((w.rows > 0) && (w.cols > 0)) ? &in[((((b * p->in_h) + iy + fy0) * p->in_w) + ix + fx0) * p->channels]
                                        : in;
  w.y = &out[i * p->channels];
  return w;
}

/* The sum of channel c (of ch) over window w, one tap at a time (the channels and windows the
 * vector loops leave). */
static inline int32_t utvm_pool_s8_sum(const utvm_pool_s8_win* w, int32_t ch, int32_t c) {
  int32_t acc = 0;
  int32_t fy;
  int32_t fx;
  for (fy = 0; fy < w->rows; ++fy) {
    for (fx = 0; fx < w->cols; ++fx) {
      acc += (int32_t)w->px[(fy * w->row) + (fx * ch) + c];
    }
  }
  return acc;
}

#endif /* UTVM_KERNELS_POOLING_S8_WINDOW_H_ */
