/* utvm-build kernels: hybrid BATCH_MATMUL: float32 LHS, constant int8 RHS (see hybrid.h and
 * batch_matmul.h). batch_matmul.cc EvalHybrid: every LHS row (K values) is quantized on its own
 * (hybrid_quantize.h; scale and offset index = LHS row), then reference_ops::BatchMatMul's hybrid
 * overload: total = int32 dot product, total -= row_sum * offset computed in float (as the
 * reference writes it: an int32 minus a float product, converted back to int32), output =
 * scale * total with scale = the row's input scale (times the RHS column's scale, per-channel). */
#ifndef UTVM_KERNELS_HYBRID_BMM_H_
#define UTVM_KERNELS_HYBRID_BMM_H_

#include "batch_matmul.h"
#include "hybrid.h"

typedef struct {
  utvm_bmm_geom g;
  int32_t row_sums_ext[3]; /* stride of each batch dimension in row_sums (0: broadcast) */
} utvm_hybrid_bmm_params;

static void utvm_hybrid_bmm(const utvm_hybrid_bmm_params* p, const int8_t* q, const float* sf,
                            const int32_t* offset, const int8_t* rhs, const int32_t* row_sums,
                            const float* channel_scale, float* out) {
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
        const int32_t sb = (b0 * p->row_sums_ext[0]) + (b1 * p->row_sums_ext[1]) + (b2 * p->row_sums_ext[2]);
        utvm_bmm_bases(g, b0, b1, b2, &lb, &rb);
        for (m = 0; m < g->rows; ++m) {
          const int8_t* a = &q[lb + (m * g->lhs_row_stride)];
          const int32_t row = (lb / g->depth) + m;
          const float row_offset = (float)offset[row];
          for (n = 0; n < g->cols; ++n) {
            const int8_t* b = &rhs[rb + (n * g->rhs_col_stride)];
            int32_t total = 0;
            float scale = sf[row];
            float reduced;
            for (k = 0; k < g->depth; ++k) {
              total += (int32_t)a[k * g->lhs_depth_stride] * (int32_t)b[k * g->rhs_depth_stride];
            }
            reduced = (float)total - ((float)row_sums[sb + n] * row_offset);
            total = utvm_hybrid_to_i32(reduced);
            if (channel_scale != NULL) {
              scale = scale * channel_scale[n];
            }
            out[o] = scale * (float)total;
            o += 1;
          }
        }
      }
    }
  }
}

#endif /* UTVM_KERNELS_HYBRID_BMM_H_ */
