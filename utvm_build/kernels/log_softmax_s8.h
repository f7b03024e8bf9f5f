/* utvm-build kernels: LOG_SOFTMAX, int8 (output scale 16/256, zero point 127): TFLite
 * reference_integer_ops::LogSoftmax, bit for bit. Per row: diffs to the row maximum scaled to Q5.26,
 * gemmlowp exp_on_negative_values summed in Q12.19, log_x_for_x_greater_than_or_equal_to_1 (TFLite
 * common.h, with gemmlowp's one_over_one_plus_x_for_x_in_0_1) in Q5.26, then
 * out = clamp(RoundingDivideByPOT(diff_q5 - log_sum_q5, 22) + 127) for diffs above the adjusted
 * minimum, -128 below it. The fixed-point helpers shared with SOFTMAX are in softmax.h. */
#ifndef UTVM_KERNELS_LOG_SOFTMAX_S8_H_
#define UTVM_KERNELS_LOG_SOFTMAX_S8_H_

#include "softmax.h"

typedef struct {
  int32_t outer;
  int32_t depth;
  int32_t input_multiplier;
  int32_t input_left_shift;
  int32_t reverse_multiplier;
  int32_t reverse_shift;    /* <= 0: MultiplyByQuantizedMultiplier's shift */
  int32_t diff_min;
} utvm_log_softmax_s8_params;

/* int32 + and - with two's complement wrap (gemmlowp's raw fixed-point arithmetic) */
static inline int32_t utvm_lsm_add(int32_t a, int32_t b) {
  const uint32_t s = (uint32_t)a + (uint32_t)b;
  return (int32_t)s;
}

static inline int32_t utvm_lsm_sub(int32_t a, int32_t b) {
  const uint32_t d = (uint32_t)a - (uint32_t)b;
  return (int32_t)d;
}

/* SaturatingRoundingMultiplyByPOTParam for exponent >= 0. */
static inline int32_t utvm_lsm_sat_pot(int32_t x, int32_t exponent) {
  return (exponent == 0) ? x : utvm_fx_sat_shl(x, exponent);
}

static inline int32_t utvm_lsm_sat_add(int32_t a, int32_t b) {
  const int64_t s = (int64_t)a + (int64_t)b;
  return (s > (int64_t)INT32_MAX) ? INT32_MAX : ((s < (int64_t)INT32_MIN) ? (int32_t)INT32_MIN : (int32_t)s);
}

static inline int32_t utvm_lsm_sat_sub(int32_t a, int32_t b) {
  const int64_t s = (int64_t)a - (int64_t)b;
  return (s > (int64_t)INT32_MAX) ? INT32_MAX : ((s < (int64_t)INT32_MIN) ? (int32_t)INT32_MIN : (int32_t)s);
}

/* log_x_for_x_greater_than_or_equal_to_1<5>(Q12.19 input): Q5.26 result (accumulation in Q6.25). */
static inline int32_t utvm_lsm_log_q12_to_q5(int32_t input) {
  const int32_t log_2 = 1488522236;
  const int32_t sqrt_sqrt_half = 1805811301;
  const int32_t sqrt_half = 1518500250;
  const int32_t alpha_n = 117049297;
  const int32_t alpha_d = 127690142;
  const int32_t alpha_i = 1057819769;
  const int32_t alpha_f = 638450708;
  const int32_t shifted_quarter = utvm_rounding_divide_by_pot(536870912, 6);
  const int32_t za_hr1 = utvm_clz_u32((uint32_t)input);
  const int32_t r_a_tmp = utvm_lsm_sat_pot(input, za_hr1 - 1);
  const int32_t r_a = utvm_lsm_sat_pot(utvm_sat_rounding_doubling_high_mul(r_a_tmp, sqrt_half), 1);
  const int32_t za_adj = utvm_lsm_sat_add(utvm_lsm_sat_pot(12 - za_hr1, 25), shifted_quarter);
  const int32_t z_b = utvm_sat_rounding_doubling_high_mul(input, sqrt_half);
  const int32_t zb_hr = utvm_clz_u32((uint32_t)z_b) - 1;
  const int32_t r_b = utvm_lsm_sat_pot(input, zb_hr);
  const int32_t zb_adj = utvm_lsm_sat_sub(utvm_lsm_sat_pot(12 - zb_hr, 25), shifted_quarter);
  const int32_t r = (r_a < r_b) ? r_a : r_b;
  const int32_t z_adj = (za_adj > zb_adj) ? za_adj : zb_adj;
  const int32_t pp = utvm_fx_rounding_half_sum(r, sqrt_sqrt_half);
  const int32_t q1 = utvm_lsm_sub(r, sqrt_sqrt_half);
  const int32_t q = utvm_lsm_add(q1, q1);
  const int32_t common_sq = utvm_sat_rounding_doubling_high_mul(q, q);
  const int32_t num = utvm_lsm_add(utvm_sat_rounding_doubling_high_mul(q, r),
                                   utvm_sat_rounding_doubling_high_mul(
                                       utvm_sat_rounding_doubling_high_mul(q, common_sq), alpha_n));
  const int32_t inner = utvm_lsm_add(utvm_lsm_add(alpha_i, q), utvm_sat_rounding_doubling_high_mul(alpha_d, common_sq));
  const int32_t denom_minus_one = utvm_lsm_add(utvm_sat_rounding_doubling_high_mul(pp, inner),
                                               utvm_sat_rounding_doubling_high_mul(alpha_f, q));
  const int32_t recip = utvm_fx_one_over_one_plus_x(denom_minus_one);
  const int32_t num_scaled = utvm_rounding_divide_by_pot(num, 6);
  const int32_t sum = utvm_lsm_add(utvm_sat_rounding_doubling_high_mul(z_adj, log_2),
                                   utvm_sat_rounding_doubling_high_mul(num_scaled, recip));
  return utvm_fx_sat_shl(sum, 1);
}

static void utvm_log_softmax_s8(const utvm_log_softmax_s8_params* p, const int8_t* in, int8_t* out) {
  int32_t i;
  int32_t c;
  for (i = 0; i < p->outer; ++i) {
    const int8_t* x = &in[i * p->depth];
    int32_t max = -128;
    int32_t sum = 0;
    int32_t log_sum;
    int32_t adjusted;
    for (c = 0; c < p->depth; ++c) {
      max = ((int32_t)x[c] > max) ? (int32_t)x[c] : max;
    }
    for (c = 0; c < p->depth; ++c) {
      const int32_t diff = (int32_t)x[c] - max;
      if (diff >= p->diff_min) {
        const int32_t q5 = utvm_mul_by_quantized_mul(diff, p->input_multiplier, p->input_left_shift);
        sum = utvm_lsm_add(sum, utvm_rounding_divide_by_pot(utvm_fx_exp_on_negative_values_q5(q5), 12));
      }
    }
    log_sum = utvm_lsm_log_q12_to_q5(sum);
    adjusted = utvm_mul_by_quantized_mul(utvm_lsm_add(log_sum, (int32_t)INT32_MIN), p->reverse_multiplier,
                                         p->reverse_shift);
    adjusted = (adjusted > (p->diff_min - 1)) ? adjusted : (p->diff_min - 1);
    for (c = 0; c < p->depth; ++c) {
      const int32_t diff = (int32_t)x[c] - max;
      int32_t r = -128;
      if (diff > adjusted) {
        const int32_t q5 = utvm_mul_by_quantized_mul(diff, p->input_multiplier, p->input_left_shift);
        r = utvm_clamp_i32(utvm_rounding_divide_by_pot(utvm_lsm_sub(q5, log_sum), 22) + 127, -128, 127);
      }
      out[(i * p->depth) + c] = (int8_t)r;
    }
  }
}

#endif /* UTVM_KERNELS_LOG_SOFTMAX_S8_H_ */
