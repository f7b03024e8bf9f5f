/* utvm-build kernels: SOFTMAX int8 parameter struct and the gemmlowp fixed-point helpers used by the
 * int8 reference softmax (kernels: softmax_{s8,s8_s16,s16}.h; each other struct is in its kernel).
 *
 * int8 input: tensorflow/lite/kernels/internal/reference/softmax.h Softmax<InputT, OutputT>, with
 * gemmlowp's exp_on_negative_values (Q5.26 input) and one_over_one_plus_x_for_x_in_0_1
 * (GetReciprocal), bit for bit.
 */
#ifndef UTVM_KERNELS_SOFTMAX_H_
#define UTVM_KERNELS_SOFTMAX_H_

#include "common.h"

typedef struct {
  int32_t outer;
  int32_t depth;
  int32_t input_multiplier;
  int32_t input_left_shift;
  int32_t diff_min;
} utvm_softmax_s8_params;

/* gemmlowp SaturatingRoundingMultiplyByPOT<exponent> for exponent > 0 (saturating left shift). */
static inline int32_t utvm_fx_sat_shl(int32_t x, int32_t exponent) {
  const int32_t threshold = utvm_pow2_i32(31 - exponent) - 1;
  int32_t result;
  if (x > threshold) {
    result = INT32_MAX;
  } else if (x < -threshold) {
    result = (int32_t)INT32_MIN;
  } else {
    result = utvm_shl_wrap_i32(x, exponent);
  }
  return result;
}

/* gemmlowp RoundingHalfSum(int32). */
static inline int32_t utvm_fx_rounding_half_sum(int32_t a, int32_t b) {
  const int64_t sum = (int64_t)a + (int64_t)b;
  const int64_t sign = (sum >= 0) ? (int64_t)1 : (int64_t)-1;
  return (int32_t)((sum + sign) / 2);
}

/* gemmlowp exp_on_interval_between_negative_one_quarter_and_0_excl (Q0.31 in and out). */
static inline int32_t utvm_fx_exp_quarter(int32_t a) {
  const int32_t constant_term = 1895147668;
  const int32_t constant_1_over_3 = 715827883;
  const int32_t x = a + 0x10000000;  /* a + 1/8 (1 << 28 in Q0.31) */
  const int32_t x2 = utvm_sat_rounding_doubling_high_mul(x, x);
  const int32_t x3 = utvm_sat_rounding_doubling_high_mul(x2, x);
  const int32_t x4 = utvm_sat_rounding_doubling_high_mul(x2, x2);
  const int32_t x4_over_4 = utvm_rounding_divide_by_pot(x4, 2);
  const int32_t poly = utvm_rounding_divide_by_pot(
      utvm_sat_rounding_doubling_high_mul(x4_over_4 + x3, constant_1_over_3) + x2, 1);
  return constant_term + utvm_sat_rounding_doubling_high_mul(constant_term, x + poly);
}

/* gemmlowp exp_on_negative_values for a Q5.26 input (a <= 0); result in Q0.31. */
static inline int32_t utvm_fx_exp_on_negative_values_q5(int32_t a) {
  static const int32_t multipliers[7] = {1672461947, 1302514674, 790015084, 290630308,
                                         39332535,   720401,     242};
  const int32_t one_quarter = 0x1000000;  /* 1 << 24: 1/4 in Q5.26 */
  const int32_t mask = one_quarter - 1;
  const int32_t a_mod_quarter_minus_one_quarter = (a & mask) - one_quarter;
  int32_t result = utvm_fx_exp_quarter(utvm_fx_sat_shl(a_mod_quarter_minus_one_quarter, 5));
  const int32_t remainder = a_mod_quarter_minus_one_quarter - a;
  int32_t k;
  for (k = 0; k < 7; ++k) {   /* exponents -2 .. +4: bit 26 + exponent of the remainder */
    if (((uint32_t)remainder & ((uint32_t)1 << ((uint32_t)k + 24u))) != 0u) {
      result = utvm_sat_rounding_doubling_high_mul(result, multipliers[k]);
    }
  }
  if (a == 0) {
    result = INT32_MAX;
  }
  return result;
}

/* gemmlowp one_over_one_plus_x_for_x_in_0_1 (Q0.31 in and out). */
static inline int32_t utvm_fx_one_over_one_plus_x(int32_t a) {
  const int32_t half_denominator = utvm_fx_rounding_half_sum(a, INT32_MAX);
  const int32_t constant_48_over_17 = 1515870810;
  const int32_t constant_neg_32_over_17 = -1010580540;
  int32_t x = constant_48_over_17 + utvm_sat_rounding_doubling_high_mul(half_denominator,
                                                                        constant_neg_32_over_17);
  int32_t i;
  for (i = 0; i < 3; ++i) {
    const int32_t half_denominator_times_x = utvm_sat_rounding_doubling_high_mul(half_denominator, x);
    const int32_t one_minus = 0x20000000 - half_denominator_times_x;  /* 1 in Q2.29 is 1 << 29 */
    x = x + utvm_fx_sat_shl(utvm_sat_rounding_doubling_high_mul(x, one_minus), 2);
  }
  return utvm_fx_sat_shl(x, 1);
}

static inline int32_t utvm_clz_u32(uint32_t x) {
  uint32_t v = x;
  int32_t n = 0;
  if (v == 0u) {
    n = 32;
  } else {
    while ((v & 0x80000000u) == 0u) {
      v <<= 1;
      ++n;
    }
  }
  return n;
}

/* int8 input softmax; writes int8 (out8) or int16 (out16) output, the other pointer is NULL. */
static inline void utvm_softmax_s8_impl(const utvm_softmax_s8_params* p, const int8_t* in,
                                        int8_t* out8, int16_t* out16) {
  int32_t out_bits = 16;  /* int16 output; int8 below */
  int32_t out_min = -32768;
  int32_t out_max = 32767;
  int32_t i;
  int32_t c;
  if (out8 != NULL) {
    out_bits = 8;
    out_min = -128;
    out_max = 127;
  }
  for (i = 0; i < p->outer; ++i) {
    const int8_t* x = &in[i * p->depth];
    int32_t max_in_row = -128;
    int32_t sum_of_exps = 0;
    int32_t headroom_plus_one;
    int32_t num_bits_over_unit;
    int32_t shifted_scale;
    int32_t exponent;
    uint32_t shifted_sum_minus_one;
    for (c = 0; c < p->depth; ++c) {
      max_in_row = utvm_max_i32(max_in_row, x[c]);
    }
    for (c = 0; c < p->depth; ++c) {
      const int32_t input_diff = (int32_t)x[c] - max_in_row;
      if (input_diff >= p->diff_min) {
        const int32_t rescaled = utvm_sat_rounding_doubling_high_mul(
            utvm_shl_wrap_i32(input_diff, p->input_left_shift), p->input_multiplier);
        sum_of_exps += utvm_rounding_divide_by_pot(utvm_fx_exp_on_negative_values_q5(rescaled), 12);
      }
    }
    headroom_plus_one = utvm_clz_u32((uint32_t)sum_of_exps);
    num_bits_over_unit = 12 - headroom_plus_one;
    shifted_sum_minus_one = ((uint32_t)sum_of_exps << (uint32_t)headroom_plus_one) - 0x80000000u;
    shifted_scale = utvm_fx_one_over_one_plus_x((int32_t)shifted_sum_minus_one);
    exponent = num_bits_over_unit + 31 - out_bits;
    for (c = 0; c < p->depth; ++c) {
      const int32_t input_diff = (int32_t)x[c] - max_in_row;
      int32_t value = out_min;
      if (input_diff >= p->diff_min) {
        const int32_t rescaled = utvm_sat_rounding_doubling_high_mul(
            utvm_shl_wrap_i32(input_diff, p->input_left_shift), p->input_multiplier);
        const int32_t exp_in_0 = utvm_fx_exp_on_negative_values_q5(rescaled);
        const int32_t unsat = utvm_rounding_divide_by_pot(
            utvm_sat_rounding_doubling_high_mul(shifted_scale, exp_in_0), exponent);
        value = utvm_clamp_i32(unsat + out_min, out_min, out_max);
      }
      if (out8 != NULL) {
        out8[(i * p->depth) + c] = (int8_t)value;
      } else {
        out16[(i * p->depth) + c] = (int16_t)value;
      }
    }
  }
}

#endif /* UTVM_KERNELS_SOFTMAX_H_ */
