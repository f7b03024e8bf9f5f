/* utvm-build kernels: REDUCE_MAX / REDUCE_MIN / SUM (wrapping), int32 (see reduce.h). */
#ifndef UTVM_KERNELS_REDUCE_S32_H_
#define UTVM_KERNELS_REDUCE_S32_H_

#include "reduce.h"

/* in + current with two's complement wrap (the reference's int overflow in practice) */
static inline int32_t utvm_reduce_add_s32(int32_t a, int32_t b) {
  const uint32_t s = (uint32_t)a + (uint32_t)b;
  return (int32_t)s;
}

static void utvm_reduce_s32(const utvm_reduce_params* p, const int32_t* in, int32_t* out) {
  int32_t index[UTVM_MEAN_MAX_RANK] = {0, 0, 0, 0, 0, 0};
  int32_t o = 0;
  int32_t i;
  const int32_t start = utvm_reduce_start(p);
  const int32_t init = (p->kind == UTVM_REDUCE_MAX) ? (int32_t)INT32_MIN
                                                      : ((p->kind == UTVM_REDUCE_MIN) ? (int32_t)INT32_MAX : 0);
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
      out[o] = utvm_reduce_add_s32(out[o], in[i]);
      o = utvm_mean_next(p->rank, p->in_dims, p->out_strides, index, o);
    }
  }
}

#endif /* UTVM_KERNELS_REDUCE_S32_H_ */
