/* utvm-build kernels: DEPTHWISE_CONV_2D, float32 (TFLite reference_ops::DepthwiseConv, same
 * summation order). */
#ifndef UTVM_KERNELS_DEPTHWISE_CONV2D_F32_H_
#define UTVM_KERNELS_DEPTHWISE_CONV2D_F32_H_

#include "conv.h"

/* bias may be NULL. */
static void utvm_depthwise_conv2d_f32(const utvm_conv_f32_params* p, const float* in,
                                      const float* w, const float* bias, float* out) {
  const utvm_conv_geom* g = &p->g;
  int32_t b;
  int32_t oy;
  int32_t ox;
  int32_t ic;
  int32_t m;
  int32_t ky;
  int32_t kx;
  for (b = 0; b < g->batches; ++b) {
    for (oy = 0; oy < g->out_h; ++oy) {
      const int32_t iy0 = (oy * g->stride_h) - g->pad_h;
      for (ox = 0; ox < g->out_w; ++ox) {
        const int32_t ix0 = (ox * g->stride_w) - g->pad_w;
        for (ic = 0; ic < g->in_c; ++ic) {
          for (m = 0; m < g->depth_multiplier; ++m) {
            const int32_t oc = (ic * g->depth_multiplier) + m;
            float total = 0.0f;
            for (ky = 0; ky < g->filter_h; ++ky) {
              const int32_t iy = iy0 + (ky * g->dilation_h);
              for (kx = 0; kx < g->filter_w; ++kx) {
                const int32_t ix = ix0 + (kx * g->dilation_w);
                if (utvm_conv_inside(g, iy, ix)) {
                  total += in[(((((b * g->in_h) + iy) * g->in_w) + ix) * g->in_c) + ic] *
                           w[(((ky * g->filter_w) + kx) * g->out_c) + oc];
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
}

#endif /* UTVM_KERNELS_DEPTHWISE_CONV2D_F32_H_ */
