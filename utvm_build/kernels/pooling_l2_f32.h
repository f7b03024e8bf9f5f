/* utvm-build kernels: L2_POOL_2D, float32 (reference_ops::L2Pool: the squares of the taps inside the
 * image summed in window order, divided by their count, square root, activation clamp). */
#ifndef UTVM_KERNELS_POOLING_L2_F32_H_
#define UTVM_KERNELS_POOLING_L2_F32_H_

#include <math.h>

#include "pooling.h"

static inline float utvm_l2_pool_f32_tap(float sum_squares, float v) {
  return sum_squares + (v * v);
}

static inline float utvm_l2_pool_f32_out(const utvm_pool_f32_params* p, float sum_squares, int32_t count) {
  return utvm_clamp_f32(sqrtf(sum_squares / (float)count), p->act_min, p->act_max);
}

static void utvm_l2_pool_f32(const utvm_pool_f32_params* p, const float* in, float* out) {
  UTVM_POOL_WALK(float, p, in, out, float, 0.0f, utvm_l2_pool_f32_tap, utvm_l2_pool_f32_out);
}

#endif /* UTVM_KERNELS_POOLING_L2_F32_H_ */
