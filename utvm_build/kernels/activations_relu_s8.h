/* utvm-build kernels: RELU / RELU6, int8_t (TFLite QuantizedReluX -> ReluX). */
#ifndef UTVM_KERNELS_ACTIVATIONS_RELU_S8_H_
#define UTVM_KERNELS_ACTIVATIONS_RELU_S8_H_

#include "activations.h"

static void utvm_relu_s8(const utvm_relu_q_params* p, const int8_t* in, int8_t* out) {
  UTVM_ACTIVATION_Q(int8_t, utvm_relu_q_one, p, in, out);
}

#endif /* UTVM_KERNELS_ACTIVATIONS_RELU_S8_H_ */
