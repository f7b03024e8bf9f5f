/* utvm-build kernels: REDUCE_MAX / REDUCE_MIN, int8 (see reduce.h). */
#ifndef UTVM_KERNELS_REDUCE_S8_H_
#define UTVM_KERNELS_REDUCE_S8_H_

#include "reduce.h"

static void utvm_reduce_s8(const utvm_reduce_params* p, const int8_t* in, int8_t* out) {
  UTVM_REDUCE_MAX_MIN(p, in, out, (int8_t)INT8_MIN, (int8_t)INT8_MAX);
}

#endif /* UTVM_KERNELS_REDUCE_S8_H_ */
