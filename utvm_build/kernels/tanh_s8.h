/* utvm-build kernels: TANH, int8: a 256-entry table made at code generation (TFLite
 * LUTPopulate<int8_t>, float32 math), indexed by the input byte. */
#ifndef UTVM_KERNELS_TANH_S8_H_
#define UTVM_KERNELS_TANH_S8_H_

#include "common.h"

static void utvm_tanh_s8(int32_t size, const int8_t* lut, const int8_t* in, int8_t* out) {
  int32_t i;
  for (i = 0; i < size; ++i) {
    out[i] = lut[(uint8_t)in[i]];
  }
}

#endif /* UTVM_KERNELS_TANH_S8_H_ */
