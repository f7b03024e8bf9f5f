/* utvm-build kernels: MEAN, float32 (sum in input order into the output, then divide by count). */
#ifndef UTVM_KERNELS_MEAN_F32_H_
#define UTVM_KERNELS_MEAN_F32_H_

#include "mean.h"

typedef struct {
  UTVM_MEAN_WALK_FIELDS
  int32_t count;
} utvm_mean_f32_params;

/* in + current, as the reference sums */
static inline float utvm_mean_add_f32(float acc, float v) {
  return acc + v;
}

static void utvm_mean_f32(const utvm_mean_f32_params* p, const float* in, float* out) {
  int32_t i;
  UTVM_MEAN_WALK(p, in, out, 0.0f, 0, utvm_mean_add_f32);
  for (i = 0; i < p->out_size; ++i) {
    out[i] = out[i] / (float)p->count;
  }
}

#endif /* UTVM_KERNELS_MEAN_F32_H_ */
