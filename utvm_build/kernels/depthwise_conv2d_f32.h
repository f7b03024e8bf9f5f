/* utvm-build kernels: DEPTHWISE_CONV_2D, float32 (TFLite reference_ops::DepthwiseConv, same
 * summation order). */
#ifndef UTVM_KERNELS_DEPTHWISE_CONV2D_F32_H_
#define UTVM_KERNELS_DEPTHWISE_CONV2D_F32_H_

#include "conv.h"

/* bias may be NULL. */
static void utvm_depthwise_conv2d_f32(const utvm_conv_f32_params* p, const float* in,
                                      const float* w, const float* bias, float* out) {
  UTVM_DW_WALK(p, in, w, bias, (const int32_t*)NULL, (const int32_t*)NULL, out, float, 0.0f, utvm_conv_f32_mac,
               utvm_conv_f32_finish);
}

#endif /* UTVM_KERNELS_DEPTHWISE_CONV2D_F32_H_ */
