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
  int32_t i;
  if (sh->broadcast == 0) {
    for (i = 0; i < sh->size; ++i) {
      out[i] = utvm_add_f32_one(p, in1[i], in2[i]);
    }
  } else {
    const int32_t n = sh->dims[UTVM_EW_MAX_DIMS - 1];
    const int32_t s1 = sh->stride1[UTVM_EW_MAX_DIMS - 1];
    const int32_t s2 = sh->stride2[UTVM_EW_MAX_DIMS - 1];
    const int32_t rows = utvm_ew_rows(sh);
    int32_t r;
    float* dst = out;
    utvm_ew_iter it;
    utvm_ew_iter_init(&it);
    for (r = 0; r < rows; ++r) {
      for (i = 0; i < n; ++i) {
        *dst = utvm_add_f32_one(p, in1[it.o1 + (i * s1)], in2[it.o2 + (i * s2)]);
        ++dst;
      }
      utvm_ew_iter_next(sh, &it);
    }
  }
}

#endif /* UTVM_KERNELS_ADD_F32_H_ */
