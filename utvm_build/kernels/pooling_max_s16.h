/* utvm-build kernels: MAX_POOL_2D, int16_t (reference_integer_ops::MaxPool; no requantization). */
#ifndef UTVM_KERNELS_POOLING_MAX_S16_H_
#define UTVM_KERNELS_POOLING_MAX_S16_H_

#include "pooling.h"

static void utvm_max_pool_s16(const utvm_pool_q_params* p, const int16_t* in, int16_t* out) {
  UTVM_POOL_WALK(int16_t, p, in, out, int32_t, INT16_MIN, utvm_max_i32, utvm_pool_max_q_out);
}

#endif /* UTVM_KERNELS_POOLING_MAX_S16_H_ */
