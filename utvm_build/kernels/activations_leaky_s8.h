/* utvm-build kernels: LEAKY_RELU, int8_t (TFLite reference_ops::QuantizeLeakyRelu). */
#ifndef UTVM_KERNELS_ACTIVATIONS_LEAKY_S8_H_
#define UTVM_KERNELS_ACTIVATIONS_LEAKY_S8_H_

#include "activations.h"

static void utvm_leaky_relu_s8(const utvm_leaky_relu_q_params* p, const int8_t* in, int8_t* out) {
  UTVM_ACTIVATION_Q(int8_t, utvm_leaky_relu_q_one, p, in, out);
}

#endif /* UTVM_KERNELS_ACTIVATIONS_LEAKY_S8_H_ */
