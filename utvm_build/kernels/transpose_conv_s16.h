/* utvm-build kernels: TRANSPOSE_CONV, int16 activations with int8 weights (16x8)
 * (reference_integer_ops::TransposeConv: int64 accumulator in the scratch buffer; with an int32
 * bias (acc32) the reference accumulates in int32 and requantizes with the int32 rounding). */
#ifndef UTVM_KERNELS_TRANSPOSE_CONV_S16_H_
#define UTVM_KERNELS_TRANSPOSE_CONV_S16_H_

#include "transpose_conv.h"

static inline int32_t utvm_tconv_s16_load(const utvm_tconv_q_params* p, int16_t x) {
  (void)p;
  return (int32_t)x;
}

/* each product fits int32 (|x w| < 2^22); the sum is int64 */
static inline int64_t utvm_tconv_s16_mac(int64_t acc, int32_t x, int8_t w) {
  const int32_t prod = x * (int32_t)w;
  return acc + (int64_t)prod;
}

/* acc32 (int32 bias or none): the reference accumulates in int32, whose sum wraps where it
 * overflows; the int64 sum (no overflow: |terms| < 2^22 each) narrowed modulo 2^32 is that same
 * value, defined; then the int32 rounding. Otherwise the int64 MultiplyByQuantizedMultiplier. */
static inline int32_t utvm_tconv_s16_rq(const utvm_tconv_q_params* p, int64_t a, int32_t multiplier, int32_t shift) {
  int32_t v;
  if (p->acc32 != 0) {
    v = utvm_mul_by_quantized_mul((int32_t)(uint32_t)a, multiplier, shift);
  } else {
    v = utvm_mul_by_quantized_mul64(a, multiplier, shift);
  }
  return v;
}

/* bias: int64 (holding the int32 values when acc32) or NULL; acc: scratch of n_out int64.
 * acc32: int32 bias or no bias (the reference then uses its int32 path). */
static void utvm_transpose_conv_s16(const utvm_tconv_q_params* p, const int16_t* in, const int8_t* w, const int64_t* bias,
                                    const int32_t* multiplier, const int32_t* shift, int16_t* out, int64_t* acc) {
  UTVM_TCONV_SCATTER(p, &p->g, in, w, acc, int32_t, 0, utvm_tconv_s16_load, utvm_tconv_s16_mac);
  UTVM_TCONV_REQUANTIZE(p, &p->g, acc, bias, multiplier, shift, out, int16_t, int64_t, utvm_tconv_s16_rq);
}

#endif /* UTVM_KERNELS_TRANSPOSE_CONV_S16_H_ */
