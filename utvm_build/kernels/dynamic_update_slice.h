/* utvm-build kernels: DYNAMIC_UPDATE_SLICE for any element type (int32 or int64 start indices).
 *
 * TFLite dynamic_update_slice.cc: the output is the operand with the update written at the
 * start indices, each clamped to [0, operand_dim - update_dim] (the reference clamps, so any
 * run-time index is valid). Shapes are extended to 6-D at the front by the generator.
 */
#ifndef UTVM_KERNELS_DYNAMIC_UPDATE_SLICE_H_
#define UTVM_KERNELS_DYNAMIC_UPDATE_SLICE_H_

#include <string.h>

#include "common.h"

typedef struct {
  int32_t rank;           /* dimensions the start tensor gives (the last `rank` of the 6) */
  int32_t in_dims[6];
  int32_t upd_dims[6];
  int32_t elem_size;
  int32_t index_size;     /* 4 or 8 */
} utvm_dynamic_update_slice_params;

static void utvm_dynamic_update_slice(const utvm_dynamic_update_slice_params* p, const void* operand,
                                      const void* update, const void* start, void* out) {
  const uint8_t* ind = (const uint8_t*)start;
  const uint8_t* src = (const uint8_t*)update;
  uint8_t* dst = (uint8_t*)out;
  size_t stride[6];
  size_t total = 1u;
  int32_t first[6];
  int32_t d;
  int32_t i0;
  int32_t i1;
  int32_t i2;
  int32_t i3;
  int32_t i4;
  const size_t es = (size_t)p->elem_size;
  const size_t row = (size_t)p->upd_dims[5] * es;
  for (d = 5; d >= 0; --d) {
    stride[d] = total;
    total *= (size_t)p->in_dims[d];
  }
  if (operand != out) {
    (void)memcpy(dst, operand, total * es);
  }
  for (d = 0; d < 6; ++d) {
    int64_t v = 0;
    const int32_t k = d - (6 - p->rank);
    if (k >= 0) {
      if (p->index_size == 8) {
        (void)memcpy((void*)&v, (const void*)&ind[(size_t)k * 8u], 8u);
      } else {
        int32_t w;
        (void)memcpy((void*)&w, (const void*)&ind[(size_t)k * 4u], 4u);
        v = (int64_t)w;
      }
    }
    if (v < 0) {
      v = 0;
    }
    if (v > (int64_t)(p->in_dims[d] - p->upd_dims[d])) {
      v = (int64_t)(p->in_dims[d] - p->upd_dims[d]);
    }
    first[d] = (int32_t)v;
  }
  /* The update's rows (its last dimension) land at output element `at`: the offset of
   * first + (i0, .., i4, 0), built up one dimension per loop. */
  for (i0 = 0; i0 < p->upd_dims[0]; ++i0) {
    const int32_t c0 = first[0] + i0;
    const size_t a0 = (size_t)first[5] + ((size_t)c0 * stride[0]);
    for (i1 = 0; i1 < p->upd_dims[1]; ++i1) {
      const int32_t c1 = first[1] + i1;
      const size_t a1 = a0 + ((size_t)c1 * stride[1]);
      for (i2 = 0; i2 < p->upd_dims[2]; ++i2) {
        const int32_t c2 = first[2] + i2;
        const size_t a2 = a1 + ((size_t)c2 * stride[2]);
        for (i3 = 0; i3 < p->upd_dims[3]; ++i3) {
          const int32_t c3 = first[3] + i3;
          const size_t a3 = a2 + ((size_t)c3 * stride[3]);
          for (i4 = 0; i4 < p->upd_dims[4]; ++i4) {
            const int32_t c4 = first[4] + i4;
            const size_t at = a3 + ((size_t)c4 * stride[4]);
            if (row > 0u) {
              (void)memcpy(&dst[at * es], src, row);
            }
            src = &src[row];
          }
        }
      }
    }
  }
}

#endif /* UTVM_KERNELS_DYNAMIC_UPDATE_SLICE_H_ */
