/* utvm-build kernels, Helium (MVE): FULLY_CONNECTED int8, the loops shared by
 * fully_connected_s8.h and fully_connected_s8_pc.h; replaces kernels/fully_connected_s8_rows.h
 * (same functions, same arguments, same results).
 *
 * Per batch row, four output units at a time: per 16 input bytes one input vector, the four
 * units' weight rows (four pointers) and four VMLADAVA; the last 1..16 bytes predicated (nothing
 * past the rows is read); a last block of fewer than 4 units repeats its last unit (its outputs
 * not stored). The four sums in one vector with the folded bias, requantized at once (mve_s8.h
 * utvm_mve_rq), four bytes stored (predicated).
 *
 * Generic description: FULLY_CONNECTED int8, the loops shared by fully_connected_s8.h (per-tensor
 * requantization) and fully_connected_s8_pc.h (per output unit).
 */
#ifndef UTVM_KERNELS_FULLY_CONNECTED_S8_ROWS_H_
#define UTVM_KERNELS_FULLY_CONNECTED_S8_ROWS_H_

#if !defined(__ARM_FEATURE_MVE) || ((__ARM_FEATURE_MVE & 1) == 0)
#error "utvm-build: these kernels were generated for a Helium target (--target cortex-m55/m85/m52) but compiled without MVE; use --target cortex-m33 or generic"
#endif

#include "fully_connected.h"
#include "mve_s8.h"

/* out[b][c] = requant(bias[c] + w[c] . in[b]); bias: the folded bias (never NULL); the multiplier
 * and shift of unit u are mult[u * step], shift[u * step] (step 0: one for all). */
static UTVM_MVE_HOT void utvm_fully_connected_s8_rows(const utvm_fc_q_params* p, const int32_t* mult,
                                                      const int32_t* shift, int32_t step, const int8_t* in,
                                                      const int8_t* w, const int32_t* bias, int8_t* out) {
  const int32_t depth = p->accum_depth;
  const int32_t units = p->out_depth;
  const int32_t zp = p->output_offset;
  const int32_t lo = p->act_min;
  const int32_t hi = p->act_max;
  int32_t b;
  int32_t c;
  for (b = 0; b < p->batches; ++b) {
    const int8_t* const x = &in[b * depth];
    int8_t* const y = &out[b * units];
    for (c = 0; c < units; c += 4) {
      const int32_t left = units - c;
      const mve_pred16_t pu = vctp32q((uint32_t)left);
      const int8_t* w0 = &w[c * depth];
      const int8_t* w1 = &w[utvm_min_i32(c + 1, units - 1) * depth];
      const int8_t* w2 = &w[utvm_min_i32(c + 2, units - 1) * depth];
      const int8_t* w3 = &w[utvm_min_i32(c + 3, units - 1) * depth];
      const int8_t* px = x;
      int32_t a0 = 0;
      int32_t a1 = 0;
      int32_t a2 = 0;
      int32_t a3 = 0;
      int32_t n = depth;
      int32x4_t acc;
      int32x4_t m;
      int32x4_t s;
      while (n >= 16) {
        const int8x16_t xv = vldrbq_s8(px);
        a0 = vmladavaq_s8(a0, xv, vldrbq_s8(w0));
        a1 = vmladavaq_s8(a1, xv, vldrbq_s8(w1));
        a2 = vmladavaq_s8(a2, xv, vldrbq_s8(w2));
        a3 = vmladavaq_s8(a3, xv, vldrbq_s8(w3));
        n -= 16;
        if (n != 0) { /* no pointer past the rows */
          px = &px[16];
          w0 = &w0[16];
          w1 = &w1[16];
          w2 = &w2[16];
          w3 = &w3[16];
        }
      }
      if (n != 0) {
        /* the last 1..15 bytes (the pointers are there already) */
        const mve_pred16_t pd = vctp8q((uint32_t)n);
        {
          const int8x16_t xv = vldrbq_z_s8(px, pd);
          a0 = vmladavaq_s8(a0, xv, vldrbq_z_s8(w0, pd));
          a1 = vmladavaq_s8(a1, xv, vldrbq_z_s8(w1, pd));
          a2 = vmladavaq_s8(a2, xv, vldrbq_z_s8(w2, pd));
          a3 = vmladavaq_s8(a3, xv, vldrbq_z_s8(w3, pd));
        }
      }
      acc = vdupq_n_s32(a0);
      acc = vsetq_lane_s32(a1, acc, 1);
      acc = vsetq_lane_s32(a2, acc, 2);
      acc = vsetq_lane_s32(a3, acc, 3);
      acc = vaddq_s32(acc, vldrwq_z_s32(&bias[c], pu));
      if (step == 0) {
        m = vdupq_n_s32(mult[0]);
        s = vdupq_n_s32(shift[0]);
      } else {
        m = vldrwq_z_s32(&mult[c], pu);
        s = vldrwq_z_s32(&shift[c], pu);
      }
      acc = utvm_mve_rq(acc, m, s, zp, lo, hi);
      vstrbq_p_s32(&y[c], acc, pu);
    }
  }
}

#endif /* UTVM_KERNELS_FULLY_CONNECTED_S8_ROWS_H_ */
