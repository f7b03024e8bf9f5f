/* utvm-build kernels: TRANSPOSE_CONV, float32 (reference_ops::TransposeConv).
 * Same scatter order as the reference, so every output sums its terms in the same order. */
#ifndef UTVM_KERNELS_TRANSPOSE_CONV_F32_H_
#define UTVM_KERNELS_TRANSPOSE_CONV_F32_H_

#include "transpose_conv.h"

typedef struct {
  utvm_tconv_geom g;
  float act_min;
  float act_max;
} utvm_tconv_f32_params;

static inline float utvm_tconv_f32_load(const utvm_tconv_f32_params* p, float x) {
  (void)p;
  return x;
}

static inline float utvm_tconv_f32_mac(float acc, float x, float w) {
  return acc + (x * w);
}

static void utvm_transpose_conv_f32(const utvm_tconv_f32_params* p, const float* in, const float* w,
                                    const float* bias, float* out) {
  const utvm_tconv_geom* g = &p->g;
  const int32_t n_out = g->batches * g->out_h * g->out_w * g->out_c;
  int32_t i;
  UTVM_TCONV_SCATTER(p, g, in, w, out, float, 0.0f, utvm_tconv_f32_load, utvm_tconv_f32_mac);
  for (i = 0; i < n_out; ++i) {
    float v = out[i];
    if (bias != NULL) {
      v += bias[i % g->out_c];
    }
    out[i] = utvm_clamp_f32(v, p->act_min, p->act_max);
  }
}

#endif /* UTVM_KERNELS_TRANSPOSE_CONV_F32_H_ */
