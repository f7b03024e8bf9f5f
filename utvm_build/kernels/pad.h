/* utvm-build kernels: PAD / PADV2 for any element type (the operation only moves bytes).
 *
 * Shapes are extended to 5-D at code generation (leading 1s), as reference_ops::Pad does.
 * The output is filled with the pad value, then every innermost input row is copied to its place.
 */
#ifndef UTVM_KERNELS_PAD_H_
#define UTVM_KERNELS_PAD_H_

#include <string.h>

#include "common.h"

typedef struct {
  int32_t in_dims[5];
  int32_t out_dims[5];
  int32_t left[5];     /* leading padding per dimension */
  int32_t out_count;   /* output elements */
  int32_t elem_size;   /* bytes per element */
} utvm_pad_params;

static void utvm_pad(const utvm_pad_params* p, const void* in, void* out, const void* pad_value) {
  const uint8_t* src = (const uint8_t*)in;
  uint8_t* dst = (uint8_t*)out;
  const size_t es = (size_t)p->elem_size;
  const size_t row = (size_t)p->in_dims[4] * es;
  int32_t i;
  int32_t i0;
  int32_t i1;
  int32_t i2;
  int32_t i3;
  for (i = 0; i < p->out_count; ++i) {
    (void)memcpy(&dst[(size_t)i * es], pad_value, es);
  }
  if (row > 0u) {
    for (i0 = 0; i0 < p->in_dims[0]; ++i0) {
      for (i1 = 0; i1 < p->in_dims[1]; ++i1) {
        for (i2 = 0; i2 < p->in_dims[2]; ++i2) {
          for (i3 = 0; i3 < p->in_dims[3]; ++i3) {
            /* output coordinates (index + leading padding) are >= 0 */
            const int32_t o0 = i0 + p->left[0];
            const int32_t o1 = i1 + p->left[1];
            const int32_t o2 = i2 + p->left[2];
            const int32_t o3 = i3 + p->left[3];
            size_t o = (size_t)o0;
            o = (o * (size_t)p->out_dims[1]) + (size_t)o1;
            o = (o * (size_t)p->out_dims[2]) + (size_t)o2;
            o = (o * (size_t)p->out_dims[3]) + (size_t)o3;
            o = (o * (size_t)p->out_dims[4]) + (size_t)p->left[4];
            (void)memcpy(&dst[o * es], src, row);
            src = &src[row];
          }
        }
      }
    }
  }
}

#endif /* UTVM_KERNELS_PAD_H_ */
