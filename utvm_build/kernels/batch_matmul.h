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

/* The integer kernels' element operations. int8: (rhs - rhs_zp) * (lhs - lhs_zp) summed in int32,
 * the int32 MultiplyByQuantizedMultiplier; int16 (zero points 0): int64 sums and the int64
 * MultiplyByQuantizedMultiplier. */
static inline int32_t utvm_bmm_s8_mac(const utvm_bmm_q_params* p, int32_t total, int8_t r, int8_t a) {
  return total + (((int32_t)r + p->rhs_offset) * ((int32_t)a + p->lhs_offset));
}

static inline int8_t utvm_bmm_s8_out(const utvm_bmm_q_params* p, int32_t total) {
  return (int8_t)utvm_clamp_i32(utvm_mul_by_quantized_mul(total, p->multiplier, p->shift) + p->output_offset,
                                p->out_min, p->out_max);
}

static inline int64_t utvm_bmm_s16_mac(const utvm_bmm_q_params* p, int64_t total, int16_t r, int16_t a) {
  (void)p;
  return total + ((int64_t)r * (int64_t)a);
}

static inline int16_t utvm_bmm_s16_out(const utvm_bmm_q_params* p, int64_t total) {
  return (int16_t)utvm_clamp_i32(utvm_mul_by_quantized_mul64(total, p->multiplier, p->shift) + p->output_offset,
                                 p->out_min, p->out_max);
}

/* The walk of every BATCH_MATMUL kernel, written once: for each output (batch, m, n) in output
 * order, ACC total = 0, total = MAC(p, total, rhs[.., n, k], lhs[.., m, k]) for k ascending (the
 * reference's order), then *out++ = FINISH(p, total). MAC and FINISH are the type's static
 * inline element operations (zero points, accumulator width, requantization); the macro expands
 * in place, so each kernel costs what its hand-written loops cost. */
#define UTVM_BMM_WALK(p, g, lhs, rhs, out, T, ACC, MAC, FINISH)                                             \
  do {                                                                                                      \
    int32_t b0_;                                                                                            \
    int32_t b1_;                                                                                            \
    int32_t b2_;                                                                                            \
    int32_t m_;                                                                                             \
    int32_t n_;                                                                                             \
    int32_t k_;                                                                                             \
    int32_t o_ = 0;                                                                                         \
    for (b0_ = 0; b0_ < (g)->batch[0]; ++b0_) {                                                             \
      for (b1_ = 0; b1_ < (g)->batch[1]; ++b1_) {                                                           \
        for (b2_ = 0; b2_ < (g)->batch[2]; ++b2_) {                                                         \
          int32_t lb_;                                                                                      \
          int32_t rb_;                                                                                      \
          utvm_bmm_bases((g), b0_, b1_, b2_, &lb_, &rb_);                                                   \
          for (m_ = 0; m_ < (g)->rows; ++m_) {                                                              \
            const T* a_ = &(lhs)[lb_ + (m_ * (g)->lhs_row_stride)];                                         \
            for (n_ = 0; n_ < (g)->cols; ++n_) {                                                            \
              const T* r_ = &(rhs)[rb_ + (n_ * (g)->rhs_col_stride)];                                       \
              ACC total_ = (ACC)0;                                                                          \
              for (k_ = 0; k_ < (g)->depth; ++k_) {                                                         \
                total_ = MAC((p), total_, r_[k_ * (g)->rhs_depth_stride], a_[k_ * (g)->lhs_depth_stride]);  \
              }                                                                                             \
              (out)[o_] = FINISH((p), total_);                                                              \
              o_ += 1;                                                                                      \
            }                                                                                               \
          }                                                                                                 \
        }                                                                                                   \
      }                                                                                                     \
    }                                                                                                       \
  } while (0)

#endif /* UTVM_KERNELS_BATCH_MATMUL_H_ */
