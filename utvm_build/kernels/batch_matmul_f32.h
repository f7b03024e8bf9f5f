/* utvm-build kernels: BATCH_MATMUL, float32 (see batch_matmul.h). */
#ifndef UTVM_KERNELS_BATCH_MATMUL_F32_H_
#define UTVM_KERNELS_BATCH_MATMUL_F32_H_

#include "batch_matmul.h"

typedef struct {
  utvm_bmm_geom g;
} utvm_bmm_f32_params;

static inline float utvm_bmm_f32_mac(const utvm_bmm_f32_params* p, float total, float r, float a) {
  (void)p;
  return total + (r * a);
}

static inline float utvm_bmm_f32_out(const utvm_bmm_f32_params* p, float total) {
  (void)p;
  return total;
}

static void utvm_batch_matmul_f32(const utvm_bmm_f32_params* p, const float* lhs, const float* rhs, float* out) {
  UTVM_BMM_WALK(p, &p->g, lhs, rhs, out, float, float, utvm_bmm_f32_mac, utvm_bmm_f32_out);
}

#endif /* UTVM_KERNELS_BATCH_MATMUL_F32_H_ */
