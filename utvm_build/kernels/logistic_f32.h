/* utvm-build kernels: LOGISTIC, float32 (reference_ops::Logistic: 1 above 16.619047, expf(x)
 * below -9, else 1 / (1 + expf(-x))). */
#ifndef UTVM_KERNELS_LOGISTIC_F32_H_
#define UTVM_KERNELS_LOGISTIC_F32_H_

#include <math.h>

#include "common.h"

static void utvm_logistic_f32(int32_t size, const float* in, float* out) {
  const float cutoff_upper = 16.619047164916992188f;
  const float cutoff_lower = -9.0f;
  int32_t i;
  for (i = 0; i < size; ++i) {
    const float v = in[i];
    float r;
    if (v > cutoff_upper) {
      r = 1.0f;
    } else if (v < cutoff_lower) {
      r = expf(v);
    } else {
      r = 1.0f / (1.0f + expf(-v));
    }
    out[i] = r;
  }
}

#endif /* UTVM_KERNELS_LOGISTIC_F32_H_ */
