/* utvm-build kernels: CONV_2D, int16 activations with int8 weights (16x8; TFLite ConvPerChannel
 * with AccumScalar int64_t or int32_t). Zero points of input and output are 0. */
#ifndef UTVM_KERNELS_CONV2D_S16_H_
#define UTVM_KERNELS_CONV2D_S16_H_

#include "conv.h"

/* p->acc32: the model has an int32 bias; the reference then accumulates in int32 and uses the
 * int32 MultiplyByQuantizedMultiplier (double rounding) instead of the int64 one. */
static inline int16_t utvm_conv2d_s16_finish(const utvm_conv_q_params* p, const int64_t* bias, const int32_t* mult,
                                             const int32_t* shift, int32_t oc, int64_t acc) {
  int64_t total = acc;
  int32_t r;
  if (bias != NULL) {
    total += bias[oc];
  }
  if (p->acc32 != 0) {
    r = utvm_mul_by_quantized_mul((int32_t)total, mult[oc], shift[oc]);
  } else {
    r = utvm_mul_by_quantized_mul64(total, mult[oc], shift[oc]);
  }
  return (int16_t)utvm_clamp_i32(r, p->act_min, p->act_max);
}

/* bias: int64 (an int32 bias is widened at code generation), may be NULL. */
static void utvm_conv2d_s16(const utvm_conv_q_params* p, const int16_t* in, const int8_t* w,
                            const int64_t* bias, const int32_t* mult, const int32_t* shift,
                            int16_t* out) {
  UTVM_CONV_WALK(p, in, w, bias, mult, shift, out, int16_t, int8_t, int64_t, utvm_conv_s16_zero,
                 utvm_conv_s16_mac, utvm_conv_s16_no_skip, utvm_conv2d_s16_finish);
}

#endif /* UTVM_KERNELS_CONV2D_S16_H_ */
