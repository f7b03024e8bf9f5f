/* utvm-build kernels, Helium (MVE): FULLY_CONNECTED 16x8, the loop shared by
 * fully_connected_s16.h (per-tensor) and fully_connected_s16_pc.h (per output unit).
 *
 * Per batch row, four output units at a time (mve_s16.h utvm_mve_dot4_s16): per 8 input values
 * one input vector, the four units' weight vectors (VLDRB.S16), four VMLALDAVA into int64 sums
 * (the reference's int64 accumulator exactly; the int32 variant's sums are these truncated); the
 * last 1..7 values predicated; a last block of fewer than 4 units repeats its last unit (not
 * stored). Depth up to 504 with int32 biases, or int64 ones whose shifts and values allow it
 * (mve_s16.h utvm_mve_s16_vec_rq): int32 sums, the 4 units requantized on one vector
 * (utvm_mve_s16_out4); else int64 sums finished one by one by fully_connected.h
 * utvm_fc_s16_out (bias, the int64 or int32 MultiplyByQuantizedMultiplier, clamp).
 */
#ifndef UTVM_KERNELS_FULLY_CONNECTED_S16_ROWS_H_
#define UTVM_KERNELS_FULLY_CONNECTED_S16_ROWS_H_

#if !defined(__ARM_FEATURE_MVE) || ((__ARM_FEATURE_MVE & 1) == 0)
#error "utvm-build: these kernels were generated for a Helium target (--target cortex-m55/m85/m52) but compiled without MVE; use --target cortex-m33 or generic"
#endif

#include "fully_connected.h"
#include "mve_s16.h"

/* out[b][c] = requant(bias[c] + w[c] . in[b]); unit c's multiplier and shift are mult[c * step],
 * shift[c * step] (step 0: one for all). */
static UTVM_MVE_HOT void utvm_fully_connected_s16_rows(const utvm_fc_q_params* p, int32_t step, const int32_t* mult,
                                                       const int32_t* shift, const int16_t* in, const int8_t* w,
                                                       const int64_t* bias, int16_t* out) {
  const int32_t units = p->out_depth;
  const int32_t depth = p->accum_depth;
  /* sums of at most 504 products in int32 (per-tensor: the one shift, every unit's bias) */
  const bool vec_rq = (depth <= UTVM_MVE_S16_CHUNK) &&
                      utvm_mve_s16_vec_rq(p->acc32 != 0, bias, shift, (step == 0) ? 1 : units, depth) &&
                      ((step != 0) || (p->acc32 != 0) ||
                       utvm_mve_s16_bias_fits(bias, units, (int64_t)INT32_MAX - ((int64_t)depth << 22)));
  int32_t row;
  int32_t c;
  int32_t k;
  for (row = 0; row < p->batches; ++row) {
    for (c = 0; c < units; c += 4) {
      /* input row `row` against units c..c+3 (the last repeated), into out[row][c..] */
      const int16_t* const x = &in[row * depth];
      int16_t* const y = &out[(row * units) + c];
      const int8_t* const w0 = &w[c * depth];
      const int8_t* const w1 = &w[utvm_min_i32(c + 1, units - 1) * depth];
      const int8_t* const w2 = &w[utvm_min_i32(c + 2, units - 1) * depth];
      const int8_t* const w3 = &w[utvm_min_i32(c + 3, units - 1) * depth];
      if (vec_rq) {
        utvm_mve_s16_out4(utvm_mve_dot4_s16_i32(x, w0, w1, w2, w3, depth), p->acc32 != 0, bias, mult, shift, step,
                          c, utvm_min_i32(4, units - c), p->act_min, p->act_max, y);
      } else {
        int64_t acc[4] = {0, 0, 0, 0};
        utvm_mve_dot4_s16(x, w0, w1, w2, w3, depth, acc);
        for (k = 0; (k < 4) && ((c + k) < units); ++k) {
          y[k] = utvm_fc_s16_out(p, bias, mult[(c + k) * step], shift[(c + k) * step], c + k, acc[k]);
        }
      }
    }
  }
}

#endif /* UTVM_KERNELS_FULLY_CONNECTED_S16_ROWS_H_ */
