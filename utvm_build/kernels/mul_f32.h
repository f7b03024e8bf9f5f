/* utvm-build kernels: MUL, float32 (reference_ops::Mul / BroadcastMul4DSlow):
 * one IEEE multiply, then the activation clamp. */
#ifndef UTVM_KERNELS_MUL_F32_H_
#define UTVM_KERNELS_MUL_F32_H_

#include "elementwise.h"

typedef struct {
  float act_min;
  float act_max;
} utvm_mul_f32_params;

static inline float utvm_mul_f32_one(const utvm_mul_f32_params* p, float a, float b) {
  return utvm_clamp_f32(a * b, p->act_min, p->act_max);
}

static void utvm_mul_f32(const utvm_mul_f32_params* p, const utvm_ew_shape* sh, const float* in1,
                         const float* in2, float* out) {
  UTVM_EW_BINARY(float, utvm_mul_f32_one, p, sh, in1, in2, out);
}

#endif /* UTVM_KERNELS_MUL_F32_H_ */
