/* utvm-build kernels: BATCH_MATMUL geometry and the int8/int16 parameters
 * (kernels: batch_matmul_{s8,s16,f32}.h, hybrid_bmm.h).
 *
 * out[b][m][n] = sum_k lhs[b][m][k] * rhs[b][k][n] over up to three broadcast batch dimensions
 * (TFLite reference_ops::BatchMatMul, which batch_matmul.cc calls with the operands swapped: the
 * sum runs over k in ascending order for every output, so float32 results are bit-exact).
 * Operands are read through strides: adj_x / adj_y and the broadcast batch dimensions (stride 0)
 * need no copies, and a constant RHS is stored transposed at code generation ([.., N, K], the
 * layout the reference transposes it to once) so that its depth stride is 1.
 */
#ifndef UTVM_KERNELS_BATCH_MATMUL_H_
#define UTVM_KERNELS_BATCH_MATMUL_H_

#include "common.h"

typedef struct {
  int32_t batch[3];      /* broadcast output batch dimensions (leading 1s) */
  int32_t lhs_ext[3];    /* element stride of each batch dimension in lhs (0: broadcast) */
  int32_t rhs_ext[3];
  int32_t rows;          /* M */
  int32_t cols;          /* N */
  int32_t depth;         /* K */
  int32_t lhs_row_stride;
  int32_t lhs_depth_stride;
  int32_t rhs_depth_stride;
  int32_t rhs_col_stride;
} utvm_bmm_geom;

typedef struct {
  utvm_bmm_geom g;
  int32_t lhs_offset;    /* -lhs zero point */
  int32_t rhs_offset;    /* -rhs zero point */
  int32_t output_offset;
  int32_t multiplier;
  int32_t shift;
  int32_t out_min;
  int32_t out_max;
} utvm_bmm_q_params;

/* Element offsets of the lhs and rhs matrices of output batch (b0, b1, b2). */
static inline void utvm_bmm_bases(const utvm_bmm_geom* g, int32_t b0, int32_t b1, int32_t b2, int32_t* lhs,
                                  int32_t* rhs) {
  *lhs = (b0 * g->lhs_ext[0]) + (b1 * g->lhs_ext[1]) + (b2 * g->lhs_ext[2]);
  *rhs = (b0 * g->rhs_ext[0]) + (b1 * g->rhs_ext[1]) + (b2 * g->rhs_ext[2]);
}

#endif /* UTVM_KERNELS_BATCH_MATMUL_H_ */
