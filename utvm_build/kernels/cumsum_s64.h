/* utvm-build kernels: CUMSUM, int64_t (reference_ops::CumSum).
 *
 * Along the axis, in order or reversed, each output is the running sum including (or, with
 * exclusive, excluding) its own element, starting from 0. int64: the sum wraps (two's complement) where the reference's signed overflow is undefined.
 */
#ifndef UTVM_KERNELS_CUMSUM_S64_H_
#define UTVM_KERNELS_CUMSUM_S64_H_

#include "cumsum.h"

static void utvm_cumsum_s64(const utvm_cumsum_params* p, const int64_t* in, int64_t* out) {
  int32_t o;
  int32_t n;
  int32_t a;
  for (o = 0; o < p->outer; ++o) {
    for (n = 0; n < p->inner; ++n) {
      int64_t acc = 0;
      for (a = 0; a < p->axis; ++a) {
        const int32_t k = (p->reverse != 0) ? ((p->axis - 1) - a) : a;
        const size_t at = ((((size_t)o * (size_t)p->axis) + (size_t)k) * (size_t)p->inner) + (size_t)n;
        const int64_t x = in[at];
        if (p->exclusive != 0) {
          const uint64_t sum = (uint64_t)acc + (uint64_t)x;
          out[at] = acc;
          acc = (int64_t)sum;
        } else {
          const uint64_t sum = (uint64_t)acc + (uint64_t)x;
          acc = (int64_t)sum;
          out[at] = acc;
        }
      }
    }
  }
}

#endif /* UTVM_KERNELS_CUMSUM_S64_H_ */
