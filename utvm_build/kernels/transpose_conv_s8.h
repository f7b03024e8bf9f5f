/* utvm-build kernels: TRANSPOSE_CONV, int8 with per-channel weights
 * (reference_integer_ops::TransposeConv, int32 accumulator in the scratch buffer). */
#ifndef UTVM_KERNELS_TRANSPOSE_CONV_S8_H_
#define UTVM_KERNELS_TRANSPOSE_CONV_S8_H_

#include "transpose_conv.h"

/* bias: int32 or NULL; acc: scratch of batches*out_h*out_w*out_c int32. */
static void utvm_transpose_conv_s8(const utvm_tconv_q_params* p, const int8_t* in, const int8_t* w,
                                   const int32_t* bias, const int32_t* multiplier, const int32_t* shift,
                                   int8_t* out, int32_t* acc) {
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
          const int32_t xv = (int32_t)in[(((((b * g->in_h) + iy) * g->in_w) + ix) * g->in_c) + ic] + p->input_offset;
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
                acc[utvm_tconv_out_index(g, b, oy, ox, oc)] += xv * wv;
              }
            }
          }
        }
      }
    }
  }
  for (i = 0; i < n_out; ++i) {
    const int32_t c = i % g->out_c;
    int32_t v = acc[i];
    if (bias != NULL) {
      v += bias[c];
    }
    v = utvm_mul_by_quantized_mul(v, multiplier[c], shift[c]) + p->output_offset;
    out[i] = (int8_t)utvm_clamp_i32(v, p->act_min, p->act_max);
  }
}

#endif /* UTVM_KERNELS_TRANSPOSE_CONV_S8_H_ */
