/* utvm-build kernels: CONV_2D, float32 (TFLite reference_ops::Conv, same summation order). */
#ifndef UTVM_KERNELS_CONV2D_F32_H_
#define UTVM_KERNELS_CONV2D_F32_H_

#include "conv.h"

/* bias may be NULL. */
static void utvm_conv2d_f32(const utvm_conv_f32_params* p, const float* in, const float* w,
                            const float* bias, float* out) {
  const utvm_conv_geom* g = &p->g;
  const int32_t filters_per_group = g->out_c / (g->in_c / g->filter_in_c);
  int32_t b;
  int32_t oy;
  int32_t ox;
  int32_t oc;
  int32_t ky;
  int32_t kx;
  int32_t c;
  for (b = 0; b < g->batches; ++b) {
    for (oy = 0; oy < g->out_h; ++oy) {
      const int32_t iy0 = (oy * g->stride_h) - g->pad_h;
      for (ox = 0; ox < g->out_w; ++ox) {
        const int32_t ix0 = (ox * g->stride_w) - g->pad_w;
        for (oc = 0; oc < g->out_c; ++oc) {
          const int32_t c0 = (oc / filters_per_group) * g->filter_in_c;
          float total = 0.0f;
          for (ky = 0; ky < g->filter_h; ++ky) {
            const int32_t iy = iy0 + (ky * g->dilation_h);
            for (kx = 0; kx < g->filter_w; ++kx) {
              const int32_t ix = ix0 + (kx * g->dilation_w);
              if (utvm_conv_inside(g, iy, ix)) {
                const float* wp = &w[((((oc * g->filter_h) + ky) * g->filter_w) + kx) * g->filter_in_c];
                const float* xp = &in[(((((b * g->in_h) + iy) * g->in_w) + ix) * g->in_c) + c0];
                for (c = 0; c < g->filter_in_c; ++c) {
                  total += xp[c] * wp[c];
                }
              }
            }
          }
          total = total + ((bias != NULL) ? bias[oc] : 0.0f);
          out[(((((b * g->out_h) + oy) * g->out_w) + ox) * g->out_c) + oc] =
              utvm_clamp_f32(total, p->act_min, p->act_max);
        }
      }
    }
  }
}

#endif /* UTVM_KERNELS_CONV2D_F32_H_ */
