/* utvm-build kernels: SOFTMAX, int8 input, int16 output (scale 1/65536, zero point -32768). */
#ifndef UTVM_KERNELS_SOFTMAX_S8_S16_H_
#define UTVM_KERNELS_SOFTMAX_S8_S16_H_

#include "softmax.h"

static void utvm_softmax_s8_s16(const utvm_softmax_s8_params* p, const int8_t* in, int16_t* out) {
  utvm_softmax_s8_impl(p, in, NULL, out);
}

#endif /* UTVM_KERNELS_SOFTMAX_S8_S16_H_ */
