/* utvm-build kernels: TRANSPOSE_CONV, int8 with per-channel weights
 * (reference_integer_ops::TransposeConv, int32 accumulator in the scratch buffer). */
#ifndef UTVM_KERNELS_TRANSPOSE_CONV_S8_H_
#define UTVM_KERNELS_TRANSPOSE_CONV_S8_H_

#include "transpose_conv.h"

static inline int32_t utvm_tconv_s8_load(const utvm_tconv_q_params* p, int8_t x) {
  return (int32_t)x + p->input_offset;
}

static inline int32_t utvm_tconv_s8_mac(int32_t acc, int32_t x, int8_t w) {
  return acc + (x * (int32_t)w);
}

static inline int32_t utvm_tconv_s8_rq(const utvm_tconv_q_params* p, int32_t v, int32_t multiplier, int32_t shift) {
  return utvm_mul_by_quantized_mul(v, multiplier, shift) + p->output_offset;
}

/* bias: int32 or NULL; acc: scratch of batches*out_h*out_w*out_c int32. */
static void utvm_transpose_conv_s8(const utvm_tconv_q_params* p, const int8_t* in, const int8_t* w, const int32_t* bias,
                                   const int32_t* multiplier, const int32_t* shift, int8_t* out, int32_t* acc) {
  UTVM_TCONV_SCATTER(p, &p->g, in, w, acc, int32_t, 0, utvm_tconv_s8_load, utvm_tconv_s8_mac);
  UTVM_TCONV_REQUANTIZE(p, &p->g, acc, bias, multiplier, shift, out, int8_t, int32_t, utvm_tconv_s8_rq);
}

#endif /* UTVM_KERNELS_TRANSPOSE_CONV_S8_H_ */
