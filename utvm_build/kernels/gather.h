/* utvm-build kernels: GATHER with indices computed at run time (any params element type;
 * int32 or int64 indices).
 *
 * reference_ops::Gather: for each batch, outer slice and index i, copy the `inner_bytes` block
 * at index coords[i] of the axis. The reference fails the invocation on an index outside
 * [0, axis_size); indices come from the model's inputs and are untrusted, so here an index
 * outside the range writes an all-zero block instead (no access outside the input, ever) and
 * the other blocks are as the reference computes them.
 */
#ifndef UTVM_KERNELS_GATHER_H_
#define UTVM_KERNELS_GATHER_H_

#include <string.h>

#include "common.h"

typedef struct {
  int32_t batch;        /* product of the dimensions before batch_dims */
  int32_t outer;        /* product of the dimensions from batch_dims to the axis */
  int32_t coords;       /* indices per batch */
  int32_t axis_size;    /* extent of the gathered axis */
  int32_t inner_bytes;  /* bytes of one gathered block */
  int32_t index_size;   /* 4 (int32 indices) or 8 (int64 indices) */
} utvm_gather_params;

static inline int64_t utvm_gather_index(const void* idx, int32_t k, int32_t size) {
  int64_t v;
  if (size == 8) {
    int64_t w;
    (void)memcpy(&w, &((const uint8_t*)idx)[(size_t)k * 8u], 8u);
    v = w;
  } else {
    int32_t w;
    (void)memcpy(&w, &((const uint8_t*)idx)[(size_t)k * 4u], 4u);
    v = (int64_t)w;
  }
  return v;
}

static void utvm_gather(const utvm_gather_params* p, const void* in, const void* idx, void* out) {
  const uint8_t* src = (const uint8_t*)in;
  uint8_t* dst = (uint8_t*)out;
  const size_t inner = (size_t)p->inner_bytes;
  int32_t b;
  int32_t o;
  int32_t i;
  for (b = 0; b < p->batch; ++b) {
    for (o = 0; o < p->outer; ++o) {
      const size_t slice = ((size_t)b * (size_t)p->outer) + (size_t)o;
      for (i = 0; i < p->coords; ++i) {
        const int64_t c = utvm_gather_index(idx, (b * p->coords) + i, p->index_size);
        if ((c >= 0) && (c < (int64_t)p->axis_size)) {
          (void)memcpy(dst, &src[((slice * (size_t)p->axis_size) + (size_t)c) * inner], inner);
        } else {
          (void)memset(dst, 0, inner);
        }
        dst = &dst[inner];
      }
    }
  }
}

#endif /* UTVM_KERNELS_GATHER_H_ */
