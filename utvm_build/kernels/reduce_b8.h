/* utvm-build kernels: REDUCE_ALL, bool (see reduce.h): out = in && current, from true. */
#ifndef UTVM_KERNELS_REDUCE_B8_H_
#define UTVM_KERNELS_REDUCE_B8_H_

#include "reduce.h"

/* in && current, from true (the walk ignores seed_first: the same result) */
static inline uint8_t utvm_reduce_all_b8_step(uint8_t acc, uint8_t v) {
  return ((v != 0u) && (acc != 0u)) ? 1u : 0u;
}

static void utvm_reduce_all_b8(const utvm_reduce_params* p, const uint8_t* in, uint8_t* out) {
  UTVM_MEAN_WALK(p, in, out, 1u, 0, utvm_reduce_all_b8_step);
}

#endif /* UTVM_KERNELS_REDUCE_B8_H_ */
