/* utvm-build kernels: RELU / RELU6, int8_t (TFLite QuantizedReluX -> ReluX). */
#ifndef UTVM_KERNELS_ACTIVATIONS_RELU_S8_H_
#define UTVM_KERNELS_ACTIVATIONS_RELU_S8_H_

#include "activations.h"

static void utvm_relu_s8(const utvm_relu_q_params* p, const int8_t* in, int8_t* out) {
  int32_t i;
  for (i = 0; i < p->size; ++i) {
    const int32_t v = p->output_offset +
                      utvm_mul_by_quantized_mul((int32_t)in[i] - p->input_offset, p->multiplier, p->shift);
    out[i] = (int8_t)utvm_clamp_i32(v, p->act_min, p->act_max);
  }
}

#endif /* UTVM_KERNELS_ACTIVATIONS_RELU_S8_H_ */
