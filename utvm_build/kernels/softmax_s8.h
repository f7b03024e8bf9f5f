/* utvm-build kernels: SOFTMAX, int8 input, int8 output (scale 1/256, zero point -128). */
#ifndef UTVM_KERNELS_SOFTMAX_S8_H_
#define UTVM_KERNELS_SOFTMAX_S8_H_

#include "softmax.h"

static void utvm_softmax_s8(const utvm_softmax_s8_params* p, const int8_t* in, int8_t* out) {
  utvm_softmax_s8_impl(p, in, out, NULL);
}

#endif /* UTVM_KERNELS_SOFTMAX_S8_H_ */
