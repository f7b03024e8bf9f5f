/* utvm-build kernels: RSQRT, int16 (TFLite Micro elementwise.cc RsqrtEvalQuantized<int16_t>).
 *
 * Zero points 0 (TFLM's check). Per element x: 0 gives 32767; otherwise 1 / sqrt(x) as a
 * multiplier and shift (GetInvSqrtQuantizedMultiplierExp: gemmlowp's Newton-Raphson in
 * FixedPoint<int32, 3>, 5 iterations, times sqrt(2)/2), then
 * out = MultiplyByQuantizedMultiplier(MultiplyByQuantizedMultiplier(1, inv, inv_shift + 20),
 *                                     multiplier, shift - 20), saturated to int16.
 * The reference fails at run time on negative inputs; here they give what its arithmetic gives
 * for 1 (GetInvSqrtQuantizedMultiplierExp treats every input <= 1 alike), as the int8 table does.
 */
#ifndef UTVM_KERNELS_RSQRT_S16_H_
#define UTVM_KERNELS_RSQRT_S16_H_

#include "common.h"

typedef struct {
  int32_t multiplier; /* QuantizeMultiplier(1 / (sqrtf(input scale) * output scale)) */
  int32_t shift;
} utvm_rsqrt_s16_params;

/* gemmlowp SaturatingRoundingMultiplyByPOT: exponent > 0 a saturating left shift, else a rounding
 * right shift (-31 <= exponent <= 30). */
static inline int32_t utvm_sat_mul_pot(int32_t x, int32_t exponent) {
  int32_t r;
  if (exponent <= 0) {
    r = utvm_rounding_divide_by_pot(x, -exponent);
  } else {
    const int32_t threshold = utvm_pow2_i32(31 - exponent) - 1;
    if (x > threshold) {
      r = INT32_MAX;
    } else if (x < -threshold) {
      r = (int32_t)INT32_MIN;
    } else {
      r = utvm_shl_wrap_i32(x, exponent);
    }
  }
  return r;
}

/* GetInvSqrtQuantizedMultiplierExp(input, reverse_shift -1). */
static void utvm_inv_sqrt_mul_exp(int32_t input, int32_t* out_multiplier, int32_t* out_shift) {
  if (input <= 1) {
    *out_multiplier = INT32_MAX;
    *out_shift = 0;
  } else {
    int32_t x = input;
    int32_t shift = 11;
    int32_t bits = 0;
    uint32_t u;
    int32_t pairs;
    int32_t half_in;
    int32_t xr = utvm_pow2_i32(28);                        /* 1.0 in FixedPoint<int32, 3> */
    const int32_t half_three = utvm_pow2_i32(28) + utvm_pow2_i32(27); /* 1.5 */
    int32_t k;
    while (x >= utvm_pow2_i32(29)) { /* at most once for int32 inputs */
      x /= 4;
      shift += 1;
    }
    for (u = (uint32_t)x; u != 0u; u >>= 1u) {
      bits += 1;
    }
    pairs = (((32 - bits) - 1) / 2) - 1;
    shift -= pairs;
    x = utvm_shl_wrap_i32(x, 2 * pairs);
    half_in = utvm_sat_mul_pot(x / 2, -1); /* x > 0 here: x / 2 is the reference's x >> 1 */
    for (k = 0; k < 5; ++k) {
      const int32_t x3 = utvm_sat_mul_pot(
          utvm_sat_rounding_doubling_high_mul(utvm_sat_rounding_doubling_high_mul(xr, xr), xr), 6);
      /* FixedPoint subtraction: int32 wrap-around, done on uint32_t */
      const uint32_t diff = (uint32_t)utvm_sat_rounding_doubling_high_mul(half_three, xr) -
                            (uint32_t)utvm_sat_rounding_doubling_high_mul(half_in, x3);
      xr = utvm_sat_mul_pot((int32_t)diff, 3);
    }
    xr = utvm_sat_rounding_doubling_high_mul(xr, 1518500250); /* sqrt(2) / 2 */
    if (shift < 0) {
      xr = utvm_shl_wrap_i32(xr, -shift);
      shift = 0;
    }
    *out_multiplier = xr;
    *out_shift = -shift;
  }
}

static void utvm_rsqrt_s16(const utvm_rsqrt_s16_params* p, int32_t size, const int16_t* in, int16_t* out) {
  int32_t i;
  for (i = 0; i < size; ++i) {
    const int32_t value = in[i];
    int32_t r = 32767;
    if (value != 0) {
      int32_t inv = 0;
      int32_t inv_shift = 0;
      int32_t data;
      utvm_inv_sqrt_mul_exp(value, &inv, &inv_shift);
      data = utvm_mul_by_quantized_mul(1, inv, inv_shift + 20);
      r = utvm_clamp_i32(utvm_mul_by_quantized_mul(data, p->multiplier, p->shift - 20), -32768, 32767);
    }
    out[i] = (int16_t)r;
  }
}

#endif /* UTVM_KERNELS_RSQRT_S16_H_ */
