/* utvm-build kernels: ADD, SUB, MUL, int32 (reference_ops::Add / Sub / Mul and their broadcast
 * versions): the int32 result with two's complement wrap-around (what the reference's int32
 * arithmetic gives in practice; undefined in C, so computed on uint32_t), then the fused activation
 * clamp (CalculateActivationRange<int32_t>). */
#ifndef UTVM_KERNELS_ARITH_S32_H_
#define UTVM_KERNELS_ARITH_S32_H_

#include "ew_walk.h"

#define UTVM_ARITH_ADD 0
#define UTVM_ARITH_SUB 1
#define UTVM_ARITH_MUL 2

typedef struct {
  int32_t op; /* UTVM_ARITH_* */
  int32_t act_min;
  int32_t act_max;
} utvm_arith_s32_params;

static inline int32_t utvm_arith_s32_one(const utvm_arith_s32_params* p, int32_t x1, int32_t x2) {
  const uint32_t a = (uint32_t)x1;
  const uint32_t b = (uint32_t)x2;
  uint32_t r;
  if (p->op == UTVM_ARITH_ADD) {
    r = a + b;
  } else if (p->op == UTVM_ARITH_SUB) {
    r = a - b;
  } else {
    r = a * b;
  }
  return utvm_clamp_i32((int32_t)r, p->act_min, p->act_max);
}

static void utvm_arith_s32(const utvm_arith_s32_params* p, const utvm_ew_shape* sh, const int32_t* in1,
                           const int32_t* in2, int32_t* out) {
  UTVM_EW_EACH(sh, out, utvm_arith_s32_one(p, in1[UTVM_EW_I1], in2[UTVM_EW_I2]));
}

#endif /* UTVM_KERNELS_ARITH_S32_H_ */
