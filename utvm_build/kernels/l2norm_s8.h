/* utvm-build kernels: L2_NORMALIZATION, int8 (reference_integer_ops::L2Normalization; output scale
 * 1/128, zero point 0): per row, acc = sum (x - zp)^2 in int32, GetInvSqrtQuantizedMultiplierExp(acc)
 * (gemmlowp fixed-point Newton-Raphson, 5 iterations, reverse shift -1), then
 * out = clamp(MultiplyByQuantizedMultiplier(x - zp, inv, shift + 7), -128, 127). */
#ifndef UTVM_KERNELS_L2NORM_S8_H_
#define UTVM_KERNELS_L2NORM_S8_H_

#include "l2norm.h"

/* gemmlowp SaturatingRoundingMultiplyByPOT<e> for 0 < e < 31: saturating left shift. */
static inline int32_t utvm_l2norm_sat_shl(int32_t x, int32_t e) {
  const int32_t threshold = utvm_pow2_i32(31 - e) - 1;
  int32_t r;
  if (x > threshold) {
    r = INT32_MAX;
  } else if (x < -threshold) {
    r = (int32_t)INT32_MIN;
  } else {
    r = utvm_shl_wrap_i32(x, e);
  }
  return r;
}

/* GetInvSqrtQuantizedMultiplierExp(input, reverse_shift = -1). */
static inline void utvm_l2norm_inv_sqrt(int32_t input, int32_t* multiplier, int32_t* shift) {
  if (input <= 1) {
    *multiplier = INT32_MAX;
    *shift = 0;
  } else {
    int32_t v = input;
    int32_t s = 11;
    int32_t pairs;
    int32_t lz = 0;
    int32_t half_input;
    int32_t x = 268435456;                 /* F3 one: 2^28 */
    const int32_t half_three = 402653184;  /* F3 1.5: 2^28 + 2^27 */
    int32_t i;
    while (v >= 536870912) { /* 2^29 */
      v /= 4;
      s += 1;
    }
    while ((lz < 32) && ((((uint32_t)v) & ((uint32_t)0x80000000u >> (uint32_t)lz)) == 0u)) {
      lz += 1;
    }
    pairs = ((lz - 1) / 2) - 1;
    s -= pairs;
    v = utvm_shl_wrap_i32(v, 2 * pairs);
    half_input = utvm_rounding_divide_by_pot(v / 2, 1);  /* v > 0: v >> 1 */         /* F3 input / 2 */
    for (i = 0; i < 5; ++i) {
      const int32_t x2 = utvm_sat_rounding_doubling_high_mul(x, x);  /* F6 */
      const int32_t x3 = utvm_l2norm_sat_shl(utvm_sat_rounding_doubling_high_mul(x2, x), 6); /* F9 -> F3 */
      const int32_t a = utvm_sat_rounding_doubling_high_mul(half_three, x); /* F6 */
      const int32_t b = utvm_sat_rounding_doubling_high_mul(half_input, x3); /* F6 */
      const uint32_t diff = (uint32_t)a - (uint32_t)b;              /* F6, wraps as gemmlowp's int32 - */
      x = utvm_l2norm_sat_shl((int32_t)diff, 3);                    /* F6 -> F3 */
    }
    x = utvm_sat_rounding_doubling_high_mul(x, 1518500250);        /* x sqrt(2)/2, F3 */
    if (s < 0) {
      x = utvm_shl_wrap_i32(x, -s);
      s = 0;
    }
    *multiplier = x;
    *shift = -s;
  }
}

typedef struct {
  int32_t mult;
  int32_t shift;
} utvm_l2norm_s8_scale;

static inline int32_t utvm_l2norm_s8_sq(const utvm_l2norm_params* p, int8_t x) {
  const int32_t v = (int32_t)x - p->input_zero_point;
  return v * v;
}

static inline utvm_l2norm_s8_scale utvm_l2norm_s8_inv(int32_t acc) {
  utvm_l2norm_s8_scale s;
  utvm_l2norm_inv_sqrt(acc, &s.mult, &s.shift);
  return s;
}

static inline int8_t utvm_l2norm_s8_apply(const utvm_l2norm_params* p, int8_t x, utvm_l2norm_s8_scale s) {
  const int32_t v = (int32_t)x - p->input_zero_point;
  const int32_t r = utvm_mul_by_quantized_mul(v, s.mult, s.shift + 7);
  return (int8_t)utvm_clamp_i32(r, -128, 127);
}

static void utvm_l2norm_s8(const utvm_l2norm_params* p, const int8_t* in, int8_t* out) {
  UTVM_L2NORM_WALK(int8_t, int32_t, 0, utvm_l2norm_s8_scale, p, in, out, utvm_l2norm_s8_sq, utvm_l2norm_s8_inv,
                   utvm_l2norm_s8_apply);
}

#endif /* UTVM_KERNELS_L2NORM_S8_H_ */
