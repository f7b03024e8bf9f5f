/* utvm-build kernels: MEAN, int8 (reference_ops::QuantizedMeanOrSum, see mean.h).
 * acc: out_size int32 scratch. */
#ifndef UTVM_KERNELS_MEAN_S8_H_
#define UTVM_KERNELS_MEAN_S8_H_

#include "mean.h"

static void utvm_mean_s8(const utvm_mean_q_params* p, const int8_t* in, int8_t* out, int32_t* acc) {
  UTVM_MEAN_Q(int8_t, p, in, out, acc);
}

#endif /* UTVM_KERNELS_MEAN_S8_H_ */
