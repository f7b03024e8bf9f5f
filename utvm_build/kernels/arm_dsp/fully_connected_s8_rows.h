/* utvm-build kernels, DSP targets: FULLY_CONNECTED int8, the loops shared by fully_connected_s8.h
 * and fully_connected_s8_pc.h; replaces kernels/fully_connected_s8_rows.h (same functions, same
 * arguments, same results). As the generic file (with arm_dsp/dot_s8.h's DSP dot products), with
 * the requantization of dsp_s8.h (one SMLAL and a few simple instructions per value).
 *
 * Generic description: FULLY_CONNECTED int8, the loops shared by fully_connected_s8.h (per-tensor
 * requantization) and fully_connected_s8_pc.h (per output unit).
 *
 * Two batch rows at a time times two output units (dot_s8.h 2x2), or one batch row times four
 * output units (4x1); each loaded byte feeds two or four multiply-accumulates.
 */
#ifndef UTVM_KERNELS_FULLY_CONNECTED_S8_ROWS_H_
#define UTVM_KERNELS_FULLY_CONNECTED_S8_ROWS_H_

#if !defined(__ARM_FEATURE_DSP) || (__ARM_FEATURE_DSP != 1)
#error "utvm-build: these kernels were generated for a DSP target (--target cortex-m4/m7/m33/m55) but compiled without the DSP extension; use --target generic"
#endif

#include "dot_s8.h"
#include "dsp_s8.h"
#include "fully_connected.h"

/* Requantizes acc[0..n) into output units c..c+n-1 of row y; the multiplier and shift of unit u
 * are mult[u * step], shift[u * step] (step 0: one for all). */
static UTVM_DSP_INLINE void utvm_fully_connected_s8_out(const utvm_fc_q_params* p, const int32_t* mult,
                                                        const int32_t* shift, int32_t step,
                                                        const utvm_dsp_rq_ch* rq0, int8_t* y, int32_t c,
                                                        int32_t n, const int32_t* acc) {
  /* locals: for the compiler, the int8 stores could alias the parameters */
  const int32_t zp = p->output_offset;
  const int32_t lo = p->act_min;
  const int32_t hi = p->act_max;
  int32_t j;
  for (j = 0; j < n; ++j) {
    if (step == 0) {
      y[c + j] = utvm_dsp_rq_out(rq0, acc[j], zp, lo, hi);
    } else {
      const int32_t u = (c + j) * step;
      utvm_dsp_rq_ch rq;
      utvm_dsp_rq_setup(&rq, mult[u], shift[u]);
      y[c + j] = utvm_dsp_rq_out(&rq, acc[j], zp, lo, hi);
    }
  }
}

/* out[b][c] = requant(bias[c] + w[c] . in[b]); bias: the folded bias (never NULL). Compiled at -O2
 * by GCC (UTVM_DSP_HOT: the autoencoder 0.51 M -> 0.49 M instructions at -Os). */
static UTVM_DSP_HOT void utvm_fully_connected_s8_rows(const utvm_fc_q_params* p, const int32_t* mult,
                                         const int32_t* shift, int32_t step, const int8_t* in,
                                         const int8_t* w, const int32_t* bias, int8_t* out) {
  const int32_t depth = p->accum_depth;
  const int32_t units = p->out_depth;
  utvm_dsp_rq_ch rq0; /* per-tensor (step 0): the constants of every unit, derived once */
  int32_t b = 0;
  utvm_dsp_rq_setup(&rq0, mult[0], shift[0]);
  while (b < p->batches) {
    const int8_t* x = &in[b * depth];
    int8_t* y = &out[b * units];
    int32_t c = 0;
    if ((p->batches - b) >= 2) {
      /* rows b and b + 1, units c and c + 1 (an odd last unit paired with itself) */
      while (c < units) {
        const int32_t n = utvm_min_i32(2, units - c);
        int32_t acc0[2];
        int32_t acc1[2];
        acc0[0] = bias[c];
        acc0[1] = bias[c + n - 1];
        acc1[0] = acc0[0];
        acc1[1] = acc0[1];
        if (depth > 0) {
          utvm_dot_s8_2x2(&w[c * depth], &w[(c + n - 1) * depth], x, &x[depth], depth, acc0, acc1);
        }
        utvm_fully_connected_s8_out(p, mult, shift, step, &rq0, y, c, n, acc0);
        utvm_fully_connected_s8_out(p, mult, shift, step, &rq0, &y[units], c, n, acc1);
        c += n;
      }
      b += 2;
    } else {
      /* row b, units c..c + 3 (left over: one at a time, as four copies of one weight row) */
      while (c < units) {
        int32_t n = 1;
        int32_t ws = 0;
        int32_t acc[4];
        if ((units - c) >= 4) {
          n = 4;
          ws = depth;
          acc[0] = bias[c];
          acc[1] = bias[c + 1];
          acc[2] = bias[c + 2];
          acc[3] = bias[c + 3];
        } else {
          acc[0] = bias[c];
          acc[1] = acc[0];
          acc[2] = acc[0];
          acc[3] = acc[0];
        }
        if (depth > 0) {
          utvm_dot_s8_4x1(&w[c * depth], ws, x, 0, depth, &acc[0], &acc[2]);
        }
        utvm_fully_connected_s8_out(p, mult, shift, step, &rq0, y, c, n, acc);
        c += n;
      }
      b += 1;
    }
  }
}

#endif /* UTVM_KERNELS_FULLY_CONNECTED_S8_ROWS_H_ */
