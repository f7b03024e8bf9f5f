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
static inline void utvm_logical_and_or_one(int32_t is_or, const uint8_t* in1, const uint8_t* in2, uint8_t* out,
                                           int32_t o1, int32_t o2, int32_t i) {
  const bool a = in1[o1] != 0u;
  const bool b = in2[o2] != 0u;
  bool r = a && b;
  if (is_or != 0) {
    r = a || b;
  }
  out[i] = r ? 1u : 0u;
}

static inline void utvm_logical_and_or(int32_t is_or, const utvm_ew_shape* sh, const uint8_t* in1,
                                       const uint8_t* in2, uint8_t* out) {
  UTVM_EW_EACH(sh, utvm_logical_and_or_one, is_or, in1, in2, out);
}

#endif /* UTVM_KERNELS_LOGICAL_H_ */
