/* utvm-build kernels: helpers shared by the TFLM signal library kernels (signal_*.h). */
#ifndef UTVM_KERNELS_SIGNAL_COMMON_H_
#define UTVM_KERNELS_SIGNAL_COMMON_H_

#include "common.h"

/* v narrowed to int16 as a two's complement store (what the reference's int16 stores do). */
static inline int16_t utvm_signal_wrap16(int32_t v) {
  const uint32_t u = ((uint32_t)v) & 0xFFFFu;
  return (int16_t)(int32_t)((u >= 0x8000u) ? ((int32_t)u - 65536) : (int32_t)u);
}

/* x >> s with the sign extended (an arithmetic shift), 0 <= s <= 31: where TFLM's reference shifts
 * a signed value right (GCC, Clang and Arm Compiler shift arithmetically; MISRA C 10.1 is deviated
 * here, once). */
static inline int32_t utvm_signal_asr(int32_t x, uint32_t s) {
  return x >> s;
}

/* The number of significant bits of x (0 for 0). */
static inline uint32_t utvm_signal_msb32(uint32_t x) {
  uint32_t n = 0u;
  uint32_t v = x;
  while (v != 0u) {
    v >>= 1u;
    ++n;
  }
  return n;
}

static inline uint32_t utvm_signal_msb64(uint64_t x) {
  uint32_t n = 0u;
  uint64_t v = x;
  while (v != 0u) {
    v >>= 1u;
    ++n;
  }
  return n;
}

#endif /* UTVM_KERNELS_SIGNAL_COMMON_H_ */
