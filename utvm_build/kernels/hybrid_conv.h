/* utvm-build kernels: hybrid CONV_2D and DEPTHWISE_CONV_2D (see hybrid.h, geometry in conv.h).
 *
 * Per output: acc = sum over the taps inside the image of w * (q - offset[batch]) in int32
 * (reference_ops::HybridConvPerChannel, reference_integer_ops::DepthwiseConvHybridPerChannel;
 * the per-tensor symmetric CONV_2D path, optimized_ops::HybridConv, pads with 0 = its offset), then
 * scale_mode 0: acc * sf[b] (filter scale folded into sf: per-tensor CONV_2D),
 *            1: acc * channel_scale[c] * sf[b] (per-channel CONV_2D),
 *            2: acc * (channel_scale[c] * sf[b]) (DEPTHWISE_CONV_2D),
 * plus the bias, clamped to the activation range. */
#ifndef UTVM_KERNELS_HYBRID_CONV_H_
#define UTVM_KERNELS_HYBRID_CONV_H_

#include "conv.h"
#include "hybrid.h"

typedef struct {
  utvm_conv_geom g;
  int32_t depthwise;
  int32_t scale_mode;
  float act_min;
  float act_max;
} utvm_hybrid_conv_params;

static inline int32_t utvm_hybrid_conv_acc(const utvm_hybrid_conv_params* p, const int8_t* q, int32_t offset,
                                           const int8_t* w, int32_t b, int32_t oy, int32_t ox, int32_t oc) {
  const utvm_conv_geom* g = &p->g;
  const int32_t y0 = (oy * g->stride_h) - g->pad_h;
  const int32_t x0 = (ox * g->stride_w) - g->pad_w;
  int32_t acc = 0;
  int32_t fy;
  int32_t fx;
  int32_t ic;
  for (fy = 0; fy < g->filter_h; ++fy) {
    const int32_t y = y0 + (g->dilation_h * fy);
    for (fx = 0; fx < g->filter_w; ++fx) {
      const int32_t x = x0 + (g->dilation_w * fx);
      if (utvm_conv_inside(g, y, x)) {
        const int32_t pixel = ((((b * g->in_h) + y) * g->in_w) + x) * g->in_c;
        if (p->depthwise != 0) {
          const int32_t in_c = oc / g->depth_multiplier;
          const int32_t wv = (int32_t)w[(((fy * g->filter_w) + fx) * g->out_c) + oc];
          acc += wv * ((int32_t)q[pixel + in_c] - offset);
        } else {
          const int32_t groups = g->in_c / g->filter_in_c;
          const int32_t group = oc / (g->out_c / groups);
          const int8_t* wrow = &w[((((oc * g->filter_h) + fy) * g->filter_w) + fx) * g->filter_in_c];
          const int8_t* xrow = &q[pixel + (group * g->filter_in_c)];
          for (ic = 0; ic < g->filter_in_c; ++ic) {
            acc += (int32_t)wrow[ic] * ((int32_t)xrow[ic] - offset);
          }
        }
      }
    }
  }
  return acc;
}

static void utvm_hybrid_conv(const utvm_hybrid_conv_params* p, const int8_t* q, const float* sf,
                             const int32_t* offset, const int8_t* w, const float* bias,
                             const float* channel_scale, float* out) {
  const utvm_conv_geom* g = &p->g;
  int32_t b;
  int32_t oy;
  int32_t ox;
  int32_t oc;
  for (b = 0; b < g->batches; ++b) {
    for (oy = 0; oy < g->out_h; ++oy) {
      for (ox = 0; ox < g->out_w; ++ox) {
        float* o = &out[((((b * g->out_h) + oy) * g->out_w) + ox) * g->out_c];
        for (oc = 0; oc < g->out_c; ++oc) {
          const int32_t acc = utvm_hybrid_conv_acc(p, q, offset[b], w, b, oy, ox, oc);
          float v;
          if (p->scale_mode == 0) {
            v = (float)acc * sf[b];
          } else if (p->scale_mode == 1) {
            v = ((float)acc * channel_scale[oc]) * sf[b];
          } else {
            v = (float)acc * (channel_scale[oc] * sf[b]);
          }
          if (bias != NULL) {
            v = v + bias[oc];
          }
          o[oc] = utvm_clamp_f32(v, p->act_min, p->act_max);
        }
      }
    }
  }
}

#endif /* UTVM_KERNELS_HYBRID_CONV_H_ */
