/* utvm-build kernels: MEAN, int16 (reference_ops::QuantizedMeanOrSum, see mean.h).
 * acc: out_size int32 scratch. */
#ifndef UTVM_KERNELS_MEAN_S16_H_
#define UTVM_KERNELS_MEAN_S16_H_

#include "mean.h"

static void utvm_mean_s16(const utvm_mean_q_params* p, const int16_t* in, int16_t* out, int32_t* acc) {
  UTVM_MEAN_Q(int16_t, p, in, out, acc);
}

#endif /* UTVM_KERNELS_MEAN_S16_H_ */
