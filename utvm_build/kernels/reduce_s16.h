/* utvm-build kernels: REDUCE_MAX / REDUCE_MIN, int16 (see reduce.h). */
#ifndef UTVM_KERNELS_REDUCE_S16_H_
#define UTVM_KERNELS_REDUCE_S16_H_

#include "reduce.h"

static void utvm_reduce_s16(const utvm_reduce_params* p, const int16_t* in, int16_t* out) {
  UTVM_REDUCE_MAX_MIN(p, in, out, (int16_t)INT16_MIN, (int16_t)INT16_MAX);
}

#endif /* UTVM_KERNELS_REDUCE_S16_H_ */
