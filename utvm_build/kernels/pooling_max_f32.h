/* utvm-build kernels: MAX_POOL_2D, float32 (reference_ops::MaxPool). */
#ifndef UTVM_KERNELS_POOLING_MAX_F32_H_
#define UTVM_KERNELS_POOLING_MAX_F32_H_

#include <float.h>

#include "pooling.h"

static inline float utvm_max_pool_f32_tap(float m, float v) {
  return (m < v) ? v : m; /* std::max(m, v) */
}

static inline float utvm_max_pool_f32_out(const utvm_pool_f32_params* p, float m, int32_t count) {
  (void)count;
  return utvm_clamp_f32(m, p->act_min, p->act_max);
}

static void utvm_max_pool_f32(const utvm_pool_f32_params* p, const float* in, float* out) {
  UTVM_POOL_WALK(float, p, in, out, float, -FLT_MAX, utvm_max_pool_f32_tap, utvm_max_pool_f32_out);
}

#endif /* UTVM_KERNELS_POOLING_MAX_F32_H_ */
