/* utvm-build kernels, DSP extension: ADD / SUB, int8, operands of the same shape (ResNet's
 * residual additions). A kernel only the DSP targets have: the generator calls it instead of
 * utvm_add_s8 when the target's kernel table provides it (ops/elementwise.py), with two tables.
 *
 * The reference rescales each input value on its own (MultiplyByQuantizedMultiplierSmallerThanOneExp
 * of (v + offset) * 2^20): a function of 256 int8 values, tabulated at compile time (t1, t2: 256
 * int32 each, indexed by the input byte as unsigned; SUB: t2 holds the negated rescale, as
 * sub.cc's negative multiplier). Per element: two loads from the tables, their sum, the output
 * rescale (add_s8.h's exact one-multiply form, RDBP(SRDHM(x, m), e) for |x| < 2^29: the tabulated
 * values are below 2^28) with the output offset, the clamp.
 */
#ifndef UTVM_KERNELS_ARM_DSP_ADD_S8_LUT_H_
#define UTVM_KERNELS_ARM_DSP_ADD_S8_LUT_H_

#if !defined(__ARM_FEATURE_DSP) || (__ARM_FEATURE_DSP != 1)
#error "utvm-build: these kernels were generated for a DSP target (--target cortex-m4/m7/m33/m55) but compiled without the DSP extension; use --target generic"
#endif

#include "dsp_s8.h"
#include "elementwise.h"
#include "ew_rows.h"

/* The loop with dsp_s8.h's SMLAL form of the output rescale (1 <= e <= 31, m >= 0: the rounding
 * doubling high product and the rounding shift in one SMLAL from a 64-bit constant; and, adds, adc,
 * smlal, asr), then the output offset and the clamp (one SSAT for the full int8 range). */
static UTVM_DSP_INLINE void utvm_add_s8_lut_rq(const utvm_add_q_params* p, const int32_t* t1, const int32_t* t2,
                                               int32_t n, const int8_t* in1, const int8_t* in2, int8_t* out,
                                               bool full) {
  utvm_dsp_rq_ch rq;
  const int32_t zp = p->output_offset;
  const int32_t lo = p->act_min;
  const int32_t hi = p->act_max;
  int32_t k;
  utvm_dsp_rq_setup(&rq, p->output_multiplier, p->output_shift);
  for (k = 0; k < n; ++k) {
    const int32_t x = t1[(uint8_t)in1[k]] + t2[(uint8_t)in2[k]];
    int32_t r = utvm_dsp_rq_fast(rq.init_lo, rq.init_hi, rq.sh, rq.m, x) + zp;
    if (full) {
      r = __ssat(r, 8);
    } else {
      r = (r < lo) ? lo : r;
      r = (r > hi) ? hi : r;
    }
    out[k] = (int8_t)r;
  }
}

static UTVM_DSP_NOINLINE void utvm_add_s8_lut_rq_full(const utvm_add_q_params* p, const int32_t* t1,
                                                      const int32_t* t2, int32_t n, const int8_t* in1,
                                                      const int8_t* in2, int8_t* out) {
  utvm_add_s8_lut_rq(p, t1, t2, n, in1, in2, out, true);
}

static UTVM_DSP_NOINLINE void utvm_add_s8_lut_rq_clamp(const utvm_add_q_params* p, const int32_t* t1,
                                                       const int32_t* t2, int32_t n, const int8_t* in1,
                                                       const int8_t* in2, int8_t* out) {
  utvm_add_s8_lut_rq(p, t1, t2, n, in1, in2, out, false);
}

/* n elements; p: output_multiplier, output_shift (<= 0), output_offset, act_min, act_max. The two
 * entries of this header (utvm_add_s8_lut, utvm_add_s8_lin) are static inline: a model that calls
 * one of them compiles without an unused-function warning for the other. */
static inline void utvm_add_s8_lut(const utvm_add_q_params* p, const int32_t* t1, const int32_t* t2, int32_t n,
                                   const int8_t* in1, const int8_t* in2, int8_t* out) {
  /* the output rescale (see add_s8.h utvm_add_s8_rescale): floor((x m + c) / 2^31) with
   * c = 2^30 - [sign of x m negative, e >= 1] 2^31, then (V + 2^31 + 2^(e-1)) >> e - 2^(31-e) + zp
   * on uint32_t */
  const uint32_t e = (uint32_t)(-p->output_shift);
  const int32_t m = p->output_multiplier;
  const int32_t c_neg = ((e > 0u) && (m >= 0)) ? (int32_t)-1073741824 : (int32_t)1073741824;
  const int32_t c_pos = ((e > 0u) && (m < 0)) ? (int32_t)-1073741824 : (int32_t)1073741824;
  const uint32_t round = (e > 0u) ? (0x80000000u + ((uint32_t)1 << (e - 1u))) : 0x80000000u;
  const uint32_t offset = (0x80000000u >> e) - (uint32_t)p->output_offset;
  const int32_t lo = p->act_min;
  const int32_t hi = p->act_max;
  int32_t k;
  if ((e >= 1u) && (e <= 31u) && (m >= 0)) {
    if ((lo == -128) && (hi == 127)) {
      utvm_add_s8_lut_rq_full(p, t1, t2, n, in1, in2, out);
    } else {
      utvm_add_s8_lut_rq_clamp(p, t1, t2, n, in1, in2, out);
    }
  } else {
    for (k = 0; k < n; ++k) {
      const int32_t x = t1[(uint8_t)in1[k]] + t2[(uint8_t)in2[k]];
      const int64_t t = ((int64_t)x * (int64_t)m) + (int64_t)((x < 0) ? c_neg : c_pos);
      const uint32_t v = (uint32_t)((uint64_t)t >> 31u);
      int32_t r = (int32_t)(((v + round) >> e) - offset);
      r = (r < lo) ? lo : r;
      r = (r > hi) ? hi : r;
      out[k] = (int8_t)r;
    }
  }
}

/* ---- The linear form: one input through a multiply, the other through one table ----------------
 *
 * For an operator whose (scales, zero points, activation) admit it, the generator (ops/add_s8_lin.py)
 * finds an int32 c and a 256-entry int32 table u such that, for EVERY pair of int8 values (a, b) of
 * the two inputs (the "linear" one and the "tabulated" one),
 *   clamp(USAT((floor(c * a / 2^8) + u[b]) >> 16, 8), act_min + 128, act_max + 128) - 128
 * equals TFLite's result (both input rescales, their sum, the output rescale, the zero point, the
 * clamp): it checks all 65 536 pairs at compile time, and keeps the two tables above when no c fits.
 * The table holds the result plus 128 (in its top half), so that SATURATE-to-unsigned leaves each
 * value in one byte with zero bits above it.
 * floor(c * (a * 2^8) / 2^16) + u is one SMLAWB / SMLAWT with a * 2^8 in a 16-bit lane: the odd bytes
 * of a word are there after an AND with 0xFF00FF00, the even ones after a shift left by 8 and the same
 * AND. Four elements per step: one word load of the linear input, four byte loads of the other, four
 * table loads (nine loads in a row: the M4 pipelines neighbouring loads), two ANDs, four SMLAW, two
 * PKHTB (the top halves of two sums: >> 16), two USAT16 (to 0..255), one ORR packing the four bytes,
 * one EOR back to int8, one store: 23 instructions. A narrower activation range adds USUB8 / SEL
 * twice on the packed bytes. */

/* One element: the biased value (0..255) before the clamp. */
static UTVM_DSP_INLINE int32_t utvm_add_s8_lin_one(int32_t c, const int32_t* u, int8_t a, int8_t b) {
  const int32_t x = __smlawb(c, (int32_t)((uint32_t)(int32_t)a << 8u), u[(uint8_t)b]);
  return (int32_t)__usat(x >> 16, 8);
}

/* Four elements at lin, tab: the biased bytes packed into r (lin and tab advanced by 4). GCC and Clang
 * get the sequence as inline assembly (GCC spreads the loads among the arithmetic, where each costs
 * 2 cycles instead of 1, and computes every table index from one word with UBFX); other compilers, and
 * builds with UTVM_NO_INLINE_ASM (docs/kernel-guide.md), the same operations in C. 11 operands: it
 * compiles at -O0 .. -O3 and with the frame pointer kept (the loop function is at -O2 whatever the
 * level, UTVM_DSP_HOT). */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(UTVM_NO_INLINE_ASM)
#define UTVM_ADD_S8_LIN_STEP4(r)                                                                     \
  do {                                                                                               \
    uint32_t wa_;                                                                                    \
    uint32_t a02_;                                                                                   \
    uint32_t t1_;                                                                                    \
    uint32_t t2_;                                                                                    \
    uint32_t t3_;                                                                                    \
    __asm__("ldr %[wa], [%[lin]], #4\n\t"                                                            \
            "ldrb %[t1], [%[tab], #1]\n\t"                                                           \
            "ldrb %[t2], [%[tab], #2]\n\t"                                                           \
            "ldrb %[t3], [%[tab], #3]\n\t"                                                           \
            "ldrb %[t0], [%[tab]], #4\n\t"                                                           \
            "ldr %[t1], [%[u], %[t1], lsl #2]\n\t"                                                   \
            "ldr %[t2], [%[u], %[t2], lsl #2]\n\t"                                                   \
            "ldr %[t3], [%[u], %[t3], lsl #2]\n\t"                                                   \
            "ldr %[t0], [%[u], %[t0], lsl #2]\n\t"                                                   \
            "and %[a02], %[mask], %[wa], lsl #8\n\t"                                                 \
            "and %[wa], %[wa], %[mask]\n\t"                                                          \
            "smlawb %[t0], %[c], %[a02], %[t0]\n\t"                                                  \
            "smlawt %[t2], %[c], %[a02], %[t2]\n\t"                                                  \
            "smlawb %[t1], %[c], %[wa], %[t1]\n\t"                                                   \
            "smlawt %[t3], %[c], %[wa], %[t3]\n\t"                                                   \
            "pkhtb %[t0], %[t2], %[t0], asr #16\n\t"                                                 \
            "pkhtb %[t1], %[t3], %[t1], asr #16\n\t"                                                 \
            "usat16 %[t0], #8, %[t0]\n\t"                                                            \
            "usat16 %[t1], #8, %[t1]\n\t"                                                            \
            "orr %[t0], %[t0], %[t1], lsl #8"                                                        \
            : [wa] "=&r"(wa_), [a02] "=&r"(a02_), [t0] "=&r"(r), [t1] "=&r"(t1_), [t2] "=&r"(t2_),   \
              [t3] "=&r"(t3_), [lin] "+r"(lin), [tab] "+r"(tab)                                      \
            : [u] "r"(u), [c] "r"(c), [mask] "r"(mask)                                               \
            : "memory");                                                                             \
  } while (0)
#else
#define UTVM_ADD_S8_LIN_STEP4(r)                                                                     \
  do {                                                                                               \
    const uint32_t wa_ = (uint32_t)utvm_dsp_ld4(lin);                                                \
    const uint32_t a13_ = wa_ & mask;                                                                \
    const uint32_t a02_ = (wa_ << 8u) & mask;                                                        \
    const int32_t x0_ = __smlawb(c, (int32_t)a02_, u[(uint8_t)tab[0]]);                              \
    const int32_t x1_ = __smlawb(c, (int32_t)a13_, u[(uint8_t)tab[1]]);                              \
    const int32_t x2_ = __smlawt(c, (int32_t)a02_, u[(uint8_t)tab[2]]);                              \
    const int32_t x3_ = __smlawt(c, (int32_t)a13_, u[(uint8_t)tab[3]]);                              \
    const uint32_t y02_ = (uint32_t)__usat16((int16x2_t)utvm_dsp_pkhtb((uint32_t)x2_, (uint32_t)x0_), 8); \
    const uint32_t y13_ = (uint32_t)__usat16((int16x2_t)utvm_dsp_pkhtb((uint32_t)x3_, (uint32_t)x1_), 8); \
    (r) = y02_ | (y13_ << 8u);                                                                       \
    lin = &lin[4];                                                                                   \
    tab = &tab[4];                                                                                   \
  } while (0)
#endif

/* Eight elements per step (the loop's counter and branch once per eight), then four, then one by one;
 * CLAMP may change the packed biased bytes r_ before they are stored. */
#define UTVM_ADD_S8_LIN_LOOP(CLAMP)                                                                  \
  do {                                                                                               \
    const uint32_t mask = 0xFF00FF00u;                                                               \
    int32_t i_;                                                                                      \
    uint32_t r_;                                                                                     \
    for (i_ = n >> 3; i_ > 0; --i_) {                                                                \
      UTVM_ADD_S8_LIN_STEP4(r_);                                                                     \
      CLAMP;                                                                                         \
      r_ ^= 0x80808080u;                                                                             \
      (void)memcpy(out, &r_, sizeof r_);                                                             \
      UTVM_ADD_S8_LIN_STEP4(r_);                                                                     \
      CLAMP;                                                                                         \
      r_ ^= 0x80808080u;                                                                             \
      (void)memcpy(&out[4], &r_, sizeof r_);                                                         \
      out = &out[8];                                                                                 \
    }                                                                                                \
    if ((n & 4) != 0) {                                                                              \
      UTVM_ADD_S8_LIN_STEP4(r_);                                                                     \
      CLAMP;                                                                                         \
      r_ ^= 0x80808080u;                                                                             \
      (void)memcpy(out, &r_, sizeof r_);                                                             \
      out = &out[4];                                                                                 \
    }                                                                                                \
    for (i_ = 0; i_ < (n & 3); ++i_) {                                                               \
      int32_t v_ = utvm_add_s8_lin_one(c, u, lin[i_], tab[i_]) - 128;                                \
      v_ = (v_ < lo) ? lo : v_;                                                                      \
      v_ = (v_ > hi) ? hi : v_;                                                                      \
      out[i_] = (int8_t)v_;                                                                          \
    }                                                                                                \
  } while (0)

/* The full int8 range: USAT16 is the clamp. */
static UTVM_DSP_HOT void utvm_add_s8_lin_full(int32_t c, const int32_t* u, int32_t n, const int8_t* lin,
                                              const int8_t* tab, int8_t* out) {
  const int32_t lo = -128;
  const int32_t hi = 127;
  UTVM_ADD_S8_LIN_LOOP((void)0);
}

/* [lo, hi]: the biased bytes' maximum with lo + 128 and minimum with hi + 128 (USUB8 sets a byte's GE
 * flag when its unsigned difference is >= 0, SEL takes that byte from its first operand where it is set). */
static UTVM_DSP_HOT void utvm_add_s8_lin_clamp(int32_t c, const int32_t* u, int32_t n, const int8_t* lin,
                                               const int8_t* tab, int8_t* out, int32_t lo, int32_t hi) {
  const uint32_t lo4 = 0x01010101u * (uint32_t)(lo + 128);
  const uint32_t hi4 = 0x01010101u * (uint32_t)(hi + 128);
  UTVM_ADD_S8_LIN_LOOP({
    (void)__usub8(r_, lo4); /* GE where r >= lo */
    r_ = __sel(r_, lo4);
    (void)__usub8(hi4, r_); /* GE where hi >= r */
    r_ = __sel(r_, hi4);
  });
}

/* n elements: lin is the input that goes through c, tab the one through u (which of ADD's operands
 * each is: the generator's call); p: act_min, act_max. */
static inline void utvm_add_s8_lin(const utvm_add_q_params* p, const int32_t* u, int32_t c, int32_t n,
                                   const int8_t* lin, const int8_t* tab, int8_t* out) {
  if ((p->act_min == -128) && (p->act_max == 127)) {
    utvm_add_s8_lin_full(c, u, n, lin, tab, out);
  } else {
    utvm_add_s8_lin_clamp(c, u, n, lin, tab, out, p->act_min, p->act_max);
  }
}

/* Broadcasting operands in the linear form (elementwise.h UTVM_EW_ROWS; sh's stride1 / stride2 are
 * lin's / tab's: the generator swaps them with the operands): a row where both advance is the loop
 * above; a row with one input repeated along it (a per-channel vector, a scalar) one SMLAWB and USAT
 * per element. */
typedef struct {
  const utvm_add_q_params* p;
  const int32_t* u;
  int32_t c;
} utvm_add_lin_rows;

static UTVM_DSP_INLINE void utvm_add_lin_row(const utvm_add_lin_rows* w, const int8_t* a, int32_t sl, const int8_t* b,
                                             int32_t st, int8_t* out, int32_t n) {
  int32_t k;
  if ((sl != 0) && (st != 0)) {
    utvm_add_s8_lin(w->p, w->u, w->c, n, a, b, out);
  } else {
    for (k = 0; k < n; ++k) {
      const int32_t v = utvm_add_s8_lin_one(w->c, w->u, a[k * sl], b[k * st]) - 128;
      out[k] = (int8_t)utvm_clamp_i32(v, w->p->act_min, w->p->act_max);
    }
  }
}

static inline void utvm_add_s8_lin_bc(const utvm_add_q_params* p, const utvm_ew_shape* sh, const int32_t* u, int32_t c,
                                      const int8_t* lin, const int8_t* tab, int8_t* out) {
  utvm_add_lin_rows w;
  w.p = p;
  w.u = u;
  w.c = c;
  UTVM_EW_ROWS(sh, lin, tab, out, utvm_add_lin_row, &w);
}

#endif /* UTVM_KERNELS_ARM_DSP_ADD_S8_LUT_H_ */
