/* utvm-build kernels, Helium (MVE): BATCH_MATMUL int8; replaces kernels/batch_matmul_s8.h (same
 * function, same arguments, same results).
 *
 * When both operands have their depth contiguous (lhs without adj_x; rhs stored transposed at code
 * generation when constant, or adj_y): per lhs row, four output columns at a time, as the FULLY_CONNECTED
 * rows kernel of this folder: per 16 depth bytes one lhs vector, the four rhs rows and four VMLADAVA
 * of the raw int8 values. The zero points come in by expanding the reference's sum
 *   sum_k (r_k + ro)(a_k + lo) = sum_k r_k a_k + lo sum_k r_k + ro sum_k a_k + K ro lo
 * with sum_k a_k once per lhs row (VADDVA) and sum_k r_k per column next to its dot product (four
 * VADDVA more per 16 bytes, only when lo != 0). The terms are added in 32-bit modular arithmetic
 * (vector lanes): the reference's sum fits int32 (ops/batch_matmul_geometry.py MAX_DEPTH_S8), so the
 * wrapped total is exact. The four sums requantized at once (mve_s8.h utvm_mve_rq), four bytes stored
 * (predicated for a last block of fewer than 4 columns, which repeats its last column). Other strides:
 * the generic walk.
 */
#ifndef UTVM_KERNELS_BATCH_MATMUL_S8_H_
#define UTVM_KERNELS_BATCH_MATMUL_S8_H_

#if !defined(__ARM_FEATURE_MVE) || ((__ARM_FEATURE_MVE & 1) == 0)
#error "utvm-build: these kernels were generated for a Helium target (--target cortex-m55/m85/m52) but compiled without MVE; use --target cortex-m33 or generic"
#endif

#include "batch_matmul.h"
#include "mve_s8.h"

/* The four columns' dot products (d) and, with sums, their rhs sums (s). */
typedef struct {
  int32_t d[4];
  int32_t s[4];
} utvm_bmm_mve_acc;

/* 16 depth bytes (x, and w[0..3]: already loaded, zero in predicated-off lanes). */
static UTVM_MVE_INLINE void utvm_bmm_mve_step(utvm_bmm_mve_acc* a, int8x16_t xv, int8x16_t v0, int8x16_t v1,
                                              int8x16_t v2, int8x16_t v3, bool sums) {
  a->d[0] = vmladavaq_s8(a->d[0], xv, v0);
  a->d[1] = vmladavaq_s8(a->d[1], xv, v1);
  a->d[2] = vmladavaq_s8(a->d[2], xv, v2);
  a->d[3] = vmladavaq_s8(a->d[3], xv, v3);
  if (sums) {
    a->s[0] = vaddvaq_s8(a->s[0], v0);
    a->s[1] = vaddvaq_s8(a->s[1], v1);
    a->s[2] = vaddvaq_s8(a->s[2], v2);
    a->s[3] = vaddvaq_s8(a->s[3], v3);
  }
}

/* One lhs row x (depth k) against the rows of the transposed rhs r (row stride rs): `cols` outputs
 * into y. sums: lo != 0 (the rhs sums are needed); a constant in each inlined copy. */
static UTVM_MVE_INLINE void utvm_bmm_mve_row(const utvm_bmm_q_params* p, const int8_t* x, const int8_t* r, int32_t rs,
                                             int32_t k, int32_t cols, int8_t* y, bool sums) {
  const int32_t lo = p->lhs_offset;
  const int32x4_t m = vdupq_n_s32(p->multiplier);
  const int32x4_t sh = vdupq_n_s32(p->shift);
  int32_t sa = 0;
  int32_t j;
  int32_t c;
  /* ro sum_k a_k + K ro lo (modular) */
  for (j = 0; j < k; j += 16) {
    sa = vaddvaq_s8(sa, vldrbq_z_s8(&x[j], vctp8q((uint32_t)(k - j))));
  }
  sa = (int32_t)(((uint32_t)sa + ((uint32_t)k * (uint32_t)lo)) * (uint32_t)p->rhs_offset);
  for (c = 0; c < cols; c += 4) {
    const mve_pred16_t pu = vctp32q((uint32_t)(cols - c));
    const int8_t* w0 = &r[c * rs];
    const int8_t* w1 = &r[utvm_min_i32(c + 1, cols - 1) * rs];
    const int8_t* w2 = &r[utvm_min_i32(c + 2, cols - 1) * rs];
    const int8_t* w3 = &r[utvm_min_i32(c + 3, cols - 1) * rs];
    utvm_bmm_mve_acc a = {{0, 0, 0, 0}, {0, 0, 0, 0}};
    int32x4_t acc;
    int32x4_t sr;
    for (j = 0; (j + 16) <= k; j += 16) {
      utvm_bmm_mve_step(&a, vldrbq_s8(&x[j]), vldrbq_s8(&w0[j]), vldrbq_s8(&w1[j]), vldrbq_s8(&w2[j]),
                        vldrbq_s8(&w3[j]), sums);
    }
    if (j < k) { /* the last 1..15 bytes */
      const mve_pred16_t pd = vctp8q((uint32_t)(k - j));
      utvm_bmm_mve_step(&a, vldrbq_z_s8(&x[j], pd), vldrbq_z_s8(&w0[j], pd), vldrbq_z_s8(&w1[j], pd),
                        vldrbq_z_s8(&w2[j], pd), vldrbq_z_s8(&w3[j], pd), sums);
    }
    acc = vldrwq_s32(a.d);
    if (sums) {
      sr = vldrwq_s32(a.s);
      acc = vmlaq_n_s32(acc, sr, lo);
    }
    acc = vaddq_n_s32(acc, sa);
    vstrbq_p_s32(&y[c], utvm_mve_rq(acc, m, sh, p->output_offset, p->out_min, p->out_max), pu);
  }
}

static UTVM_MVE_HOT void utvm_batch_matmul_s8(const utvm_bmm_q_params* p, const int8_t* lhs, const int8_t* rhs,
                                              int8_t* out) {
  const utvm_bmm_geom* g = &p->g;
  int32_t b0;
  int32_t b1;
  int32_t b2;
  int32_t i;
  if ((g->lhs_depth_stride != 1) || (g->rhs_depth_stride != 1)) {
    UTVM_BMM_WALK(p, g, lhs, rhs, out, int8_t, int32_t, utvm_bmm_s8_mac, utvm_bmm_s8_out);
    return;
  }
  for (b0 = 0; b0 < g->batch[0]; ++b0) {
    for (b1 = 0; b1 < g->batch[1]; ++b1) {
      for (b2 = 0; b2 < g->batch[2]; ++b2) {
        int32_t lb;
        int32_t rb;
        utvm_bmm_bases(g, b0, b1, b2, &lb, &rb);
        for (i = 0; i < g->rows; ++i) {
          const int8_t* x = &lhs[lb + (i * g->lhs_row_stride)];
          if (p->lhs_offset != 0) {
            utvm_bmm_mve_row(p, x, &rhs[rb], g->rhs_col_stride, g->depth, g->cols, out, true);
          } else {
            utvm_bmm_mve_row(p, x, &rhs[rb], g->rhs_col_stride, g->depth, g->cols, out, false);
          }
          out = &out[g->cols];
        }
      }
    }
  }
}

#endif /* UTVM_KERNELS_BATCH_MATMUL_S8_H_ */
