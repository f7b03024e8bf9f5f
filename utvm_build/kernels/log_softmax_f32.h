/* utvm-build kernels: LOG_SOFTMAX, float32 (reference_ops::LogSoftmax: per row of the last dimension,
 * max, sum of exp(x - max) in order, out = x - max - log(sum)). */
#ifndef UTVM_KERNELS_LOG_SOFTMAX_F32_H_
#define UTVM_KERNELS_LOG_SOFTMAX_F32_H_

#include <float.h>
#include <math.h>

#include "common.h"

typedef struct {
  int32_t outer;
  int32_t depth;
} utvm_log_softmax_f32_params;

static void utvm_log_softmax_f32(const utvm_log_softmax_f32_params* p, const float* in, float* out) {
  int32_t i;
  int32_t c;
  for (i = 0; i < p->outer; ++i) {
    const float* x = &in[i * p->depth];
    float max = -FLT_MAX;
    float sum = 0.0f;
    float log_sum;
    for (c = 0; c < p->depth; ++c) {
      max = (max < x[c]) ? x[c] : max;
    }
    for (c = 0; c < p->depth; ++c) {
      sum += expf(x[c] - max);
    }
    log_sum = logf(sum);
    for (c = 0; c < p->depth; ++c) {
      out[(i * p->depth) + c] = (x[c] - max) - log_sum;
    }
  }
}

#endif /* UTVM_KERNELS_LOG_SOFTMAX_F32_H_ */
