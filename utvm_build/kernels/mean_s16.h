/* utvm-build kernels: MEAN, int16 (reference_ops::QuantizedMeanOrSum, see mean.h).
 * acc: out_size int32 scratch. */
#ifndef UTVM_KERNELS_MEAN_S16_H_
#define UTVM_KERNELS_MEAN_S16_H_

#include "mean.h"

static void utvm_mean_s16(const utvm_mean_q_params* p, const int16_t* in, int16_t* out, int32_t* acc) {
  int32_t index[UTVM_MEAN_MAX_RANK] = {0, 0, 0, 0, 0, 0};
  int32_t o = 0;
  int32_t i;
  for (i = 0; i < p->out_size; ++i) {
    acc[i] = 0;
  }
  for (i = 0; i < p->in_size; ++i) {
    acc[o] += (int32_t)in[i];
    o = utvm_mean_next(p->rank, p->in_dims, p->out_strides, index, o);
  }
  for (i = 0; i < p->out_size; ++i) {
    out[i] = (int16_t)utvm_mean_finish(p, acc[i]);
  }
}

#endif /* UTVM_KERNELS_MEAN_S16_H_ */
