/* utvm-build kernels: FULLY_CONNECTED integer parameter struct
 * (kernels: fully_connected_{s8,s8_pc,s16,s16_pc}.h; fully_connected_f32.h has its own struct
 * and shares the walk UTVM_FC_WALK).
 *
 * out[b][c] = act(requant(bias[c] + sum_d w[c][d] * (x[b][d] + input_offset)))
 * The int8 kernel receives a bias with input_offset * sum_d w[c][d] already folded in (computed at
 * code generation), so the inner loop is a plain dot product.
 */
#ifndef UTVM_KERNELS_FULLY_CONNECTED_H_
#define UTVM_KERNELS_FULLY_CONNECTED_H_

#include "common.h"

typedef struct {
  int32_t batches;
  int32_t accum_depth;
  int32_t out_depth;
  int32_t output_offset;
  int32_t multiplier;
  int32_t shift;
  int32_t act_min;
  int32_t act_max;
  int32_t acc32;   /* 16x8 without an int64 bias: int32 accumulator and MultiplyByQuantizedMultiplier */
} utvm_fc_q_params;

/* The walk of the FULLY_CONNECTED kernels with a plain dot product (fully_connected_{s16,s16_pc,
 * f32}.h): for each output (batch, channel) in output order, ACC acc = ZERO, acc = MAC(acc, w, x)
 * over the depth in ascending order, then out = FINISH(p, bias, mult, shift, channel, acc). The
 * element operations are the type's static inline functions; the macro expands in place. */
#define UTVM_FC_WALK(p, in, w, bias, mult, shift, out, T, WT, ACC, ZERO, MAC, FINISH)                        \
  do {                                                                                                      \
    int32_t b_;                                                                                             \
    int32_t c_;                                                                                             \
    int32_t d_;                                                                                             \
    for (b_ = 0; b_ < (p)->batches; ++b_) {                                                                 \
      const T* x_ = &(in)[b_ * (p)->accum_depth];                                                           \
      for (c_ = 0; c_ < (p)->out_depth; ++c_) {                                                             \
        const WT* wc_ = &(w)[c_ * (p)->accum_depth];                                                       \
        ACC acc_ = (ZERO);                                                                                  \
        for (d_ = 0; d_ < (p)->accum_depth; ++d_) {                                                         \
          acc_ = MAC(acc_, wc_[d_], x_[d_]);                                                                \
        }                                                                                                   \
        (out)[(b_ * (p)->out_depth) + c_] = FINISH((p), (bias), (mult), (shift), c_, acc_);                 \
      }                                                                                                     \
    }                                                                                                       \
  } while (0)

/* 16x8 (fully_connected_s16.h, _s16_pc.h): int64 sums of int8 * int16, then bias (may be NULL) and
 * the requantization with channel c's multiplier and shift. p->acc32: the reference's int32
 * instantiation (int32 sums wrap, the int32 MultiplyByQuantizedMultiplier). */
static inline int64_t utvm_fc_s16_mac(int64_t acc, int8_t w, int16_t x) {
  const int32_t prod = (int32_t)w * (int32_t)x;
  return acc + (int64_t)prod;
}

static inline int16_t utvm_fc_s16_out(const utvm_fc_q_params* p, const int64_t* bias, int32_t mult, int32_t shift,
                                      int32_t c, int64_t acc) {
  int64_t total = acc;
  int32_t r;
  if (bias != NULL) {
    total += bias[c];
  }
  if (p->acc32 != 0) {
    r = utvm_mul_by_quantized_mul((int32_t)(uint32_t)total, mult, shift);
  } else {
    r = utvm_mul_by_quantized_mul64(total, mult, shift);
  }
  return (int16_t)utvm_clamp_i32(r, p->act_min, p->act_max);
}

#endif /* UTVM_KERNELS_FULLY_CONNECTED_H_ */
