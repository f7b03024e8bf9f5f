/* utvm-build kernels: CONV_2D, int8, any geometry (TFLite ConvPerChannel): the grouped and
 * width-dilated convolutions that conv2d_s8.h does not take. Per output value, per tap, with the
 * bounds check. */
#ifndef UTVM_KERNELS_CONV2D_S8_GENERIC_H_
#define UTVM_KERNELS_CONV2D_S8_GENERIC_H_

#include "conv.h"

static inline int32_t utvm_conv2d_s8_generic_init(const int32_t* bias, int32_t oc) {
  return bias[oc];
}

static inline int32_t utvm_conv2d_s8_generic_mac(int32_t acc, int8_t w, int8_t x) {
  return acc + ((int32_t)w * (int32_t)x);
}

/* A skipped tap: cancel its share of the folded input offset (nothing was folded in with input
 * zero point 0). */
static inline int32_t utvm_conv2d_s8_generic_skip(const utvm_conv_q_params* p, int32_t acc, const int8_t* wp) {
  int32_t total = acc;
  if (p->pad_value != 0) {
    int32_t wsum = 0;
    int32_t c;
    for (c = 0; c < p->g.filter_in_c; ++c) {
      wsum += (int32_t)wp[c];
    }
    total += wsum * p->pad_value;
  }
  return total;
}

static inline int8_t utvm_conv2d_s8_generic_finish(const utvm_conv_q_params* p, const int32_t* bias,
                                                   const int32_t* mult, const int32_t* shift, int32_t oc,
                                                   int32_t acc) {
  (void)bias;
  return (int8_t)utvm_clamp_i32(utvm_mul_by_quantized_mul(acc, mult[oc], shift[oc]) + p->output_offset,
                                p->act_min, p->act_max);
}

/* bias: folded bias (bias - input_zp * sum of all weights of the channel), never NULL. */
UTVM_CONV_Q_KERNEL(utvm_conv2d_s8_generic, int8_t, int32_t, utvm_conv2d_s8_generic_init, utvm_conv2d_s8_generic_mac,
                   utvm_conv2d_s8_generic_skip, utvm_conv2d_s8_generic_finish)

#endif /* UTVM_KERNELS_CONV2D_S8_GENERIC_H_ */
