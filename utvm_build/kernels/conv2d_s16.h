/* utvm-build kernels: CONV_2D, int16 activations with int8 weights (16x8; TFLite ConvPerChannel
 * with AccumScalar int64_t or int32_t). Zero points of input and output are 0. */
#ifndef UTVM_KERNELS_CONV2D_S16_H_
#define UTVM_KERNELS_CONV2D_S16_H_

#include "conv.h"

/* bias: int64 (an int32 bias is widened at code generation), may be NULL.
 * p->acc32: the model has an int32 bias; the reference then accumulates in int32 and uses the
 * int32 MultiplyByQuantizedMultiplier (double rounding) instead of the int64 one. */
static void utvm_conv2d_s16(const utvm_conv_q_params* p, const int16_t* in, const int8_t* w,
                            const int64_t* bias, const int32_t* mult, const int32_t* shift,
                            int16_t* out) {
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
          int64_t acc = 0;
          int32_t r;
          for (ky = 0; ky < g->filter_h; ++ky) {
            const int32_t iy = iy0 + (ky * g->dilation_h);
            for (kx = 0; kx < g->filter_w; ++kx) {
              const int32_t ix = ix0 + (kx * g->dilation_w);
              if (utvm_conv_inside(g, iy, ix)) {
                const int8_t* wp = &w[((((oc * g->filter_h) + ky) * g->filter_w) + kx) * g->filter_in_c];
                const int16_t* xp = &in[(((((b * g->in_h) + iy) * g->in_w) + ix) * g->in_c) + c0];
                for (c = 0; c < g->filter_in_c; ++c) {
                  const int32_t prod = (int32_t)wp[c] * (int32_t)xp[c];
                  acc += (int64_t)prod;
                }
              }
            }
          }
          if (bias != NULL) {
            acc += bias[oc];
          }
          if (p->acc32 != 0) {
            r = utvm_mul_by_quantized_mul((int32_t)acc, mult[oc], shift[oc]);
          } else {
            r = utvm_mul_by_quantized_mul64(acc, mult[oc], shift[oc]);
          }
          out[(((((b * g->out_h) + oy) * g->out_w) + ox) * g->out_c) + oc] =
              (int16_t)utvm_clamp_i32(r, p->act_min, p->act_max);
        }
      }
    }
  }
}

#endif /* UTVM_KERNELS_CONV2D_S16_H_ */
