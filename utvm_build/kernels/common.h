/* utvm-build kernels: fixed-point helpers shared by every kernel.
 *
 * These reproduce TensorFlow Lite's reference arithmetic bit for bit (gemmlowp-style
 * "double rounding" requantization). Right shifts of negative values assume an arithmetic
 * shift, as GCC, Clang and Arm Compiler implement it.
 */
#ifndef UTVM_KERNELS_COMMON_H_
#define UTVM_KERNELS_COMMON_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The loop of the element-wise kernels whose parameter struct starts with size: ONE(p, in, out, i)
 * for i = 0 .. p->size - 1, ONE the kernel's element operation (a static inline function; the
 * expansion is the loop the kernel would spell out, see docs/kernel-guide.md). */
#define UTVM_EACH_ELEMENT(p, ONE, in, out)     \
  do {                                         \
    int32_t i_;                                \
    for (i_ = 0; i_ < (p)->size; ++i_) {       \
      ONE((p), (in), (out), i_);               \
    }                                          \
  } while (0)

static inline int32_t utvm_min_i32(int32_t a, int32_t b) { return (a < b) ? a : b; }
static inline int32_t utvm_max_i32(int32_t a, int32_t b) { return (a > b) ? a : b; }
static inline int32_t utvm_clamp_i32(int32_t x, int32_t lo, int32_t hi) {
  return utvm_min_i32(utvm_max_i32(x, lo), hi);
}

/* 2^e as int32_t, 0 <= e <= 30 (the shift is done on uint32_t: MISRA C essential types). */
static inline int32_t utvm_pow2_i32(int32_t e) {
  const uint32_t v = (uint32_t)1 << (uint32_t)e;
  return (int32_t)v;
}

/* 2^e as int64_t, 0 <= e <= 62. */
static inline int64_t utvm_pow2_i64(int32_t e) {
  const uint64_t v = (uint64_t)1 << (uint32_t)e;
  return (int64_t)v;
}

/* x * 2^s with two's complement wrap-around (as the reference's int32 left shift in practice),
 * 0 <= s <= 31: the shift is done on uint32_t, where it is defined. */
static inline int32_t utvm_shl_wrap_i32(int32_t x, int32_t s) {
  const uint32_t v = (uint32_t)x << (uint32_t)s;
  return (int32_t)v;
}

/* (a * b * 2) >> 32, rounded to nearest, saturating the single overflow case.
 * gemmlowp: (ab + nudge) / 2^31 truncated, nudge 2^30 (ab >= 0) or 1 - 2^30 (ab < 0). Both cases
 * equal floor((ab + 2^30) / 2^31) (for ab < 0: trunc(v / 2^31) = floor((v + 2^31 - 1) / 2^31)
 * with v = ab + 1 - 2^30 < 0), which fits int32 except in the saturated case; its low 32 bits are
 * bits 31..62 of ab + 2^30, taken here from the uint64_t sum (one multiply-accumulate). */
static inline int32_t utvm_sat_rounding_doubling_high_mul(int32_t a, int32_t b) {
  int32_t result;
  if ((a == b) && (a == INT32_MIN)) {
    result = INT32_MAX;
  } else {
    const int64_t ab = (int64_t)a * (int64_t)b;
    const uint64_t sum = (uint64_t)ab + UINT64_C(1073741824);
    result = (int32_t)(uint32_t)(sum >> 31u);
  }
  return result;
}

/* x / 2^exponent, rounded to nearest, ties away from zero; 0 <= exponent <= 31. The remainder
 * (the low bits of x in two's complement) and the threshold are non-negative, so they are computed
 * on uint32_t; x >> exponent is an arithmetic shift (see the top of this file). */
static inline int32_t utvm_rounding_divide_by_pot(int32_t x, int32_t exponent) {
  const uint32_t mask = ((uint32_t)1 << (uint32_t)exponent) - 1u;
  const uint32_t remainder = (uint32_t)x & mask;
  const uint32_t threshold = (mask >> 1u) + ((x < 0) ? 1u : 0u);
  return (x >> exponent) + ((remainder > threshold) ? 1 : 0);
}

/* TFLite MultiplyByQuantizedMultiplier(int32): x * multiplier * 2^(shift - 31).
 * Where x * 2^left_shift exceeds int32 the reference relies on two's complement wrap-around
 * (undefined behaviour in C), so the shift wraps explicitly through uint32_t. */
static inline int32_t utvm_mul_by_quantized_mul(int32_t x, int32_t multiplier, int32_t shift) {
  const int32_t left_shift = (shift > 0) ? shift : 0;
  const int32_t right_shift = (shift > 0) ? 0 : -shift;
  const int32_t shifted = utvm_shl_wrap_i32(x, left_shift);
  return utvm_rounding_divide_by_pot(utvm_sat_rounding_doubling_high_mul(shifted, multiplier),
                                     right_shift);
}

/* TFLite MultiplyByQuantizedMultiplier(int64): used by the 16x8 kernels. */
static inline int32_t utvm_mul_by_quantized_mul64(int64_t x, int32_t multiplier, int32_t shift) {
  const int32_t reduced = (multiplier < 0x7FFF0000) ? ((multiplier + (1 << 15)) >> 16) : 0x7FFF;
  const int32_t total_shift = 15 - shift;
  const int64_t round = utvm_pow2_i64(total_shift - 1);
  const int64_t result = ((x * (int64_t)reduced) + round) >> total_shift;
  return (int32_t)result;
}

static inline float utvm_clamp_f32(float x, float lo, float hi) {
  const float y = (x < lo) ? lo : x;
  return (y > hi) ? hi : y;
}

#endif /* UTVM_KERNELS_COMMON_H_ */
