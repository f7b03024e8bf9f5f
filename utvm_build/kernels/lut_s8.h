/* utvm-build kernels: int8 elementwise operators as a 256-entry table made at code generation
 * (ABS, RSQRT, ELU, HARD_SWISH, LOGISTIC, TANH int8: the generator reproduces the reference
 * arithmetic, integer or LUTPopulate, for every input value). Index: the input byte as uint8_t. */
#ifndef UTVM_KERNELS_LUT_S8_H_
#define UTVM_KERNELS_LUT_S8_H_

#include "common.h"

static void utvm_lut_s8(int32_t size, const int8_t* lut, const int8_t* in, int8_t* out) {
  int32_t i;
  for (i = 0; i < size; ++i) {
    out[i] = lut[(uint8_t)in[i]];
  }
}

#endif /* UTVM_KERNELS_LUT_S8_H_ */
