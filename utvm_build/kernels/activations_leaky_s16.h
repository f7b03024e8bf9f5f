/* utvm-build kernels: LEAKY_RELU, int16_t (TFLite reference_ops::QuantizeLeakyRelu). */
#ifndef UTVM_KERNELS_ACTIVATIONS_LEAKY_S16_H_
#define UTVM_KERNELS_ACTIVATIONS_LEAKY_S16_H_

#include "activations.h"

static void utvm_leaky_relu_s16(const utvm_leaky_relu_q_params* p, const int16_t* in, int16_t* out) {
  int32_t i;
  for (i = 0; i < p->size; ++i) {
    const int32_t x = (int32_t)in[i] - p->input_offset;
    const int32_t v = p->output_offset +
                      ((x >= 0) ? utvm_mul_by_quantized_mul(x, p->multiplier_identity, p->shift_identity)
                                : utvm_mul_by_quantized_mul(x, p->multiplier_alpha, p->shift_alpha));
    out[i] = (int16_t)utvm_clamp_i32(v, p->qmin, p->qmax);
  }
}

#endif /* UTVM_KERNELS_ACTIVATIONS_LEAKY_S16_H_ */
