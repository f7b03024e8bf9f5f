/* utvm-build kernels: ADD / SUB, int16 with general scales (left_shift 15).
 *
 * TFLite reference: reference_integer_ops::AddElementwise / BroadcastAdd4DSlow (int8) and
 * reference_ops::AddGeneralParamScale / BroadcastAdd4DSlow (int16 general scale). SUB uses the
 * same arithmetic with input2_multiplier negated (sub.cc PrepareGeneralSubOp, op_sign = -1).
 */
#ifndef UTVM_KERNELS_ADD_S16_H_
#define UTVM_KERNELS_ADD_S16_H_

#include "elementwise.h"

static inline int16_t utvm_add_s16_one(const utvm_add_q_params* p, int32_t a, int32_t b) {
  const int32_t shifted1 = (p->input1_offset + a) * utvm_pow2_i32(p->left_shift);
  const int32_t shifted2 = (p->input2_offset + b) * utvm_pow2_i32(p->left_shift);
  const int32_t scaled1 = utvm_mul_by_quantized_mul_lt1(shifted1, p->input1_multiplier, p->input1_shift);
  const int32_t scaled2 = utvm_mul_by_quantized_mul_lt1(shifted2, p->input2_multiplier, p->input2_shift);
  const int32_t raw = utvm_mul_by_quantized_mul_lt1(scaled1 + scaled2, p->output_multiplier, p->output_shift) +
                      p->output_offset;
  return (int16_t)utvm_clamp_i32(raw, p->act_min, p->act_max);
}

static void utvm_add_s16(const utvm_add_q_params* p, const utvm_ew_shape* sh, const int16_t* in1,
                        const int16_t* in2, int16_t* out) {
  UTVM_EW_BINARY(int16_t, utvm_add_s16_one, p, sh, in1, in2, out);
}

#endif /* UTVM_KERNELS_ADD_S16_H_ */
