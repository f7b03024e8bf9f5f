/* utvm-build kernels: LEAKY_RELU, float32: x > 0 ? x : x * alpha (reference_ops::LeakyRelu). */
#ifndef UTVM_KERNELS_ACTIVATIONS_LEAKY_F32_H_
#define UTVM_KERNELS_ACTIVATIONS_LEAKY_F32_H_

#include "common.h"

typedef struct {
  int32_t size;
  float alpha;
} utvm_leaky_relu_f32_params;

static void utvm_leaky_relu_f32(const utvm_leaky_relu_f32_params* p, const float* in, float* out) {
  int32_t i;
  for (i = 0; i < p->size; ++i) {
    const float x = in[i];
    out[i] = (x > 0.0f) ? x : (x * p->alpha);
  }
}

#endif /* UTVM_KERNELS_ACTIVATIONS_LEAKY_F32_H_ */
