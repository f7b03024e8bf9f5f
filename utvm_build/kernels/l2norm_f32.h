/* utvm-build kernels: L2_NORMALIZATION, float32 (reference_ops::L2Normalization, epsilon 1e-6:
 * out = x / max(sqrt(sum of squares in order), 1e-6)). */
#ifndef UTVM_KERNELS_L2NORM_F32_H_
#define UTVM_KERNELS_L2NORM_F32_H_

#include <math.h>

#include "l2norm.h"

static inline float utvm_l2norm_f32_sq(const utvm_l2norm_params* p, float x) {
  (void)p;
  return x * x;
}

/* the row's norm, at least 1e-6 (the reference's epsilon) */
static inline float utvm_l2norm_f32_norm(float squared) {
  const float norm = sqrtf(squared);
  return (norm < 1e-6f) ? 1e-6f : norm;
}

static inline float utvm_l2norm_f32_apply(const utvm_l2norm_params* p, float x, float norm) {
  (void)p;
  return x / norm;
}

static void utvm_l2norm_f32(const utvm_l2norm_params* p, const float* in, float* out) {
  UTVM_L2NORM_WALK(float, float, 0.0f, float, p, in, out, utvm_l2norm_f32_sq, utvm_l2norm_f32_norm,
                   utvm_l2norm_f32_apply);
}

#endif /* UTVM_KERNELS_L2NORM_F32_H_ */
