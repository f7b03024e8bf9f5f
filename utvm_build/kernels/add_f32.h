/* utvm-build kernels: ADD / SUB, float32 (reference_ops::Add / BroadcastAdd4DSlow,
 * SubWithActivation / BroadcastSubSlow): one IEEE add or subtract, then the activation clamp. */
#ifndef UTVM_KERNELS_ADD_F32_H_
#define UTVM_KERNELS_ADD_F32_H_

#include "elementwise.h"

typedef struct {
  int32_t subtract; /* 0: in1 + in2, 1: in1 - in2 */
  float act_min;
  float act_max;
} utvm_add_f32_params;

static inline float utvm_add_f32_one(const utvm_add_f32_params* p, float a, float b) {
  float r;
  if (p->subtract != 0) {
    r = a - b;
  } else {
    r = a + b;
  }
  return utvm_clamp_f32(r, p->act_min, p->act_max);
}

static void utvm_add_f32(const utvm_add_f32_params* p, const utvm_ew_shape* sh, const float* in1,
                         const float* in2, float* out) {
  UTVM_EW_BINARY(float, utvm_add_f32_one, p, sh, in1, in2, out);
}

#endif /* UTVM_KERNELS_ADD_F32_H_ */
