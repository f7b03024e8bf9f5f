/* utvm-build kernels: CUMSUM, float (reference_ops::CumSum).
 *
 * Along the axis, in order or reversed, each output is the running sum including (or, with
 * exclusive, excluding) its own element, starting from 0. float32: the reference's order of additions, so the result is bit-exact.
 */
#ifndef UTVM_KERNELS_CUMSUM_F32_H_
#define UTVM_KERNELS_CUMSUM_F32_H_

#include "cumsum.h"

static void utvm_cumsum_f32(const utvm_cumsum_params* p, const float* in, float* out) {
  int32_t o;
  int32_t n;
  int32_t a;
  for (o = 0; o < p->outer; ++o) {
    for (n = 0; n < p->inner; ++n) {
      float acc = 0.0f;
      for (a = 0; a < p->axis; ++a) {
        const int32_t k = (p->reverse != 0) ? ((p->axis - 1) - a) : a;
        const size_t at = ((((size_t)o * (size_t)p->axis) + (size_t)k) * (size_t)p->inner) + (size_t)n;
        const float x = in[at];
        if (p->exclusive != 0) {
          out[at] = acc;
          acc = acc + x;
        } else {
          acc = acc + x;
          out[at] = acc;
        }
      }
    }
  }
}

#endif /* UTVM_KERNELS_CUMSUM_F32_H_ */
