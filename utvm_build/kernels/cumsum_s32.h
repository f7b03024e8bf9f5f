/* utvm-build kernels: CUMSUM, int32_t (reference_ops::CumSum).
 *
 * Along the axis, in order or reversed, each output is the running sum including (or, with
 * exclusive, excluding) its own element, starting from 0. int32: the sum wraps (two's complement) where the reference's signed overflow is undefined.
 */
#ifndef UTVM_KERNELS_CUMSUM_S32_H_
#define UTVM_KERNELS_CUMSUM_S32_H_

#include "cumsum.h"

static void utvm_cumsum_s32(const utvm_cumsum_params* p, const int32_t* in, int32_t* out) {
  UTVM_CUMSUM(p, p, in, out, int32_t, 0, UTVM_CUMSUM_VALUE, utvm_cumsum_s32_add, UTVM_CUMSUM_VALUE);
}

#endif /* UTVM_KERNELS_CUMSUM_S32_H_ */
