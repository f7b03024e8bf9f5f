/* utvm-build kernels: FILL (and the padding of SPACE_TO_BATCH_ND) for any element type: the
 * element at `value` (elem_size bytes) repeated `count` times (TFLite fill.cc: every output
 * element is the scalar value input). */
#ifndef UTVM_KERNELS_FILL_H_
#define UTVM_KERNELS_FILL_H_

#include <string.h>

#include "common.h"

static void utvm_fill(const void* value, void* out, int32_t count, int32_t elem_size) {
  uint8_t* dst = (uint8_t*)out;
  const size_t n = (size_t)elem_size;
  int32_t i;
  for (i = 0; i < count; ++i) {
    (void)memcpy(&dst[(size_t)i * n], value, n);
  }
}

#endif /* UTVM_KERNELS_FILL_H_ */
