/* utvm-build kernels: SOFTMAX, int16 (reference_ops::SoftmaxInt16 with two 513-entry LUTs made at
 * code generation: exp on [-10, 0] and 1 / (1 + x) on [0, 1]). */
#ifndef UTVM_KERNELS_SOFTMAX_S16_H_
#define UTVM_KERNELS_SOFTMAX_S16_H_

#include "softmax.h"

typedef struct {
  int32_t outer;
  int32_t depth;
  int32_t input_multiplier;
  int32_t input_left_shift;
} utvm_softmax_s16_params;

/* TFLite LUTLookup(int16): 512 base values plus one for the last slope. */
static inline int16_t utvm_lut_lookup_s16(int16_t value, const int16_t* lut) {
  const int32_t index = 256 + ((int32_t)value >> 7);
  const int32_t offset = (int32_t)value & 0x7f;
  const int32_t base = lut[index];
  const int32_t slope = (int32_t)(int16_t)(lut[index + 1] - lut[index]);
  const int32_t delta = ((slope * offset) + 64) >> 7;
  return (int16_t)(base + delta);
}

/* The largest value of a row. */
static inline int32_t utvm_softmax_s16_row_max(const int16_t* x, int32_t depth) {
  int32_t m = -32768;
  int32_t c;
  for (c = 0; c < depth; ++c) {
    m = utvm_max_i32(m, x[c]);
  }
  return m;
}

/* One row: the exponentials (in y, which doubles as their cache, as in the reference), then y scaled
 * by the reciprocal of their sum. */
static inline void utvm_softmax_s16_row(const utvm_softmax_s16_params* p, const int16_t* exp_lut,
                                        const int16_t* one_over_one_plus_x_lut, const int16_t* x, int16_t* y) {
  const int32_t max_in_row = utvm_softmax_s16_row_max(x, p->depth);
  int32_t sum_of_exps = 0;
  int32_t c;
  for (c = 0; c < p->depth; ++c) {
    const int32_t input_diff = (int32_t)x[c] - max_in_row;
    const int32_t scaled_diff = utvm_mul_by_quantized_mul(input_diff, p->input_multiplier, p->input_left_shift);
    const int32_t sym_scaled_diff = utvm_clamp_i32(scaled_diff + 32767, -32768, 32767);
    y[c] = utvm_lut_lookup_s16((int16_t)sym_scaled_diff, exp_lut);
    sum_of_exps += y[c];
  }
  {
    const int32_t headroom_plus_one = utvm_clz_u32((uint32_t)sum_of_exps);
    const int32_t shifted_sum = (int32_t)((((int64_t)sum_of_exps << (headroom_plus_one - 1)) + (1 << 13)) >> 14);
    /* 98304 = (1 << 15) + (1 << 16) */
    const int32_t sym_shifted_sum = utvm_clamp_i32(shifted_sum - 98304, -32768, 32767);
    const int32_t reciprocal = utvm_lut_lookup_s16((int16_t)sym_shifted_sum, one_over_one_plus_x_lut);
    const int32_t right_shift = 31 - headroom_plus_one;
    const int64_t round = utvm_pow2_i64(right_shift - 1);
    for (c = 0; c < p->depth; ++c) {
      const int32_t result = (int32_t)((((int64_t)y[c] * (int64_t)reciprocal) + round) >> right_shift);
      y[c] = (int16_t)utvm_clamp_i32(result, 0, 32767);
    }
  }
}

static void utvm_softmax_s16(const utvm_softmax_s16_params* p, const int16_t* exp_lut,
                             const int16_t* one_over_one_plus_x_lut, const int16_t* in, int16_t* out) {
  int32_t i;
  for (i = 0; i < p->outer; ++i) {
    utvm_softmax_s16_row(p, exp_lut, one_over_one_plus_x_lut, &in[i * p->depth], &out[i * p->depth]);
  }
}

#endif /* UTVM_KERNELS_SOFTMAX_S16_H_ */
