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

static void utvm_transpose_conv_f32(const utvm_tconv_f32_params* p, const float* in, const float* w,
                                    const float* bias, float* out) {
  const utvm_tconv_geom* g = &p->g;
  const int32_t n_out = g->batches * g->out_h * g->out_w * g->out_c;
  int32_t i;
  int32_t b;
  int32_t iy;
  int32_t ix;
  int32_t ic;
  int32_t fy;
  int32_t fx;
  int32_t oc;
  for (i = 0; i < n_out; ++i) {
    out[i] = 0.0f;
  }
  for (b = 0; b < g->batches; ++b) {
    for (iy = 0; iy < g->in_h; ++iy) {
      for (ix = 0; ix < g->in_w; ++ix) {
        for (ic = 0; ic < g->in_c; ++ic) {
          const int32_t ox0 = (ix * g->stride_w) - g->pad_w;
          const int32_t oy0 = (iy * g->stride_h) - g->pad_h;
          const float xv = in[(((((b * g->in_h) + iy) * g->in_w) + ix) * g->in_c) + ic];
          for (fy = 0; fy < g->filter_h; ++fy) {
            const int32_t oy = oy0 + fy;
            if ((oy < 0) || (oy >= g->out_h)) {
              continue;
            }
            for (fx = 0; fx < g->filter_w; ++fx) {
              const int32_t ox = ox0 + fx;
              if ((ox < 0) || (ox >= g->out_w)) {
                continue;
              }
              for (oc = 0; oc < g->out_c; ++oc) {
                const float wv = w[(((((oc * g->filter_h) + fy) * g->filter_w) + fx) * g->in_c) + ic];
                out[utvm_tconv_out_index(g, b, oy, ox, oc)] += xv * wv;
              }
            }
          }
        }
      }
    }
  }
  for (i = 0; i < n_out; ++i) {
    float v = out[i];
    if (bias != NULL) {
      v += bias[i % g->out_c];
    }
    out[i] = utvm_clamp_f32(v, p->act_min, p->act_max);
  }
}

#endif /* UTVM_KERNELS_TRANSPOSE_CONV_F32_H_ */
