/* utvm-build kernels: LOGICAL_NOT, LOGICAL_AND, LOGICAL_OR (bool; AND / OR with TFLite broadcasting,
 * reference_ops::BinaryFunction / BroadcastBinaryFunction4DSlow). */
#ifndef UTVM_KERNELS_LOGICAL_H_
#define UTVM_KERNELS_LOGICAL_H_

#include "ew_walk.h"

static inline void utvm_logical_not(int32_t size, const uint8_t* in, uint8_t* out) {
  int32_t i;
  for (i = 0; i < size; ++i) {
    out[i] = (in[i] != 0u) ? 0u : 1u;
  }
}

/* is_or: 0 = AND, 1 = OR. */
static inline uint8_t utvm_logical_and_or_one(int32_t is_or, uint8_t x1, uint8_t x2) {
  const bool a = x1 != 0u;
  const bool b = x2 != 0u;
  bool r = a && b;
  if (is_or != 0) {
    r = a || b;
  }
  return r ? 1u : 0u;
}

static inline void utvm_logical_and_or(int32_t is_or, const utvm_ew_shape* sh, const uint8_t* in1,
                                       const uint8_t* in2, uint8_t* out) {
  UTVM_EW_EACH(sh, out, utvm_logical_and_or_one(is_or, in1[UTVM_EW_I1], in2[UTVM_EW_I2]));
}

#endif /* UTVM_KERNELS_LOGICAL_H_ */
