/* utvm-build kernels: CONCATENATION for any element type (the operation only moves bytes).
 *
 * reference_ops::Concatenation: for each of the `outer` slices (product of the dimensions before
 * the axis), copy every input's contiguous block in input order. int8 inputs must already share
 * the output's scale and zero point (concatenation.cc Prepare), so no requantization happens.
 */
#ifndef UTVM_KERNELS_CONCATENATION_H_
#define UTVM_KERNELS_CONCATENATION_H_

#include <string.h>

#include "common.h"

typedef struct {
  int32_t outer;   /* product of the dimensions before the axis */
  int32_t count;   /* number of inputs */
} utvm_concat_params;

/* block_bytes[i]: bytes of input i per outer slice (its axis size x inner size x element size). */
static void utvm_concatenation(const utvm_concat_params* p, const void* const* ins, const int32_t* block_bytes,
                               void* out) {
  uint8_t* dst = (uint8_t*)out;
  int32_t o;
  int32_t i;
  for (o = 0; o < p->outer; ++o) {
    for (i = 0; i < p->count; ++i) {
      const size_t n = (size_t)block_bytes[i];
      if (n > 0u) {
        const uint8_t* src = (const uint8_t*)ins[i];
        (void)memcpy(dst, &src[(size_t)o * n], n);
        dst = &dst[n];
      }
    }
  }
}

#endif /* UTVM_KERNELS_CONCATENATION_H_ */
