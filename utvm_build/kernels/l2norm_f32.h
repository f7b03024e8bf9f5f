/* utvm-build kernels: L2_NORMALIZATION, float32 (reference_ops::L2Normalization, epsilon 1e-6:
 * out = x / max(sqrt(sum of squares in order), 1e-6)). */
#ifndef UTVM_KERNELS_L2NORM_F32_H_
#define UTVM_KERNELS_L2NORM_F32_H_

#include <math.h>

#include "l2norm.h"

static void utvm_l2norm_f32(const utvm_l2norm_params* p, const float* in, float* out) {
  int32_t i;
  int32_t c;
  for (i = 0; i < p->outer; ++i) {
    const float* x = &in[i * p->depth];
    float squared = 0.0f;
    float norm;
    for (c = 0; c < p->depth; ++c) {
      squared += x[c] * x[c];
    }
    norm = sqrtf(squared);
    norm = (norm < 1e-6f) ? 1e-6f : norm;
    for (c = 0; c < p->depth; ++c) {
      out[(i * p->depth) + c] = x[c] / norm;
    }
  }
}

#endif /* UTVM_KERNELS_L2NORM_F32_H_ */
