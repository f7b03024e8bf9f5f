/* utvm-build kernels: CONV_2D, int16 activations with int8 weights (16x8; TFLite ConvPerChannel
 * with AccumScalar int64_t or int32_t). Zero points of input and output are 0. */
#ifndef UTVM_KERNELS_CONV2D_S16_H_
#define UTVM_KERNELS_CONV2D_S16_H_

#include "conv.h"

/* bias: int64 (an int32 bias is widened at code generation), may be NULL. */
UTVM_CONV_Q_KERNEL(utvm_conv2d_s16, int16_t, int64_t, utvm_conv_s16_zero, utvm_conv_s16_mac, utvm_conv_s16_no_skip,
                   utvm_conv_s16_out)

#endif /* UTVM_KERNELS_CONV2D_S16_H_ */
