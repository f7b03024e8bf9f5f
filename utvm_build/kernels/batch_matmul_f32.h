/* utvm-build kernels: BATCH_MATMUL, float32 (see batch_matmul.h). */
#ifndef UTVM_KERNELS_BATCH_MATMUL_F32_H_
#define UTVM_KERNELS_BATCH_MATMUL_F32_H_

#include "batch_matmul.h"

typedef struct {
  utvm_bmm_geom g;
} utvm_bmm_f32_params;

static void utvm_batch_matmul_f32(const utvm_bmm_f32_params* p, const float* lhs, const float* rhs, float* out) {
  const utvm_bmm_geom* g = &p->g;
  int32_t b0;
  int32_t b1;
  int32_t b2;
  int32_t m;
  int32_t n;
  int32_t k;
  int32_t o = 0;
  for (b0 = 0; b0 < g->batch[0]; ++b0) {
    for (b1 = 0; b1 < g->batch[1]; ++b1) {
      for (b2 = 0; b2 < g->batch[2]; ++b2) {
        int32_t lb;
        int32_t rb;
        utvm_bmm_bases(g, b0, b1, b2, &lb, &rb);
        for (m = 0; m < g->rows; ++m) {
          const float* a = &lhs[lb + (m * g->lhs_row_stride)];
          for (n = 0; n < g->cols; ++n) {
            const float* b = &rhs[rb + (n * g->rhs_col_stride)];
            float total = 0.0f;
            for (k = 0; k < g->depth; ++k) {
              total += b[k * g->rhs_depth_stride] * a[k * g->lhs_depth_stride];
            }
            out[o] = total;
            o += 1;
          }
        }
      }
    }
  }
}

#endif /* UTVM_KERNELS_BATCH_MATMUL_F32_H_ */
