/* utvm-build kernels: TANH, float32 (std::tanh on float = tanhf). */
#ifndef UTVM_KERNELS_TANH_F32_H_
#define UTVM_KERNELS_TANH_F32_H_

#include <math.h>

#include "common.h"

static void utvm_tanh_f32(int32_t size, const float* in, float* out) {
  int32_t i;
  for (i = 0; i < size; ++i) {
    out[i] = tanhf(in[i]);
  }
}

#endif /* UTVM_KERNELS_TANH_F32_H_ */
