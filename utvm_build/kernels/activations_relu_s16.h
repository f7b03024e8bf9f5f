/* utvm-build kernels: RELU / RELU6, int16_t (TFLite QuantizedReluX -> ReluX). */
#ifndef UTVM_KERNELS_ACTIVATIONS_RELU_S16_H_
#define UTVM_KERNELS_ACTIVATIONS_RELU_S16_H_

#include "activations.h"

static void utvm_relu_s16(const utvm_relu_q_params* p, const int16_t* in, int16_t* out) {
  int32_t i;
  for (i = 0; i < p->size; ++i) {
    const int32_t v = p->output_offset +
                      utvm_mul_by_quantized_mul((int32_t)in[i] - p->input_offset, p->multiplier, p->shift);
    out[i] = (int16_t)utvm_clamp_i32(v, p->act_min, p->act_max);
  }
}

#endif /* UTVM_KERNELS_ACTIVATIONS_RELU_S16_H_ */
