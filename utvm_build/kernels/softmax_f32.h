/* utvm-build kernels: SOFTMAX, float32 (reference_ops::Softmax: expf((x - max) * beta) / sum). */
#ifndef UTVM_KERNELS_SOFTMAX_F32_H_
#define UTVM_KERNELS_SOFTMAX_F32_H_

#include <float.h>
#include <math.h>

#include "common.h"

typedef struct {
  int32_t outer;
  int32_t depth;
  float beta;
} utvm_softmax_f32_params;

static void utvm_softmax_f32(const utvm_softmax_f32_params* p, const float* in, float* out) {
  int32_t i;
  int32_t c;
  for (i = 0; i < p->outer; ++i) {
    const float* x = &in[i * p->depth];
    float* y = &out[i * p->depth];
    float max = -FLT_MAX;
    float sum = 0.0f;
    for (c = 0; c < p->depth; ++c) {
      max = (x[c] > max) ? x[c] : max;
    }
    for (c = 0; c < p->depth; ++c) {
      const float e = expf((x[c] - max) * p->beta);
      y[c] = e;
      sum += e;
    }
    for (c = 0; c < p->depth; ++c) {
      y[c] = y[c] / sum;
    }
  }
}

#endif /* UTVM_KERNELS_SOFTMAX_F32_H_ */
