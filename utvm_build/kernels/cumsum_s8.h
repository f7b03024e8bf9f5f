/* utvm-build kernels: CUMSUM, int8 (TFLite Micro cumsum.cc / reference_ops::CumSum(ArithmeticParams);
 * TFLite 2.14 has no int8 CUMSUM).
 *
 * Every element is rescaled as TFLite's quantized ADD does it (left_shift 20, input multiplier 1/2:
 * scaled = MultiplyByQuantizedMultiplierSmallerThanOneExp((x - zp_in) << 20, ...)) and summed in
 * int32 along the axis; each running sum is rescaled to the output (output multiplier
 * 2 s_in / (2^20 s_out)), offset by the output zero point and clamped to int8. As in the
 * reference, the sum starts from the rescaled input offset (-zp_in), not from 0. Where the int32
 * sum exceeds int32 (about 16 elements at the extremes: the reference's signed overflow is
 * undefined) it wraps in two's complement, as TFLite Micro's build does (so does adding the output
 * zero point to a rescaled sum near INT32_MAX).
 */
#ifndef UTVM_KERNELS_CUMSUM_S8_H_
#define UTVM_KERNELS_CUMSUM_S8_H_

#include "cumsum.h"

typedef struct {
  int32_t left_shift;
  int32_t input_offset;
  int32_t input_multiplier;
  int32_t input_shift;     /* <= 0 */
  int32_t output_offset;
  int32_t output_multiplier;
  int32_t output_shift;    /* <= 0 */
  int32_t act_min;
  int32_t act_max;
} utvm_cumsum_s8_params;

static inline int32_t utvm_cumsum_s8_scale_in(const utvm_cumsum_s8_params* q, int32_t y) {
  return utvm_mul_by_quantized_mul(utvm_shl_wrap_i32(y, q->left_shift), q->input_multiplier, q->input_shift);
}

static inline int32_t utvm_cumsum_s8_load(const utvm_cumsum_s8_params* q, int8_t x) {
  return utvm_cumsum_s8_scale_in(q, q->input_offset + (int32_t)x);
}

static inline int8_t utvm_cumsum_s8_out(const utvm_cumsum_s8_params* q, int32_t sum) {
  const int32_t v = utvm_cumsum_s32_add(utvm_mul_by_quantized_mul(sum, q->output_multiplier, q->output_shift),
                                            q->output_offset);
  return (int8_t)utvm_clamp_i32(v, q->act_min, q->act_max);
}

static inline void utvm_cumsum_s8(const utvm_cumsum_params* p, const utvm_cumsum_s8_params* q, const int8_t* in,
                                  int8_t* out) {
  const int32_t start = utvm_cumsum_s8_scale_in(q, q->input_offset);
  UTVM_CUMSUM(p, q, in, out, int32_t, start, utvm_cumsum_s8_load, utvm_cumsum_s32_add, utvm_cumsum_s8_out);
}

#endif /* UTVM_KERNELS_CUMSUM_S8_H_ */
