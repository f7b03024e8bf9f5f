/* utvm-build kernels: REDUCE_MAX / REDUCE_MIN / SUM, float32 (see reduce.h). */
#ifndef UTVM_KERNELS_REDUCE_F32_H_
#define UTVM_KERNELS_REDUCE_F32_H_

#include <float.h>

#include "reduce.h"

static void utvm_reduce_f32(const utvm_reduce_params* p, const float* in, float* out) {
  int32_t index[UTVM_MEAN_MAX_RANK] = {0, 0, 0, 0, 0, 0};
  int32_t o = 0;
  int32_t i;
  const int32_t start = utvm_reduce_start(p);
  const float init = (p->kind == UTVM_REDUCE_MAX) ? (-FLT_MAX) : ((p->kind == UTVM_REDUCE_MIN) ? FLT_MAX : 0.0f);
  for (i = 0; i < p->out_size; ++i) {
    out[i] = init;
  }
  if (start == 1) {
    out[0] = in[0];
    o = utvm_mean_next(p->rank, p->in_dims, p->out_strides, index, o);
  }
  if (p->kind == UTVM_REDUCE_MAX) {
    for (i = start; i < p->in_size; ++i) {
      out[o] = (in[i] > out[o]) ? in[i] : out[o];
      o = utvm_mean_next(p->rank, p->in_dims, p->out_strides, index, o);
    }
  } else if (p->kind == UTVM_REDUCE_MIN) {
    for (i = start; i < p->in_size; ++i) {
      out[o] = (in[i] < out[o]) ? in[i] : out[o];
      o = utvm_mean_next(p->rank, p->in_dims, p->out_strides, index, o);
    }
  } else {
    for (i = start; i < p->in_size; ++i) {
      out[o] = in[i] + out[o];
      o = utvm_mean_next(p->rank, p->in_dims, p->out_strides, index, o);
    }
  }
}

#endif /* UTVM_KERNELS_REDUCE_F32_H_ */
