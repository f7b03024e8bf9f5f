/* utvm-build kernels, DSP extension: FULLY_CONNECTED int8 (TFLite FullyConnected / PerChannel)
 * with weights re-laid out at compile time. A kernel only the DSP targets have: the generator
 * (ops/fully_connected.py, fc_blk4_call) calls it instead of utvm_fully_connected_s8(_pc) when the
 * target's FULLY_CONNECTED rows come from kernels/arm_dsp/ and the depth is a multiple of 4.
 *
 * Four output units at a time, one input row: per 4 input bytes one input word (SXTB16 of its
 * even and odd bytes, shared by the 4 units) and the 4 units' weight words, stored next to each
 * other (two LDRD from one running pointer instead of four row pointers), 8 SXTB16 and 8 SMLAD:
 * 16 multiply-accumulates in 19 instructions plus the loop (four input words per step). The input
 * row is widened once into scratch (utvm_fc_blk4_widen: per input word its even and odd bytes as
 * int16 lanes, one LDRD in the loop; 2 bytes of RAM per input byte).
 *
 * Data the generator prepares:
 * - w: int32 words; per block of 4 units (c..c+3) first their 4 folded biases (bias - input zero
 *   point x sum of the unit's weights, so the accumulators take the raw int8 input as the generic
 *   kernel does), then per 4 input bytes k..k+3 the word of unit c, c+1, c+2, c+3 (little-endian
 *   bytes of the [units][depth] weights); units padded to a multiple of 4 with zero rows and
 *   biases (their outputs are not written);
 * - rq: dsp_s8.h utvm_dsp_rq3 triplets, one per unit (rq_step 3) or one for all (rq_step 0).
 * The sums are the generic kernel's int32 sums in another order: the results are equal.
 * rq_modes 3 and 4 (UTVM_FC_BLK4_RQ2 / _PC: more than 4 units, a multiple of 4, the full int8
 * range, depth a multiple of 32, twice every sum within int32): the biases doubled, the triplets
 * (m, 2k, sh + 1) of ops/conv.py rq2_triplets, the input lanes doubled by the widening; the sums are
 * then twice the generic kernel's, requantized by dsp_s8.h UTVM_DSP_RQ2_TEXT (utvm_dsp_rq2 in C).
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

/* rq_mode 3 (the generator's choice for more than 4 units at the full int8 range when twice every
 * sum fits int32, ops/fully_connected.py): the requantization of twice the sum, dsp_s8.h
 * UTVM_DSP_RQ2_TEXT (4 instructions per unit instead of 6), the triplets (m, 2k, sh + 1) of
 * ops/conv.py rq2_triplets, the folded biases doubled by the generator and the input lanes by the
 * widening (2x in -256..254 fits an int16 lane; SMLAD then sums the doubled products). */
#define UTVM_FC_BLK4_RQ2 3
/* the same with a triplet per unit (rq_mode 3: one for all units) */
#define UTVM_FC_BLK4_RQ2_PC 4

/* The rq_modes whose row loops are compiled (bit 1 << mode; the generated file defines it as the
 * modes of its calls, ops/call.py Params.selects): all of them by default. */
#ifndef UTVM_FC_BLK4_RQ_MODES
#define UTVM_FC_BLK4_RQ_MODES 0x1fu
#endif
#define UTVM_FC_BLK4_USES(MODE) ((UTVM_FC_BLK4_RQ_MODES & (1u << (MODE))) != 0u)

/* One unit's output byte from twice its sum x2 and its triplet t = (m, 2k, sh + 1). */
static UTVM_DSP_INLINE int8_t utvm_fc_blk4_rq2(int32_t x2, const int32_t* t) {
#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__) && !defined(UTVM_NO_INLINE_ASM)
  int32_t x = x2;
  int32_t tmp;
  __asm__(UTVM_DSP_RQ2_TEXT("x", "t", "m", "k2", "s1")
          : [x] "+r"(x), [t] "=&r"(tmp)
          : [m] "r"(t[0]), [k2] "r"(t[1]), [s1] "r"(t[2]));
  return (int8_t)x;
#else
  return utvm_dsp_rq2(x2, t);
#endif
}

/* One unit's output byte from its sum (twice the sum in mode UTVM_FC_BLK4_RQ2); mode: a constant. */
static UTVM_DSP_INLINE int8_t utvm_fc_blk4_out(int32_t acc, int32_t mode, const int32_t* r, int32_t zp, int32_t lo,
                                               int32_t hi) {
  if ((mode == UTVM_FC_BLK4_RQ2) || (mode == UTVM_FC_BLK4_RQ2_PC)) {
    return utvm_fc_blk4_rq2(acc, r);
  }
  return utvm_dsp_rq3(acc, mode, r[0], r[1], r[2], zp, lo, hi);
}

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

/* a0..a3 += the 4 units' weight words w0..w3 . the input word whose even / odd bytes are xe / xo */
static UTVM_DSP_INLINE void utvm_fc_blk4_step(int32_t xe, int32_t xo, int32_t w0, int32_t w1, int32_t w2, int32_t w3,
                                              int32_t* a0, int32_t* a1, int32_t* a2, int32_t* a3) {
  *a0 = __smlad(utvm_dsp_even(w0), xe, *a0);
  *a0 = __smlad(utvm_dsp_odd(w0), xo, *a0);
  *a1 = __smlad(utvm_dsp_even(w1), xe, *a1);
  *a1 = __smlad(utvm_dsp_odd(w1), xo, *a1);
  *a2 = __smlad(utvm_dsp_even(w2), xe, *a2);
  *a2 = __smlad(utvm_dsp_odd(w2), xo, *a2);
  *a3 = __smlad(utvm_dsp_even(w3), xe, *a3);
  *a3 = __smlad(utvm_dsp_odd(w3), xo, *a3);
}

/* k steps of 4 x 4 input words (64 MACs) from px (the widened row) and pw (the block's weights): a0..a3
 * += the 4 units' dot products, px and pw advanced past them. Under GCC one inline assembly
 * loop (GCC at -O1 and above): per input word one post-indexed LDRD of its two lane words and one LDMIA with writeback of
 * the 4 units' weight words (1 + 4 cycles on Cortex-M4 against 2 x 3 for two LDRD, no pointer add),
 * 8 SXTB16, 8 SMLAD: 18 instructions per 16 MACs, the counter and the branch per 64. GCC did not
 * form the LDM itself; with the weight words as register variables in C it spilled in the loop.
 * LDM takes its registers in ascending order: w0..w3 are r8..r11, the other nine operands GCC's;
 * the step counter lives in memory (loaded, decremented and stored once per 64 MACs) so that the
 * loop fits with r7 kept as the frame pointer (-O0, -fno-omit-frame-pointer). */
#define UTVM_FC_BLK4_X_WIDE "ldrd %[xe], %[xo], [%[px]], #8\n\t"
/* the raw input word (a layer of one block of units: no widening, which would cost more than the
 * two SXTB16 it saves) */
#define UTVM_FC_BLK4_X_RAW "ldr %[xo], [%[px]], #4\n\tsxtb16 %[xe], %[xo]\n\tsxtb16 %[xo], %[xo], ror #8\n\t"
#define UTVM_FC_BLK4_STEP_ASM                         \
  "ldmia %[pw]!, {%[w0], %[w1], %[w2], %[w3]}\n\t"     \
  "sxtb16 %[t], %[w0]\n\t"                            \
  "smlad %[a0], %[t], %[xe], %[a0]\n\t"               \
  "sxtb16 %[w0], %[w0], ror #8\n\t"                   \
  "smlad %[a0], %[w0], %[xo], %[a0]\n\t"              \
  "sxtb16 %[t], %[w1]\n\t"                            \
  "smlad %[a1], %[t], %[xe], %[a1]\n\t"               \
  "sxtb16 %[w1], %[w1], ror #8\n\t"                   \
  "smlad %[a1], %[w1], %[xo], %[a1]\n\t"              \
  "sxtb16 %[t], %[w2]\n\t"                            \
  "smlad %[a2], %[t], %[xe], %[a2]\n\t"               \
  "sxtb16 %[w2], %[w2], ror #8\n\t"                   \
  "smlad %[a2], %[w2], %[xo], %[a2]\n\t"              \
  "sxtb16 %[t], %[w3]\n\t"                            \
  "smlad %[a3], %[t], %[xe], %[a3]\n\t"               \
  "sxtb16 %[w3], %[w3], ror #8\n\t"                   \
  "smlad %[a3], %[w3], %[xo], %[a3]\n\t"

/* The lanes of the next input word into xe / xo, px advanced (C: the remainder steps, other
 * compilers). */
#define UTVM_FC_BLK4_XC_WIDE(px, xe, xo) \
  do {                                  \
    (xe) = (px)[0];                     \
    (xo) = (px)[1];                     \
    (px) = &(px)[2];                    \
  } while (0)
#define UTVM_FC_BLK4_XC_RAW(px, xe, xo) \
  do {                                 \
    const int32_t v_ = utvm_dsp_ld4(px); \
    (xe) = utvm_dsp_even(v_);          \
    (xo) = utvm_dsp_odd(v_);           \
    (px) = &(px)[4];                   \
  } while (0)

/* GCC only, and not at -O0: unoptimized GCC keeps r7 as the frame pointer and allocates no more
 * than r0-r6 and r12 to the nine operands; clang's register allocator gives up on the loop at any
 * level (the C loop below then). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__) && !defined(UTVM_NO_INLINE_ASM)
#define UTVM_FC_BLK4_XW UTVM_FC_BLK4_X_WIDE
#define UTVM_FC_BLK4_XR UTVM_FC_BLK4_X_RAW
#define UTVM_FC_BLK4_STEPS(n, xp, wp, s0, s1, s2, s3, X)                                                    \
  do {                                                                                                     \
    UTVM_DSP_R8_R11(w0_, w1_, w2_, w3_);                                                                   \
    int32_t xe_;                                                                                           \
    int32_t xo_;                                                                                           \
    int32_t t_;                                                                                            \
    __asm__ volatile("1:\n\t" X UTVM_FC_BLK4_STEP_ASM X UTVM_FC_BLK4_STEP_ASM X UTVM_FC_BLK4_STEP_ASM X     \
                         UTVM_FC_BLK4_STEP_ASM "ldr %[t], %[k]\n\t"                                         \
                                               "subs %[t], %[t], #1\n\t"                                    \
                                               "str %[t], %[k]\n\t"                                         \
                                               "bne 1b\n\t"                                                 \
                     : [a0] "+r"(s0), [a1] "+r"(s1), [a2] "+r"(s2), [a3] "+r"(s3), [k] "+m"(n), [px] "+r"(xp), \
                       [pw] "+r"(wp), [xe] "=&r"(xe_), [xo] "=&r"(xo_), [t] "=&r"(t_), [w0] "=&r"(w0_),      \
                       [w1] "=&r"(w1_), [w2] "=&r"(w2_), [w3] "=&r"(w3_)                                     \
                     :                                                                                     \
                     : "cc", "memory");                                                                    \
  } while (0)
#else
#define UTVM_FC_BLK4_XW UTVM_FC_BLK4_XC_WIDE
#define UTVM_FC_BLK4_XR UTVM_FC_BLK4_XC_RAW
#define UTVM_FC_BLK4_STEPS(k, px, pw, a0, a1, a2, a3, X) \
  do {                                                  \
    int32_t i_;                                         \
    int32_t xe_;                                        \
    int32_t xo_;                                        \
    while ((k) != 0) {                                  \
      for (i_ = 0; i_ < 4; ++i_) {                      \
        X(px, xe_, xo_);                                \
        utvm_fc_blk4_step(xe_, xo_, (pw)[0], (pw)[1],   \
                          (pw)[2], (pw)[3], &(a0),      \
                          &(a1), &(a2), &(a3));         \
        (pw) = &(pw)[4];                                \
      }                                                 \
      --(k);                                            \
    }                                                   \
  } while (0)
#endif

/* One input row into y (units bytes); xw: the row widened by utvm_fc_blk4_widen (wide), else xr: the
 * int8 row itself; mode, wide: constants in each copy below. */
static UTVM_DSP_INLINE void utvm_fc_blk4_row(const utvm_fc_blk4_params* p, const int32_t* xw, const int8_t* xr,
                                             const int32_t* w, const int32_t* rq, int8_t* y, int32_t mode,
                                             bool wide) {
  const int32_t n4 = p->depth >> 2;
  const int32_t units = p->units;
  const int32_t zp = p->output_offset;
  const int32_t lo = p->act_min;
  const int32_t hi = p->act_max;
  const int32_t step = p->rq_step;
  const int32_t* pw = w;
  int32_t c;
  for (c = 0; c < units; c += 4) {
    int32_t a0;
    int32_t a1;
    int32_t a2;
    int32_t a3;
    const int32_t* px = xw;
    const int8_t* pxr = xr;
    int32_t k = n4 >> 2;
    int32_t rem = n4 & 3;
    int32_t w0;
    int32_t w1;
    int32_t w2;
    int32_t w3;
    int32_t xe;
    int32_t xo;
    /* the block's 4 folded biases lead its weight words */
    UTVM_FC_BLK4_LDRD(pw, 0, a0, a1);
    UTVM_FC_BLK4_LDRD(pw, 8, a2, a3);
    pw = &pw[4];
    while (rem != 0) {
      if (wide) {
        UTVM_FC_BLK4_LDRD(px, 0, xe, xo);
        px = &px[2];
      } else {
        UTVM_FC_BLK4_XC_RAW(pxr, xe, xo);
      }
      UTVM_FC_BLK4_LDRD(pw, 0, w0, w1);
      UTVM_FC_BLK4_LDRD(pw, 8, w2, w3);
      utvm_fc_blk4_step(xe, xo, w0, w1, w2, w3, &a0, &a1, &a2, &a3);
      pw = &pw[4];
      --rem;
    }
    if ((k != 0) && wide) {
      UTVM_FC_BLK4_STEPS(k, px, pw, a0, a1, a2, a3, UTVM_FC_BLK4_XW);
    } else if (k != 0) {
      UTVM_FC_BLK4_STEPS(k, pxr, pw, a0, a1, a2, a3, UTVM_FC_BLK4_XR);
    }
    if ((units - c) >= 4) {
      /* a whole block: straight from the accumulators (no array on the stack) */
      const int32_t* r = &rq[c * step];
      y[c] = utvm_fc_blk4_out(a0, mode, r, zp, lo, hi);
      r = &r[step];
      y[c + 1] = utvm_fc_blk4_out(a1, mode, r, zp, lo, hi);
      r = &r[step];
      y[c + 2] = utvm_fc_blk4_out(a2, mode, r, zp, lo, hi);
      r = &r[step];
      y[c + 3] = utvm_fc_blk4_out(a3, mode, r, zp, lo, hi);
    } else {
      /* the last 1-3 units, one after the other (no loop over an array: with a constant unit
       * count GCC 12 found "iteration 3 invokes undefined behavior" in a loop it could not see
       * was dead, an error under -Werror) */
      const int32_t tail = units - c;
      const int32_t* r = &rq[c * step];
      y[c] = utvm_fc_blk4_out(a0, mode, r, zp, lo, hi);
      if (tail > 1) {
        r = &r[step];
        y[c + 1] = utvm_fc_blk4_out(a1, mode, r, zp, lo, hi);
      }
      if (tail > 2) {
        r = &r[step];
        y[c + 2] = utvm_fc_blk4_out(a2, mode, r, zp, lo, hi);
      }
    }
  }
}

static UTVM_DSP_HOT void utvm_fc_blk4_row_full(const utvm_fc_blk4_params* p, const int32_t* x, const int32_t* w,
                                               const int32_t* rq, int8_t* y) {
  utvm_fc_blk4_row(p, x, NULL, w, rq, y, UTVM_DSP_RQ_FULL, true);
}

/* Modes UTVM_FC_BLK4_RQ2 / _PC (the generator's guarantees: units and depth / 4 multiples of 4):
 * under GCC the whole row in one inline assembly block, per block of 4 units its biases (2 LDRD),
 * the MAC loop of UTVM_FC_BLK4_STEPS (ended by the input pointer reaching the row's end instead
 * of a counter), the 4 sums requantized in place (UTVM_DSP_RQ2_TEXT, the triplet in w0..w2: one
 * LDM per block, or per unit with a triplet per unit) and 4 STRB; the row's pointers and ends in
 * memory (13 registers: r7 stays free for a frame pointer). In C the loop above. */
#define UTVM_FC_BLK4_RQ2_UNIT(A) UTVM_DSP_RQ2_TEXT(A, "xe", "w0", "w1", "w2")
#define UTVM_FC_BLK4_LD3 "ldmia %[px]!, {%[w0], %[w1], %[w2]}\n\t"
#define UTVM_FC_BLK4_RQ2_PT                                                                   \
  "ldr %[px], %[rq]\n\tldm %[px], {%[w0], %[w1], %[w2]}\n\t" UTVM_FC_BLK4_RQ2_UNIT("a0")  \
      UTVM_FC_BLK4_RQ2_UNIT("a1") UTVM_FC_BLK4_RQ2_UNIT("a2") UTVM_FC_BLK4_RQ2_UNIT("a3")
#define UTVM_FC_BLK4_RQ2_PCT                                                                              \
  "ldr %[px], %[rq]\n\t" UTVM_FC_BLK4_LD3 UTVM_FC_BLK4_RQ2_UNIT("a0") UTVM_FC_BLK4_LD3                    \
      UTVM_FC_BLK4_RQ2_UNIT("a1") UTVM_FC_BLK4_LD3 UTVM_FC_BLK4_RQ2_UNIT("a2") UTVM_FC_BLK4_LD3            \
          UTVM_FC_BLK4_RQ2_UNIT("a3") "str %[px], %[rq]\n\t"
#define UTVM_FC_BLK4_STEP4                                                                                   \
  UTVM_FC_BLK4_X_WIDE UTVM_FC_BLK4_STEP_ASM UTVM_FC_BLK4_X_WIDE UTVM_FC_BLK4_STEP_ASM UTVM_FC_BLK4_X_WIDE           \
      UTVM_FC_BLK4_STEP_ASM UTVM_FC_BLK4_X_WIDE UTVM_FC_BLK4_STEP_ASM
#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__) && !defined(UTVM_NO_INLINE_ASM)
#define UTVM_FC_BLK4_ROW_RQ2(p, x, w, rq, y, RQ, mode)                                                            \
  do {                                                                                                           \
    const int32_t* x0_ = (x);                                                                                    \
    const int32_t* xend_ = &(x)[(p)->depth >> 1];                                                                \
    const int32_t* rq_ = (rq);                                                                                   \
    int8_t* y_ = (y);                                                                                            \
    int8_t* yend_ = &(y)[(p)->units];                                                                            \
    const int32_t* pw_ = (w);                                                                                    \
    UTVM_DSP_R8_R11(w0_, w1_, w2_, w3_);                                                                         \
    int32_t a0_;                                                                                                 \
    int32_t a1_;                                                                                                 \
    int32_t a2_;                                                                                                 \
    int32_t a3_;                                                                                                 \
    const int32_t* px_;                                                                                          \
    int32_t xe_;                                                                                                 \
    int32_t xo_;                                                                                                 \
    int32_t t_;                                                                                                  \
    __asm__ volatile("2:\n\tldrd %[a0], %[a1], [%[pw]], #8\n\tldrd %[a2], %[a3], [%[pw]], #8\n\t"                \
                     "ldr %[px], %[x0]\n\t"                                                                      \
                     "1:\n\t" UTVM_FC_BLK4_STEP4 UTVM_FC_BLK4_STEP4                                             \
                     "ldr %[t], %[xend]\n\tcmp %[px], %[t]\n\tbne 1b\n\t" RQ "ldr %[xo], %[y]\n\t"                \
                     "strb %[a0], [%[xo]], #1\n\tstrb %[a1], [%[xo]], #1\n\t"                                      \
                     "strb %[a2], [%[xo]], #1\n\tstrb %[a3], [%[xo]], #1\n\t"                                      \
                     "str %[xo], %[y]\n\tldr %[t], %[yend]\n\tcmp %[xo], %[t]\n\tbne 2b\n\t"                       \
                     : [a0] "=&r"(a0_), [a1] "=&r"(a1_), [a2] "=&r"(a2_), [a3] "=&r"(a3_), [px] "=&r"(px_),           \
                       [pw] "+r"(pw_), [xe] "=&r"(xe_), [xo] "=&r"(xo_), [t] "=&r"(t_), [w0] "=&r"(w0_),             \
                       [w1] "=&r"(w1_), [w2] "=&r"(w2_), [w3] "=&r"(w3_), [y] "+m"(y_), [rq] "+m"(rq_)             \
                     : [x0] "m"(x0_), [xend] "m"(xend_), [yend] "m"(yend_)                                          \
                     : "cc", "memory");                                                                          \
    (void)(mode);                                                                                                \
  } while (0)
#else
#define UTVM_FC_BLK4_ROW_RQ2(p, x, w, rq, y, RQ, mode) utvm_fc_blk4_row(p, x, NULL, w, rq, y, mode, true)
#endif

static UTVM_DSP_HOT void utvm_fc_blk4_row_rq2(const utvm_fc_blk4_params* p, const int32_t* x, const int32_t* w,
                                              const int32_t* rq, int8_t* y) {
  UTVM_FC_BLK4_ROW_RQ2(p, x, w, rq, y, UTVM_FC_BLK4_RQ2_PT, UTVM_FC_BLK4_RQ2);
}

static UTVM_DSP_HOT void utvm_fc_blk4_row_rq2_pc(const utvm_fc_blk4_params* p, const int32_t* x, const int32_t* w,
                                                 const int32_t* rq, int8_t* y) {
  UTVM_FC_BLK4_ROW_RQ2(p, x, w, rq, y, UTVM_FC_BLK4_RQ2_PCT, UTVM_FC_BLK4_RQ2_PC);
}

static UTVM_DSP_HOT void utvm_fc_blk4_row_fast(const utvm_fc_blk4_params* p, const int32_t* x, const int32_t* w,
                                               const int32_t* rq, int8_t* y) {
  utvm_fc_blk4_row(p, x, NULL, w, rq, y, UTVM_DSP_RQ_FAST, true);
}

static UTVM_DSP_NOINLINE void utvm_fc_blk4_row_any(const utvm_fc_blk4_params* p, const int32_t* x,
                                                   const int32_t* w, const int32_t* rq, int8_t* y) {
  utvm_fc_blk4_row(p, x, NULL, w, rq, y, UTVM_DSP_RQ_ANY, true);
}

/* One block of units and the full int8 range (micro_speech's 4000 x 4, VWW's last layer): the raw
 * input row, no widening (it would cost about 7 instructions per input word against the 2 it saves
 * per word and block). */
static UTVM_DSP_HOT void utvm_fc_blk4_row_full_raw(const utvm_fc_blk4_params* p, const int8_t* x, const int32_t* w,
                                                   const int32_t* rq, int8_t* y) {
  utvm_fc_blk4_row(p, NULL, x, w, rq, y, UTVM_DSP_RQ_FULL, false);
}

/* The n4 input words of x as int16 lanes into s: per word its even bytes (SXTB16), then its odd
 * bytes, so that the row loop loads both with one LDRD instead of extending the word for every
 * block of units (4 instructions fewer per 32 MACs). */
static void utvm_fc_blk4_widen(const int8_t* x, int32_t n4, int32_t* s) {
  int32_t k;
  for (k = 0; k < n4; ++k) {
    const int32_t v = utvm_dsp_ld4(&x[4 * k]);
    s[2 * k] = utvm_dsp_even(v);
    s[(2 * k) + 1] = utvm_dsp_odd(v);
  }
}

/* The same with twice the bytes (SADD16; rq_modes 3 / 4, whose n4 is a multiple of 8): two input
 * words per step, pointers running to the row's end (GCC -Os compiled the indexed loop above to
 * about 19 cycles per word, two branches taken). */
static UTVM_DSP_HOT void utvm_fc_blk4_widen2(const int8_t* x, int32_t n4, int32_t* s) {
  const int32_t* const end = &s[2 * n4];
  const int8_t* px = x;
  int32_t* ps = s;
  while (ps != end) {
    const int32_t v0 = utvm_dsp_ld4(px);
    const int32_t v1 = utvm_dsp_ld4(&px[4]);
    const int32_t e0 = utvm_dsp_even(v0);
    const int32_t o0 = utvm_dsp_odd(v0);
    const int32_t e1 = utvm_dsp_even(v1);
    const int32_t o1 = utvm_dsp_odd(v1);
    ps[0] = __sadd16(e0, e0);
    ps[1] = __sadd16(o0, o0);
    ps[2] = __sadd16(e1, e1);
    ps[3] = __sadd16(o1, o1);
    px = &px[8];
    ps = &ps[4];
  }
}

/* out[b][c] = requant(bias[c] + w[c] . in[b]) over every batch row (layouts above); scratch: 2 x depth
 * bytes + 4 to align (kernel_table.py rule; 4 bytes when the raw row is read). */
static void utvm_fully_connected_s8_blk4(const utvm_fc_blk4_params* p, const int8_t* in, const int32_t* w,
                                         const int32_t* rq, void* scratch, int8_t* out) {
  uint8_t* const raw = (uint8_t*)scratch;
  int32_t* const x = (int32_t*)(void*)&raw[(4u - ((uintptr_t)raw & 3u)) & 3u];
  int32_t b;
  for (b = 0; b < p->batches; ++b) {
    int8_t* y = &out[b * p->units];
    const int8_t* xb = &in[b * p->depth];
    const int32_t mode = p->rq_mode;
    /* each test leads with its mode's bit: the copies no call of the file takes are left out */
    if (UTVM_FC_BLK4_USES(UTVM_DSP_RQ_FULL) && (mode == UTVM_DSP_RQ_FULL) && (p->units <= 4)) {
      utvm_fc_blk4_row_full_raw(p, xb, w, rq, y);
    } else if (((UTVM_FC_BLK4_RQ_MODES & 0x18u) != 0u) && (mode >= UTVM_FC_BLK4_RQ2)) {
      utvm_fc_blk4_widen2(xb, p->depth >> 2, x);
      if (UTVM_FC_BLK4_USES(UTVM_FC_BLK4_RQ2) && (mode == UTVM_FC_BLK4_RQ2)) {
        utvm_fc_blk4_row_rq2(p, x, w, rq, y);
      } else if (UTVM_FC_BLK4_USES(UTVM_FC_BLK4_RQ2_PC)) {
        utvm_fc_blk4_row_rq2_pc(p, x, w, rq, y);
      }
    } else if ((UTVM_FC_BLK4_RQ_MODES & 7u) != 0u) {
      utvm_fc_blk4_widen(xb, p->depth >> 2, x);
      if (UTVM_FC_BLK4_USES(UTVM_DSP_RQ_FULL) && (mode == UTVM_DSP_RQ_FULL)) {
        utvm_fc_blk4_row_full(p, x, w, rq, y);
      } else if (UTVM_FC_BLK4_USES(UTVM_DSP_RQ_FAST) && (mode == UTVM_DSP_RQ_FAST)) {
        utvm_fc_blk4_row_fast(p, x, w, rq, y);
      } else if (UTVM_FC_BLK4_USES(UTVM_DSP_RQ_ANY)) {
        utvm_fc_blk4_row_any(p, x, w, rq, y);
      }
    }
  }
}

#endif /* UTVM_KERNELS_ARM_DSP_FULLY_CONNECTED_S8_BLK4_H_ */
