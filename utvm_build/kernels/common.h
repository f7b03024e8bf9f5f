/* utvm-build kernels: fixed-point helpers shared by every kernel.
 *
 * These reproduce TensorFlow Lite's reference arithmetic bit for bit (gemmlowp-style
 * "double rounding" requantization). Right shifts of negative values assume an arithmetic
 * shift, as GCC, Clang and Arm Compiler implement it.
 */
#ifndef UTVM_KERNELS_COMMON_H_
#define UTVM_KERNELS_COMMON_H_

#include <stddef.h>
#include <stdint.h>

static inline int32_t utvm_min_i32(int32_t a, int32_t b) { return (a < b) ? a : b; }
static inline int32_t utvm_max_i32(int32_t a, int32_t b) { return (a > b) ? a : b; }
static inline int32_t utvm_clamp_i32(int32_t x, int32_t lo, int32_t hi) {
  return utvm_min_i32(utvm_max_i32(x, lo), hi);
}

/* (a * b * 2) >> 32, rounded to nearest, saturating the single overflow case. */
static inline int32_t utvm_sat_rounding_doubling_high_mul(int32_t a, int32_t b) {
  int32_t result;
  if ((a == b) && (a == INT32_MIN)) {
    result = INT32_MAX;
  } else {
    const int64_t ab = (int64_t)a * (int64_t)b;
    const int64_t nudge = (ab >= 0) ? ((int64_t)1 << 30) : (1 - ((int64_t)1 << 30));
    result = (int32_t)((ab + nudge) / ((int64_t)1 << 31));
  }
  return result;
}

/* x / 2^exponent, rounded to nearest, ties away from zero. */
static inline int32_t utvm_rounding_divide_by_pot(int32_t x, int32_t exponent) {
  const int32_t mask = (int32_t)(((int64_t)1 << exponent) - 1);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + ((x < 0) ? 1 : 0);
  return (x >> exponent) + ((remainder > threshold) ? 1 : 0);
}

/* TFLite MultiplyByQuantizedMultiplier(int32): x * multiplier * 2^(shift - 31).
 * Where x * 2^left_shift exceeds int32 the reference relies on two's complement wrap-around
 * (undefined behaviour in C), so the shift wraps explicitly through uint32_t. */
static inline int32_t utvm_mul_by_quantized_mul(int32_t x, int32_t multiplier, int32_t shift) {
  const int32_t left_shift = (shift > 0) ? shift : 0;
  const int32_t right_shift = (shift > 0) ? 0 : -shift;
  const int32_t shifted = (int32_t)((uint32_t)x << left_shift);
  return utvm_rounding_divide_by_pot(utvm_sat_rounding_doubling_high_mul(shifted, multiplier),
                                     right_shift);
}

/* TFLite MultiplyByQuantizedMultiplier(int64): used by the 16x8 kernels. */
static inline int32_t utvm_mul_by_quantized_mul64(int64_t x, int32_t multiplier, int32_t shift) {
  const int32_t reduced = (multiplier < 0x7FFF0000) ? ((multiplier + (1 << 15)) >> 16) : 0x7FFF;
  const int32_t total_shift = 15 - shift;
  const int64_t round = (int64_t)1 << (total_shift - 1);
  const int64_t result = (x * (int64_t)reduced + round) >> total_shift;
  return (int32_t)result;
}

static inline float utvm_clamp_f32(float x, float lo, float hi) {
  const float y = (x < lo) ? lo : x;
  return (y > hi) ? hi : y;
}

#endif /* UTVM_KERNELS_COMMON_H_ */
