/* utvm-build kernels: BATCH_MATMUL, int16 (16x16, zero points 0, int64 accumulator) (see batch_matmul.h). */
#ifndef UTVM_KERNELS_BATCH_MATMUL_S16_H_
#define UTVM_KERNELS_BATCH_MATMUL_S16_H_

#include "batch_matmul.h"

static void utvm_batch_matmul_s16(const utvm_bmm_q_params* p, const int16_t* lhs, const int16_t* rhs, int16_t* out) {
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
          const int16_t* a = &lhs[lb + (m * g->lhs_row_stride)];
          for (n = 0; n < g->cols; ++n) {
            const int16_t* b = &rhs[rb + (n * g->rhs_col_stride)];
            int64_t total = 0;
            for (k = 0; k < g->depth; ++k) {
              total += (int64_t)b[k * g->rhs_depth_stride] * (int64_t)a[k * g->lhs_depth_stride];
            }
            out[o] = (int16_t)utvm_clamp_i32(utvm_mul_by_quantized_mul64(total, p->multiplier, p->shift) + p->output_offset,
                                      p->out_min, p->out_max);
            o += 1;
          }
        }
      }
    }
  }
}

#endif /* UTVM_KERNELS_BATCH_MATMUL_S16_H_ */
