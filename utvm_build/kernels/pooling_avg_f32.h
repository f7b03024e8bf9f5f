/* utvm-build kernels: AVERAGE_POOL_2D, float32 (reference_ops::AveragePool: same summation order, float count). */
#ifndef UTVM_KERNELS_POOLING_AVG_F32_H_
#define UTVM_KERNELS_POOLING_AVG_F32_H_

#include "pooling.h"

static inline float utvm_avg_pool_f32_tap(float total, float v) {
  return total + v;
}

/* count taps: exact as a float (the reference counts in float, one by one) */
static inline float utvm_avg_pool_f32_out(const utvm_pool_f32_params* p, float total, int32_t count) {
  return utvm_clamp_f32(total / (float)count, p->act_min, p->act_max);
}

static void utvm_avg_pool_f32(const utvm_pool_f32_params* p, const float* in, float* out) {
  UTVM_POOL_WALK(float, p, in, out, float, 0.0f, utvm_avg_pool_f32_tap, utvm_avg_pool_f32_out);
}

#endif /* UTVM_KERNELS_POOLING_AVG_F32_H_ */
