/* utvm-build kernels: BROADCAST_ARGS with shapes computed at run time (int32 or int64).
 *
 * broadcast_args.cc: the two shape vectors are aligned at their ends, a missing dimension counts
 * as 1, and each output dimension is the one that is not 1 (or 1). The reference fails when two
 * dimensions differ and neither is 1; here such a dimension is written as -1 (no other output
 * can be -1), never an access outside the vectors. Elements are int32_t or int64_t (elem_size).
 */
#ifndef UTVM_KERNELS_BROADCAST_ARGS_H_
#define UTVM_KERNELS_BROADCAST_ARGS_H_

#include <string.h>

#include "common.h"

static inline int64_t utvm_broadcast_args_at(const void* v, int32_t k, int32_t elem_size) {
  int64_t r;
  if (elem_size == 8) {
    (void)memcpy(&r, &((const uint8_t*)v)[(size_t)k * 8u], 8u);
  } else {
    int32_t w;
    (void)memcpy(&w, &((const uint8_t*)v)[(size_t)k * 4u], 4u);
    r = (int64_t)w;
  }
  return r;
}

static void utvm_broadcast_args(const void* a, int32_t len_a, const void* b, int32_t len_b, void* out,
                                int32_t elem_size) {
  const int32_t n = (len_a > len_b) ? len_a : len_b;
  int32_t i;
  for (i = 0; i < n; ++i) {
    const int32_t ka = i - (n - len_a);
    const int32_t kb = i - (n - len_b);
    const int64_t da = (ka >= 0) ? utvm_broadcast_args_at(a, ka, elem_size) : 1;
    const int64_t db = (kb >= 0) ? utvm_broadcast_args_at(b, kb, elem_size) : 1;
    int64_t r;
    if ((da == db) || (db == 1)) {
      r = da;
    } else if (da == 1) {
      r = db;
    } else {
      r = -1;
    }
    if (elem_size == 8) {
      (void)memcpy(&((uint8_t*)out)[(size_t)i * 8u], &r, 8u);
    } else {
      const int32_t w = (int32_t)r;
      (void)memcpy(&((uint8_t*)out)[(size_t)i * 4u], &w, 4u);
    }
  }
}

#endif /* UTVM_KERNELS_BROADCAST_ARGS_H_ */
