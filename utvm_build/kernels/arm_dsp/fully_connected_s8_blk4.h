/* utvm-build kernels, DSP extension: FULLY_CONNECTED int8 (TFLite FullyConnected / PerChannel)
 * with weights re-laid out at compile time. A kernel only the DSP targets have: the generator
 * (ops/fully_connected.py, fc_blk4_call) calls it instead of utvm_fully_connected_s8(_pc) when the
 * target's FULLY_CONNECTED rows come from kernels/arm_dsp/ and the depth is a multiple of 4.
 *
 * Four output units at a time, one input row: per 4 input bytes one input word (SXTB16 of its
 * even and odd bytes, shared by the 4 units) and the 4 units' weight words, stored next to each
 * other (two LDRD from one running pointer instead of four row pointers), 8 SXTB16 and 8 SMLAD:
 * 16 multiply-accumulates in 22 instructions plus the loop (four input words per step).
 *
 * Data the generator prepares:
 * - w: int32 words; per block of 4 units (c..c+3), per 4 input bytes k..k+3, the word of unit c,
 *   c+1, c+2, c+3 (little-endian bytes of the [units][depth] weights); units padded to a multiple
 *   of 4 with zero rows (their outputs are not written);
 * - bias: the folded bias (bias - input zero point x sum of the unit's weights), padded likewise,
 *   so the accumulators take the raw int8 input as the generic kernel does;
 * - rq: dsp_s8.h utvm_dsp_rq3 triplets, one per unit (rq_step 3) or one for all (rq_step 0).
 * The sums are the generic kernel's int32 sums in another order: the results are equal.
 */
#ifndef UTVM_KERNELS_ARM_DSP_FULLY_CONNECTED_S8_BLK4_H_
#define UTVM_KERNELS_ARM_DSP_FULLY_CONNECTED_S8_BLK4_H_

#if !defined(__ARM_FEATURE_DSP) || (__ARM_FEATURE_DSP != 1)
#error "utvm-build: these kernels were generated for a DSP target (--target cortex-m4/m7/m33/m55) but compiled without the DSP extension; use --target generic"
#endif

#include "dsp_s8.h"

typedef struct {
  int32_t batches;
  int32_t depth; /* accum_depth, a multiple of 4 (>= 4) */
  int32_t units; /* output units (the weights hold a multiple of 4) */
  int32_t output_offset;
  int32_t act_min;
  int32_t act_max;
  int32_t rq_step; /* 3: a triplet per unit; 0: one for all */
  int32_t rq_mode; /* UTVM_DSP_RQ_ANY / _FAST / _FULL (dsp_s8.h utvm_dsp_rq3) */
} utvm_fc_blk4_params;

/* v0, v1 = p[off / 4], p[off / 4 + 1] in one LDRD (GCC does not pair the two loads here; the
 * weights are 4-byte aligned, which is all the M-profile LDRD needs); off: a literal. */
#if defined(__GNUC__) || defined(__clang__)
#define UTVM_FC_BLK4_LDRD(p, off, v0, v1)                                                                    \
  __asm__("ldrd %0, %1, [%2, #" #off "]" : "=r"(v0), "=r"(v1) : "r"(p), "m"(*(const int32_t(*)[2])&(p)[(off) / 4]))
#else
#define UTVM_FC_BLK4_LDRD(p, off, v0, v1) \
  do {                                    \
    (v0) = (p)[(off) / 4];                \
    (v1) = (p)[((off) / 4) + 1];          \
  } while (0)
#endif

/* a0..a3 += the 4 units' weight words w0..w3 . the input word xv */
static UTVM_DSP_INLINE void utvm_fc_blk4_step(int32_t xv, int32_t w0, int32_t w1, int32_t w2, int32_t w3,
                                              int32_t* a0, int32_t* a1, int32_t* a2, int32_t* a3) {
  const int32_t xe = utvm_dsp_even(xv);
  const int32_t xo = utvm_dsp_odd(xv);
  *a0 = __smlad(utvm_dsp_even(w0), xe, *a0);
  *a0 = __smlad(utvm_dsp_odd(w0), xo, *a0);
  *a1 = __smlad(utvm_dsp_even(w1), xe, *a1);
  *a1 = __smlad(utvm_dsp_odd(w1), xo, *a1);
  *a2 = __smlad(utvm_dsp_even(w2), xe, *a2);
  *a2 = __smlad(utvm_dsp_odd(w2), xo, *a2);
  *a3 = __smlad(utvm_dsp_even(w3), xe, *a3);
  *a3 = __smlad(utvm_dsp_odd(w3), xo, *a3);
}

/* One input row x (depth bytes) into y (units bytes); mode: a constant in each copy below. */
static UTVM_DSP_INLINE void utvm_fc_blk4_row(const utvm_fc_blk4_params* p, const int8_t* x, const int32_t* w,
                                             const int32_t* bias, const int32_t* rq, int8_t* y, int32_t mode) {
  const int32_t n4 = p->depth >> 2;
  const int32_t units = p->units;
  const int32_t zp = p->output_offset;
  const int32_t lo = p->act_min;
  const int32_t hi = p->act_max;
  const int32_t step = p->rq_step;
  const int32_t* pw = w;
  int32_t c;
  for (c = 0; c < units; c += 4) {
    int32_t a0 = bias[c];
    int32_t a1 = bias[c + 1];
    int32_t a2 = bias[c + 2];
    int32_t a3 = bias[c + 3];
    const int8_t* px = x;
    int32_t k = n4 >> 2;
    int32_t rem = n4 & 3;
    int32_t w0;
    int32_t w1;
    int32_t w2;
    int32_t w3;
    while (rem != 0) {
      UTVM_FC_BLK4_LDRD(pw, 0, w0, w1);
      UTVM_FC_BLK4_LDRD(pw, 8, w2, w3);
      utvm_fc_blk4_step(utvm_dsp_ld4(px), w0, w1, w2, w3, &a0, &a1, &a2, &a3);
      px = &px[4];
      pw = &pw[4];
      --rem;
    }
    while (k != 0) {
      /* four input words per step: the counter, the branch and the two pointer adds per 64 MACs */
      UTVM_FC_BLK4_LDRD(pw, 0, w0, w1);
      UTVM_FC_BLK4_LDRD(pw, 8, w2, w3);
      utvm_fc_blk4_step(utvm_dsp_ld4(px), w0, w1, w2, w3, &a0, &a1, &a2, &a3);
      UTVM_FC_BLK4_LDRD(pw, 16, w0, w1);
      UTVM_FC_BLK4_LDRD(pw, 24, w2, w3);
      utvm_fc_blk4_step(utvm_dsp_ld4(&px[4]), w0, w1, w2, w3, &a0, &a1, &a2, &a3);
      UTVM_FC_BLK4_LDRD(pw, 32, w0, w1);
      UTVM_FC_BLK4_LDRD(pw, 40, w2, w3);
      utvm_fc_blk4_step(utvm_dsp_ld4(&px[8]), w0, w1, w2, w3, &a0, &a1, &a2, &a3);
      UTVM_FC_BLK4_LDRD(pw, 48, w0, w1);
      UTVM_FC_BLK4_LDRD(pw, 56, w2, w3);
      utvm_fc_blk4_step(utvm_dsp_ld4(&px[12]), w0, w1, w2, w3, &a0, &a1, &a2, &a3);
      px = &px[16];
      pw = &pw[16];
      --k;
    }
    if ((units - c) >= 4) {
      /* a whole block: straight from the accumulators (no array on the stack) */
      const int32_t* r = &rq[c * step];
      y[c] = utvm_dsp_rq3(a0, mode, r[0], r[1], r[2], zp, lo, hi);
      r = &r[step];
      y[c + 1] = utvm_dsp_rq3(a1, mode, r[0], r[1], r[2], zp, lo, hi);
      r = &r[step];
      y[c + 2] = utvm_dsp_rq3(a2, mode, r[0], r[1], r[2], zp, lo, hi);
      r = &r[step];
      y[c + 3] = utvm_dsp_rq3(a3, mode, r[0], r[1], r[2], zp, lo, hi);
    } else {
      /* the last 1-3 units, one after the other (no loop over an array: with a constant unit
       * count GCC 12 found "iteration 3 invokes undefined behavior" in a loop it could not see
       * was dead, an error under -Werror) */
      const int32_t tail = units - c;
      const int32_t* r = &rq[c * step];
      y[c] = utvm_dsp_rq3(a0, mode, r[0], r[1], r[2], zp, lo, hi);
      if (tail > 1) {
        r = &r[step];
        y[c + 1] = utvm_dsp_rq3(a1, mode, r[0], r[1], r[2], zp, lo, hi);
      }
      if (tail > 2) {
        r = &r[step];
        y[c + 2] = utvm_dsp_rq3(a2, mode, r[0], r[1], r[2], zp, lo, hi);
      }
    }
  }
}

static UTVM_DSP_HOT void utvm_fc_blk4_row_full(const utvm_fc_blk4_params* p, const int8_t* x, const int32_t* w,
                                               const int32_t* bias, const int32_t* rq, int8_t* y) {
  utvm_fc_blk4_row(p, x, w, bias, rq, y, UTVM_DSP_RQ_FULL);
}

static UTVM_DSP_HOT void utvm_fc_blk4_row_fast(const utvm_fc_blk4_params* p, const int8_t* x, const int32_t* w,
                                               const int32_t* bias, const int32_t* rq, int8_t* y) {
  utvm_fc_blk4_row(p, x, w, bias, rq, y, UTVM_DSP_RQ_FAST);
}

static UTVM_DSP_NOINLINE void utvm_fc_blk4_row_any(const utvm_fc_blk4_params* p, const int8_t* x,
                                                   const int32_t* w, const int32_t* bias, const int32_t* rq,
                                                   int8_t* y) {
  utvm_fc_blk4_row(p, x, w, bias, rq, y, UTVM_DSP_RQ_ANY);
}

/* out[b][c] = requant(bias[c] + w[c] . in[b]) over every batch row (layouts above). */
static void utvm_fully_connected_s8_blk4(const utvm_fc_blk4_params* p, const int8_t* in, const int32_t* w,
                                         const int32_t* bias, const int32_t* rq, int8_t* out) {
  int32_t b;
  for (b = 0; b < p->batches; ++b) {
    const int8_t* x = &in[b * p->depth];
    int8_t* y = &out[b * p->units];
    if (p->rq_mode == UTVM_DSP_RQ_FULL) {
      utvm_fc_blk4_row_full(p, x, w, bias, rq, y);
    } else if (p->rq_mode == UTVM_DSP_RQ_FAST) {
      utvm_fc_blk4_row_fast(p, x, w, bias, rq, y);
    } else {
      utvm_fc_blk4_row_any(p, x, w, bias, rq, y);
    }
  }
}

#endif /* UTVM_KERNELS_ARM_DSP_FULLY_CONNECTED_S8_BLK4_H_ */
