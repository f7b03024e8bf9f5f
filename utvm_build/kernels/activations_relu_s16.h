/* utvm-build kernels: RELU / RELU6, int16_t (TFLite QuantizedReluX -> ReluX). */
#ifndef UTVM_KERNELS_ACTIVATIONS_RELU_S16_H_
#define UTVM_KERNELS_ACTIVATIONS_RELU_S16_H_

#include "activations.h"

static void utvm_relu_s16(const utvm_relu_q_params* p, const int16_t* in, int16_t* out) {
  UTVM_ACTIVATION_Q(int16_t, utvm_relu_q_one, p, in, out);
}

#endif /* UTVM_KERNELS_ACTIVATIONS_RELU_S16_H_ */
