/* utvm-build kernels: ARG_MAX / ARG_MIN, int32 input (see arg_min_max.h). */
#ifndef UTVM_KERNELS_ARG_MIN_MAX_S32_H_
#define UTVM_KERNELS_ARG_MIN_MAX_S32_H_

#include "arg_min_max.h"

static void utvm_arg_min_max_s32(const utvm_arg_params* p, const int32_t* in, int32_t* out32, int64_t* out64) {
  UTVM_ARG_MIN_MAX(int32_t, p, in, out32, out64);
}

#endif /* UTVM_KERNELS_ARG_MIN_MAX_S32_H_ */
