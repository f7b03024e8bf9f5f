/* utvm-build kernels: REDUCE_ALL, bool (see reduce.h): out = in && current, from true. */
#ifndef UTVM_KERNELS_REDUCE_B8_H_
#define UTVM_KERNELS_REDUCE_B8_H_

#include "reduce.h"

static void utvm_reduce_all_b8(const utvm_reduce_params* p, const uint8_t* in, uint8_t* out) {
  int32_t index[UTVM_MEAN_MAX_RANK] = {0, 0, 0, 0, 0, 0};
  int32_t o = 0;
  int32_t i;
  for (i = 0; i < p->out_size; ++i) {
    out[i] = 1u;
  }
  for (i = 0; i < p->in_size; ++i) {
    out[o] = ((in[i] != 0u) && (out[o] != 0u)) ? 1u : 0u;
    o = utvm_mean_next(p->rank, p->in_dims, p->out_strides, index, o);
  }
}

#endif /* UTVM_KERNELS_REDUCE_B8_H_ */
