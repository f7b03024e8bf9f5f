/* utvm-build kernels: GATHER_ND (any params element type; int32 or int64 indices).
 *
 * reference GatherNd: slice i starts at the flat position sum_j indices[i][j] * dims_to_count[j]
 * and is copied whole. The reference checks only that position (from_pos >= 0 and
 * from_pos + slice_size <= the params' element count) and fails the invocation otherwise;
 * indices are untrusted run-time data, so here such a slice is written as all-zero bytes and
 * the others exactly as the reference copies them. An index of magnitude above the params'
 * element count also marks its slice invalid (documented deviation: the reference's int arithmetic
 * overflows or cancels such indices); below that bound the int64 sum cannot overflow.
 */
#ifndef UTVM_KERNELS_GATHER_ND_H_
#define UTVM_KERNELS_GATHER_ND_H_

#include <string.h>

#include "common.h"

typedef struct {
  int32_t slices;          /* number of index tuples */
  int32_t nd;              /* indices per tuple, 1..6 */
  int32_t slice_elems;     /* elements per slice */
  int32_t total_elems;     /* elements of params */
  int32_t elem_size;       /* bytes per element */
  int32_t index_size;      /* 4 (int32) or 8 (int64) */
  int32_t dims_to_count[6];
} utvm_gather_nd_params;

static void utvm_gather_nd(const utvm_gather_nd_params* p, const void* in, const void* idx, void* out) {
  const uint8_t* src = (const uint8_t*)in;
  const uint8_t* ind = (const uint8_t*)idx;
  uint8_t* dst = (uint8_t*)out;
  const size_t slice_bytes = (size_t)p->slice_elems * (size_t)p->elem_size;
  int32_t i;
  int32_t j;
  for (i = 0; i < p->slices; ++i) {
    int64_t pos = 0;
    int32_t valid = 1;
    for (j = 0; j < p->nd; ++j) {
      const size_t k = ((size_t)i * (size_t)p->nd) + (size_t)j;
      int64_t v;
      if (p->index_size == 8) {
        (void)memcpy((void*)&v, (const void*)&ind[k * 8u], 8u);
      } else {
        int32_t w;
        (void)memcpy((void*)&w, (const void*)&ind[k * 4u], 4u);
        v = (int64_t)w;
      }
      if ((v > (int64_t)p->total_elems) || (v < -(int64_t)p->total_elems)) {
        valid = 0;
      } else {
        pos += v * (int64_t)p->dims_to_count[j];
      }
    }
    if ((valid != 0) && (pos >= 0) && ((pos + (int64_t)p->slice_elems) <= (int64_t)p->total_elems)) {
      (void)memcpy(dst, &src[(size_t)pos * (size_t)p->elem_size], slice_bytes);
    } else {
      (void)memset(dst, 0, slice_bytes);
    }
    dst = &dst[slice_bytes];
  }
}

#endif /* UTVM_KERNELS_GATHER_ND_H_ */
