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
  int32_t i[5];
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
        (void)memcpy(&v, &ind[(size_t)k * 8u], 8u);
      } else {
        int32_t w;
        (void)memcpy(&w, &ind[(size_t)k * 4u], 4u);
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
  for (i[0] = 0; i[0] < p->upd_dims[0]; ++i[0]) {
    for (i[1] = 0; i[1] < p->upd_dims[1]; ++i[1]) {
      for (i[2] = 0; i[2] < p->upd_dims[2]; ++i[2]) {
        for (i[3] = 0; i[3] < p->upd_dims[3]; ++i[3]) {
          for (i[4] = 0; i[4] < p->upd_dims[4]; ++i[4]) {
            size_t at = (size_t)first[5];
            for (d = 0; d < 5; ++d) {
              at += (size_t)(first[d] + i[d]) * stride[d];
            }
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
