/* utvm-build kernels: MEAN, float32 (sum in input order into the output, then divide by count). */
#ifndef UTVM_KERNELS_MEAN_F32_H_
#define UTVM_KERNELS_MEAN_F32_H_

#include "mean.h"

typedef struct {
  int32_t rank;
  int32_t in_dims[UTVM_MEAN_MAX_RANK];
  int32_t out_strides[UTVM_MEAN_MAX_RANK];
  int32_t in_size;
  int32_t out_size;
  int32_t count;
} utvm_mean_f32_params;

static void utvm_mean_f32(const utvm_mean_f32_params* p, const float* in, float* out) {
  int32_t index[UTVM_MEAN_MAX_RANK] = {0, 0, 0, 0, 0, 0};
  int32_t o = 0;
  int32_t i;
  for (i = 0; i < p->out_size; ++i) {
    out[i] = 0.0f;
  }
  for (i = 0; i < p->in_size; ++i) {
    out[o] += in[i];
    o = utvm_mean_next(p->rank, p->in_dims, p->out_strides, index, o);
  }
  for (i = 0; i < p->out_size; ++i) {
    out[i] = out[i] / (float)p->count;
  }
}

#endif /* UTVM_KERNELS_MEAN_F32_H_ */
