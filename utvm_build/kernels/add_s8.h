/* utvm-build kernels: ADD / SUB, int8.
 *
 * TFLite reference: reference_integer_ops::AddElementwise / BroadcastAdd4DSlow (int8) and
 * reference_ops::AddGeneralParamScale / BroadcastAdd4DSlow (int16 general scale). SUB uses the
 * same arithmetic with input2_multiplier negated (sub.cc PrepareGeneralSubOp, op_sign = -1).
 */
#ifndef UTVM_KERNELS_ADD_S8_H_
#define UTVM_KERNELS_ADD_S8_H_

#include "elementwise.h"

static inline int8_t utvm_add_s8_one(const utvm_add_q_params* p, int32_t a, int32_t b) {
  const int32_t shifted1 = (p->input1_offset + a) * utvm_pow2_i32(p->left_shift);
  const int32_t shifted2 = (p->input2_offset + b) * utvm_pow2_i32(p->left_shift);
  const int32_t scaled1 = utvm_mul_by_quantized_mul_lt1(shifted1, p->input1_multiplier, p->input1_shift);
  const int32_t scaled2 = utvm_mul_by_quantized_mul_lt1(shifted2, p->input2_multiplier, p->input2_shift);
  const int32_t raw = utvm_mul_by_quantized_mul_lt1(scaled1 + scaled2, p->output_multiplier, p->output_shift) +
                      p->output_offset;
  return (int8_t)utvm_clamp_i32(raw, p->act_min, p->act_max);
}

static void utvm_add_s8(const utvm_add_q_params* p, const utvm_ew_shape* sh, const int8_t* in1,
                        const int8_t* in2, int8_t* out) {
  int32_t i;
  if (sh->broadcast == 0) {
    for (i = 0; i < sh->size; ++i) {
      out[i] = utvm_add_s8_one(p, in1[i], in2[i]);
    }
  } else {
    const int32_t n = sh->dims[UTVM_EW_MAX_DIMS - 1];
    const int32_t s1 = sh->stride1[UTVM_EW_MAX_DIMS - 1];
    const int32_t s2 = sh->stride2[UTVM_EW_MAX_DIMS - 1];
    const int32_t rows = utvm_ew_rows(sh);
    int32_t r;
    int8_t* dst = out;
    utvm_ew_iter it;
    utvm_ew_iter_init(&it);
    for (r = 0; r < rows; ++r) {
      for (i = 0; i < n; ++i) {
        *dst = utvm_add_s8_one(p, in1[it.o1 + (i * s1)], in2[it.o2 + (i * s2)]);
        ++dst;
      }
      utvm_ew_iter_next(sh, &it);
    }
  }
}

#endif /* UTVM_KERNELS_ADD_S8_H_ */
