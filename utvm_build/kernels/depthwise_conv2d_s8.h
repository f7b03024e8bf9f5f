/* utvm-build kernels: DEPTHWISE_CONV_2D, int8 (TFLite DepthwiseConvPerChannel). */
#ifndef UTVM_KERNELS_DEPTHWISE_CONV2D_S8_H_
#define UTVM_KERNELS_DEPTHWISE_CONV2D_S8_H_

#include "conv.h"

/* bias: folded bias (bias - input_zp * sum of the channel's weights), never NULL. */
static void utvm_depthwise_conv2d_s8(const utvm_conv_q_params* p, const int8_t* in, const int8_t* w,
                                     const int32_t* bias, const int32_t* mult, const int32_t* shift,
                                     int8_t* out) {
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
            int32_t acc = bias[oc];
            for (ky = 0; ky < g->filter_h; ++ky) {
              const int32_t iy = iy0 + (ky * g->dilation_h);
              for (kx = 0; kx < g->filter_w; ++kx) {
                const int32_t ix = ix0 + (kx * g->dilation_w);
                const int32_t wv = w[(((ky * g->filter_w) + kx) * g->out_c) + oc];
                /* a skipped tap (outside the image) cancels its share of the folded offset */
                const int32_t xv = utvm_conv_inside(g, iy, ix)
                                       ? (int32_t)in[(((((b * g->in_h) + iy) * g->in_w) + ix) * g->in_c) + ic]
                                       : p->pad_value;
                acc += wv * xv;
              }
            }
            acc = utvm_mul_by_quantized_mul(acc, mult[oc], shift[oc]) + p->output_offset;
            out[(((((b * g->out_h) + oy) * g->out_w) + ox) * g->out_c) + oc] =
                (int8_t)utvm_clamp_i32(acc, p->act_min, p->act_max);
          }
        }
      }
    }
  }
}

#endif /* UTVM_KERNELS_DEPTHWISE_CONV2D_S8_H_ */
