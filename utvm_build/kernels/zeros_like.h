/* utvm-build kernels: ZEROS_LIKE (every supported type's zero is all bits zero: int8/int32/int64,
 * float32 +0.0f). */
#ifndef UTVM_KERNELS_ZEROS_LIKE_H_
#define UTVM_KERNELS_ZEROS_LIKE_H_

#include "common.h"

static void utvm_zeros_like(int32_t nbytes, void* out) {
  uint8_t* dst = (uint8_t*)out;
  int32_t i;
  for (i = 0; i < nbytes; ++i) {
    dst[i] = 0u;
  }
}

#endif /* UTVM_KERNELS_ZEROS_LIKE_H_ */
