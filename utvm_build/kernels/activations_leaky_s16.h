/* utvm-build kernels: LEAKY_RELU, int16_t (TFLite reference_ops::QuantizeLeakyRelu). */
#ifndef UTVM_KERNELS_ACTIVATIONS_LEAKY_S16_H_
#define UTVM_KERNELS_ACTIVATIONS_LEAKY_S16_H_

#include "activations.h"

static void utvm_leaky_relu_s16(const utvm_leaky_relu_q_params* p, const int16_t* in, int16_t* out) {
  UTVM_ACTIVATION_Q(int16_t, utvm_leaky_relu_q_one, p, in, out);
}

#endif /* UTVM_KERNELS_ACTIVATIONS_LEAKY_S16_H_ */
