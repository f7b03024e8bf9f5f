/* utvm-build kernels: RELU / RELU6, float32: min(max(x, act_min), act_max). */
#ifndef UTVM_KERNELS_ACTIVATIONS_RELU_F32_H_
#define UTVM_KERNELS_ACTIVATIONS_RELU_F32_H_

#include <math.h>

#include "common.h"

typedef struct {
  int32_t size;
  float act_min;
  float act_max;
} utvm_relu_f32_params;

static inline void utvm_relu_f32_one(const utvm_relu_f32_params* p, const float* in, float* out,
                                     int32_t i) {
  out[i] = utvm_clamp_f32(in[i], p->act_min, p->act_max);
}

static void utvm_relu_f32(const utvm_relu_f32_params* p, const float* in, float* out) {
  UTVM_EACH_ELEMENT(p, utvm_relu_f32_one, in, out);
}

#endif /* UTVM_KERNELS_ACTIVATIONS_RELU_F32_H_ */
