/* utvm-build kernels: DIV with TFLite broadcasting, float32 and int32 (reference_ops::Div /
 * BroadcastDivSlow: a / b, then the fused activation clamp). int32 divides toward zero; a zero
 * divisor (the reference divides anyway: a crash or undefined behaviour) gives 0 here and
 * INT32_MIN / -1 gives INT32_MIN (two's complement wrap-around), so no input is undefined. */
#ifndef UTVM_KERNELS_DIV_H_
#define UTVM_KERNELS_DIV_H_

#include "ew_walk.h"

typedef struct {
  float act_min;
  float act_max;
} utvm_div_f32_params;

typedef struct {
  int32_t act_min;
  int32_t act_max;
} utvm_div_s32_params;

static inline float utvm_div_f32_one(const utvm_div_f32_params* p, float a, float b) {
  return utvm_clamp_f32(a / b, p->act_min, p->act_max);
}

static inline void utvm_div_f32(const utvm_div_f32_params* p, const utvm_ew_shape* sh, const float* in1,
                                const float* in2, float* out) {
  UTVM_EW_EACH(sh, out, utvm_div_f32_one(p, in1[UTVM_EW_I1], in2[UTVM_EW_I2]));
}

static inline int32_t utvm_div_s32_one(const utvm_div_s32_params* p, int32_t a, int32_t b) {
  int32_t q;
  if (b == 0) {
    q = 0;
  } else if ((b == -1) && (a == INT32_MIN)) {
    q = (int32_t)INT32_MIN;
  } else {
    q = a / b;
  }
  return utvm_clamp_i32(q, p->act_min, p->act_max);
}

static inline void utvm_div_s32(const utvm_div_s32_params* p, const utvm_ew_shape* sh, const int32_t* in1,
                                const int32_t* in2, int32_t* out) {
  UTVM_EW_EACH(sh, out, utvm_div_s32_one(p, in1[UTVM_EW_I1], in2[UTVM_EW_I2]));
}

#endif /* UTVM_KERNELS_DIV_H_ */
