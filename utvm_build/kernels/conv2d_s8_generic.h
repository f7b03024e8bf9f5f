/* utvm-build kernels: CONV_2D, int8, any geometry (TFLite ConvPerChannel): the grouped and
 * width-dilated convolutions that conv2d_s8.h does not take. Per output value, per tap, with the
 * bounds check. */
#ifndef UTVM_KERNELS_CONV2D_S8_GENERIC_H_
#define UTVM_KERNELS_CONV2D_S8_GENERIC_H_

#include "conv.h"

/* bias: folded bias (bias - input_zp * sum of all weights of the channel), never NULL.
 * mult/shift: per output channel requantization (TFLite QuantizeMultiplier). */
static void utvm_conv2d_s8_generic(const utvm_conv_q_params* p, const int8_t* in, const int8_t* w,
                                   const int32_t* bias, const int32_t* mult, const int32_t* shift,
                                   int8_t* out) {
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
          int32_t acc = bias[oc];
          for (ky = 0; ky < g->filter_h; ++ky) {
            const int32_t iy = iy0 + (ky * g->dilation_h);
            for (kx = 0; kx < g->filter_w; ++kx) {
              const int32_t ix = ix0 + (kx * g->dilation_w);
              const int8_t* wp = &w[((((oc * g->filter_h) + ky) * g->filter_w) + kx) * g->filter_in_c];
              if (utvm_conv_inside(g, iy, ix)) {
                const int8_t* xp = &in[(((((b * g->in_h) + iy) * g->in_w) + ix) * g->in_c) + c0];
                for (c = 0; c < g->filter_in_c; ++c) {
                  acc += (int32_t)wp[c] * (int32_t)xp[c];
                }
              } else if (p->pad_value != 0) {
                /* skipped tap: cancel its share of the folded input offset */
                int32_t wsum = 0;
                for (c = 0; c < g->filter_in_c; ++c) {
                  wsum += (int32_t)wp[c];
                }
                acc += wsum * p->pad_value;
              } else {
                /* skipped tap with input zero point 0: nothing was folded in */
              }
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

#endif /* UTVM_KERNELS_CONV2D_S8_GENERIC_H_ */
