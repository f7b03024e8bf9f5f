/* utvm-build kernels: CUMSUM, int64_t (reference_ops::CumSum).
 *
 * Along the axis, in order or reversed, each output is the running sum including (or, with
 * exclusive, excluding) its own element, starting from 0. int64: the sum wraps (two's complement) where the reference's signed overflow is undefined.
 */
#ifndef UTVM_KERNELS_CUMSUM_S64_H_
#define UTVM_KERNELS_CUMSUM_S64_H_

#include "cumsum.h"

static void utvm_cumsum_s64(const utvm_cumsum_params* p, const int64_t* in, int64_t* out) {
  UTVM_CUMSUM(p, p, in, out, int64_t, 0, UTVM_CUMSUM_VALUE, utvm_cumsum_s64_add, UTVM_CUMSUM_VALUE);
}

#endif /* UTVM_KERNELS_CUMSUM_S64_H_ */
