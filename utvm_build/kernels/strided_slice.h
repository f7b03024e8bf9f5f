/* utvm-build kernels: STRIDED_SLICE for any element type (the operation only moves bytes).
 *
 * The begin/end/stride resolution of reference_ops::StridedSlice (strided_slice_logic.h: masks,
 * negative indices, clamping, ellipsis/new axis, offset) is done at code generation; the kernel
 * walks 5 nested loops: element (a,b,c,d,e) is input[base + a*step[0] + ... + e*step[4]], steps in
 * elements and possibly negative, written to the output in order.
 */
#ifndef UTVM_KERNELS_STRIDED_SLICE_H_
#define UTVM_KERNELS_STRIDED_SLICE_H_

#include <string.h>

#include "common.h"

typedef struct {
  int32_t base;        /* input element index of the first output element */
  int32_t step[5];     /* input element step per output index, per dimension */
  int32_t count[5];    /* output extent per dimension */
  int32_t elem_size;   /* bytes per element */
} utvm_strided_slice_params;

static void utvm_strided_slice(const utvm_strided_slice_params* p, const void* in, void* out) {
  const uint8_t* src = (const uint8_t*)in;
  uint8_t* dst = (uint8_t*)out;
  const size_t es = (size_t)p->elem_size;
  int32_t a;
  int32_t b;
  int32_t c;
  int32_t d;
  int32_t e;
  for (a = 0; a < p->count[0]; ++a) {
    for (b = 0; b < p->count[1]; ++b) {
      for (c = 0; c < p->count[2]; ++c) {
        for (d = 0; d < p->count[3]; ++d) {
          const int32_t row = p->base + (a * p->step[0]) + (b * p->step[1]) + (c * p->step[2]) + (d * p->step[3]);
          if (p->step[4] == 1) {
            const size_t n = (size_t)p->count[4] * es;
            (void)memcpy(dst, &src[(size_t)row * es], n);
            dst = &dst[n];
          } else {
            for (e = 0; e < p->count[4]; ++e) {
              const int32_t index = row + (e * p->step[4]);  /* >= 0: resolved at code generation */
              (void)memcpy(dst, &src[(size_t)index * es], es);
              dst = &dst[es];
            }
          }
        }
      }
    }
  }
}

#endif /* UTVM_KERNELS_STRIDED_SLICE_H_ */
