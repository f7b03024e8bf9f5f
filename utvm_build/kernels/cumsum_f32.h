/* utvm-build kernels: CUMSUM, float (reference_ops::CumSum).
 *
 * Along the axis, in order or reversed, each output is the running sum including (or, with
 * exclusive, excluding) its own element, starting from 0. float32: the reference's order of additions, so the result is bit-exact.
 */
#ifndef UTVM_KERNELS_CUMSUM_F32_H_
#define UTVM_KERNELS_CUMSUM_F32_H_

#include "cumsum.h"

static void utvm_cumsum_f32(const utvm_cumsum_params* p, const float* in, float* out) {
  UTVM_CUMSUM(p, p, in, out, float, 0.0f, UTVM_CUMSUM_VALUE, utvm_cumsum_f32_add, UTVM_CUMSUM_VALUE);
}

#endif /* UTVM_KERNELS_CUMSUM_F32_H_ */
