/* utvm-build kernels: MAX_POOL_2D, int8_t (reference_integer_ops::MaxPool; no requantization). */
#ifndef UTVM_KERNELS_POOLING_MAX_S8_H_
#define UTVM_KERNELS_POOLING_MAX_S8_H_

#include "pooling.h"

static void utvm_max_pool_s8(const utvm_pool_q_params* p, const int8_t* in, int8_t* out) {
  UTVM_POOL_WALK(int8_t, p, in, out, int32_t, INT8_MIN, utvm_max_i32, utvm_pool_max_q_out);
}

#endif /* UTVM_KERNELS_POOLING_MAX_S8_H_ */
