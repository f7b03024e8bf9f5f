/* utvm-build kernels: TRANSPOSE_CONV, int16 activations with int8 weights (16x8)
 * (reference_integer_ops::TransposeConv: int64 accumulator in the scratch buffer; with an int32
 * bias (acc32) the reference accumulates in int32 and requantizes with the int32 rounding). */
#ifndef UTVM_KERNELS_TRANSPOSE_CONV_S16_H_
#define UTVM_KERNELS_TRANSPOSE_CONV_S16_H_

#include "transpose_conv.h"

/* bias: int64 (holding the int32 values when acc32) or NULL; acc: scratch of n_out int64.
 * acc32: int32 bias or no bias (the reference then uses its int32 path). */
static void utvm_transpose_conv_s16(const utvm_tconv_q_params* p, const int16_t* in, const int8_t* w,
                                    const int64_t* bias, const int32_t* multiplier, const int32_t* shift,
                                    int16_t* out, int64_t* acc) {
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
    acc[i] = 0;
  }
  for (b = 0; b < g->batches; ++b) {
    for (iy = 0; iy < g->in_h; ++iy) {
      for (ix = 0; ix < g->in_w; ++ix) {
        for (ic = 0; ic < g->in_c; ++ic) {
          const int32_t ox0 = (ix * g->stride_w) - g->pad_w;
          const int32_t oy0 = (iy * g->stride_h) - g->pad_h;
          const int32_t xv = (int32_t)in[(((((b * g->in_h) + iy) * g->in_w) + ix) * g->in_c) + ic];
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
                const int32_t wv = (int32_t)w[(((((oc * g->filter_h) + fy) * g->filter_w) + fx) * g->in_c) + ic];
                const int32_t prod = xv * wv;
                acc[utvm_tconv_out_index(g, b, oy, ox, oc)] += (int64_t)prod;
              }
            }
          }
        }
      }
    }
  }
  for (i = 0; i < n_out; ++i) {
    const int32_t c = i % g->out_c;
    int32_t v;
    if (p->acc32 != 0) {
      /* int32 accumulation: the reference's int32 sum wraps where it overflows; the int64 sum
       * (no overflow: |terms| < 2^22 each) narrowed modulo 2^32 is that same value, defined. */
      int64_t a = acc[i];
      if (bias != NULL) {
        a += bias[c];
      }
      v = utvm_mul_by_quantized_mul((int32_t)(uint32_t)a, multiplier[c], shift[c]);
    } else {
      int64_t a = acc[i];
      if (bias != NULL) {
        a += bias[c];
      }
      v = utvm_mul_by_quantized_mul64(a, multiplier[c], shift[c]);
    }
    out[i] = (int16_t)utvm_clamp_i32(v, p->act_min, p->act_max);
  }
}

#endif /* UTVM_KERNELS_TRANSPOSE_CONV_S16_H_ */
