/* utvm-build kernels: DEPTHWISE_CONV_2D, int16 activations with int8 weights (16x8; TFLite
 * DepthwiseConvPerChannel with an int64 accumulator). Zero points of input and output are 0. */
#ifndef UTVM_KERNELS_DEPTHWISE_CONV2D_S16_H_
#define UTVM_KERNELS_DEPTHWISE_CONV2D_S16_H_

#include "conv.h"

/* bias: int64, may be NULL. */
static void utvm_depthwise_conv2d_s16(const utvm_conv_q_params* p, const int16_t* in,
                                      const int8_t* w, const int64_t* bias, const int32_t* mult,
                                      const int32_t* shift, int16_t* out) {
  UTVM_DW_WALK(p, in, w, bias, mult, shift, out, int64_t, 0, utvm_conv_s16_mac, utvm_conv_s16_out);
}

#endif /* UTVM_KERNELS_DEPTHWISE_CONV2D_S16_H_ */
