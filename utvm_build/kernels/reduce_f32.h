/* utvm-build kernels: REDUCE_MAX / REDUCE_MIN / SUM, float32 (see reduce.h). */
#ifndef UTVM_KERNELS_REDUCE_F32_H_
#define UTVM_KERNELS_REDUCE_F32_H_

#include <float.h>

#include "reduce.h"

/* in + current: the reference's reducer is `current + in`, the same IEEE sum */
static inline float utvm_reduce_add_f32(float acc, float v) {
  return v + acc;
}

static void utvm_reduce_f32(const utvm_reduce_params* p, const float* in, float* out) {
  if (p->kind == UTVM_REDUCE_SUM) {
    UTVM_REDUCE_WALK(p, in, out, 0.0f, utvm_reduce_add_f32);
  } else {
    UTVM_REDUCE_MAX_MIN(p, in, out, -FLT_MAX, FLT_MAX);
  }
}

#endif /* UTVM_KERNELS_REDUCE_F32_H_ */
