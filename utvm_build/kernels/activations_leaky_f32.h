/* utvm-build kernels: LEAKY_RELU, float32: x > 0 ? x : x * alpha (reference_ops::LeakyRelu). */
#ifndef UTVM_KERNELS_ACTIVATIONS_LEAKY_F32_H_
#define UTVM_KERNELS_ACTIVATIONS_LEAKY_F32_H_

#include "common.h"

typedef struct {
  int32_t size;
  float alpha;
} utvm_leaky_relu_f32_params;

static inline void utvm_leaky_relu_f32_one(const utvm_leaky_relu_f32_params* p, const float* in,
                                           float* out, int32_t i) {
  out[i] = (in[i] > 0.0f) ? in[i] : (in[i] * p->alpha);
}

static void utvm_leaky_relu_f32(const utvm_leaky_relu_f32_params* p, const float* in, float* out) {
  UTVM_EACH_ELEMENT(p, utvm_leaky_relu_f32_one, in, out);
}

#endif /* UTVM_KERNELS_ACTIVATIONS_LEAKY_F32_H_ */
