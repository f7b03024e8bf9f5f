/* utvm-build kernels: MUL, int8 (TFLite reference_integer_ops::MulElementwise / BroadcastMul4DSlow):
 * out = output_offset + MultiplyByQuantizedMultiplier((in1 + off1) * (in2 + off2)), clamped. */
#ifndef UTVM_KERNELS_MUL_S8_H_
#define UTVM_KERNELS_MUL_S8_H_

#include "elementwise.h"

static inline int8_t utvm_mul_s8_one(const utvm_mul_q_params* p, int32_t a, int32_t b) {
  const int32_t prod = (p->input1_offset + a) * (p->input2_offset + b);
  const int32_t raw = p->output_offset +
                      utvm_mul_by_quantized_mul(prod, p->output_multiplier, p->output_shift);
  return (int8_t)utvm_clamp_i32(raw, p->act_min, p->act_max);
}

static void utvm_mul_s8(const utvm_mul_q_params* p, const utvm_ew_shape* sh, const int8_t* in1,
                        const int8_t* in2, int8_t* out) {
  int32_t i;
  if (sh->broadcast == 0) {
    for (i = 0; i < sh->size; ++i) {
      out[i] = utvm_mul_s8_one(p, in1[i], in2[i]);
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
        *dst = utvm_mul_s8_one(p, in1[it.o1 + (i * s1)], in2[it.o2 + (i * s2)]);
        ++dst;
      }
      utvm_ew_iter_next(sh, &it);
    }
  }
}

#endif /* UTVM_KERNELS_MUL_S8_H_ */
