/* utvm-build kernels: AVERAGE_POOL_2D, int8_t (reference_integer_ops::AveragePool; no requantization). */
#ifndef UTVM_KERNELS_POOLING_AVG_S8_H_
#define UTVM_KERNELS_POOLING_AVG_S8_H_

#include "pooling.h"

static void utvm_avg_pool_s8(const utvm_pool_q_params* p, const int8_t* in, int8_t* out) {
  UTVM_POOL_WALK(int8_t, p, in, out, int32_t, 0, UTVM_POOL_ADD_I32, utvm_pool_avg_q_out);
}

#endif /* UTVM_KERNELS_POOLING_AVG_S8_H_ */
