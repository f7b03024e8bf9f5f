/* utvm-build kernels: REDUCE_MAX / REDUCE_MIN / SUM (wrapping), int32 (see reduce.h). */
#ifndef UTVM_KERNELS_REDUCE_S32_H_
#define UTVM_KERNELS_REDUCE_S32_H_

#include "reduce.h"

/* in + current with two's complement wrap (the reference's int overflow in practice) */
static inline int32_t utvm_reduce_add_s32(int32_t a, int32_t b) {
  const uint32_t s = (uint32_t)a + (uint32_t)b;
  return (int32_t)s;
}

static void utvm_reduce_s32(const utvm_reduce_params* p, const int32_t* in, int32_t* out) {
  if (p->kind == UTVM_REDUCE_SUM) {
    UTVM_REDUCE_WALK(p, in, out, 0, utvm_reduce_add_s32);
  } else {
    UTVM_REDUCE_MAX_MIN(p, in, out, (int32_t)INT32_MIN, (int32_t)INT32_MAX);
  }
}

#endif /* UTVM_KERNELS_REDUCE_S32_H_ */
