/* utvm-build kernels, Armv7E-M / Armv8-M DSP extension (Cortex-M4, M7, M33, M55): the helpers
 * shared by the DSP int8 kernels of this folder (ACLE intrinsics from arm_acle.h, no assembler).
 *
 * - utvm_dsp_ld4: four int8 in one (possibly unaligned) 32-bit load; Armv7E-M and Armv8-M
 *   Mainline LDR accept unaligned addresses (memcpy compiles to one LDR there).
 * - utvm_dsp_even / utvm_dsp_odd: SXTB16 of bytes 0 and 2, or of bytes 1 and 3 (SXTB16 of the
 *   word rotated by 8), each as two int16 lanes for SMLAD / SMLABB / SMLATT.
 * - utvm_dsp_rq: TFLite MultiplyByQuantizedMultiplier, exact, in one SMLAL and four simple
 *   instructions per value once a channel's constants are known (derivation below).
 */
#ifndef UTVM_KERNELS_ARM_DSP_DSP_S8_H_
#define UTVM_KERNELS_ARM_DSP_DSP_S8_H_

#if !defined(__ARM_FEATURE_DSP) || (__ARM_FEATURE_DSP != 1)
#error "utvm-build: these kernels were generated for a DSP target (--target cortex-m4/m7/m33/m55) but compiled without the DSP extension; use --target generic"
#endif

#include <arm_acle.h>
#include <string.h>

#include "common.h"

#if defined(__GNUC__) || defined(__clang__)
#define UTVM_DSP_NOINLINE __attribute__((noinline))
#define UTVM_DSP_INLINE __attribute__((always_inline)) inline
#else
#define UTVM_DSP_NOINLINE
#define UTVM_DSP_INLINE inline
#endif

/* A loop GCC allocates registers for better at -O2 than at -Os (at -Os it keeps accumulators on the
 * stack there, measured): GCC gets that function at -O2 whatever the build's level, without the
 * scheduling pass before register allocation (-fno-schedule-insns: it hoists loads and lengthens
 * live ranges; the conv 2x2 loop then spilled its counter and reloaded an input word, 38 instead of
 * 34 instructions per 32 multiply-accumulates, measured). */
#if defined(__GNUC__) && !defined(__clang__)
#define UTVM_DSP_HOT __attribute__((noinline, optimize("O2", "no-schedule-insns")))
/* the same with the scheduling pass (the shared-input depthwise window: micro_speech 1.135 M
 * instructions against 1.143 M without it) */
#define UTVM_DSP_HOT_SCHED __attribute__((noinline, optimize("O2")))
#else
#define UTVM_DSP_HOT UTVM_DSP_NOINLINE
#define UTVM_DSP_HOT_SCHED UTVM_DSP_NOINLINE
#endif
/* A kernel file with two entry points of which a model may use one (conv2d_s8_q15.h and
 * conv2d_s8_q15w.h: the general kernel and its 1x1 one): no unused-function warning for the other. */
#if defined(__GNUC__) && !defined(__clang__)
#define UTVM_DSP_ENTRY __attribute__((unused))
#define UTVM_DSP_HOT_ENTRY __attribute__((noinline, optimize("O2", "no-schedule-insns"), unused))
#elif defined(__clang__)
#define UTVM_DSP_ENTRY __attribute__((unused))
#define UTVM_DSP_HOT_ENTRY __attribute__((noinline, unused))
#else
#define UTVM_DSP_ENTRY
#define UTVM_DSP_HOT_ENTRY
#endif

/* Four int32 locals N0..N3 held in r8..r11 (GCC inline assembly: the register list of an LDM must
 * be ascending, so its operands are named registers). */
#define UTVM_DSP_R8_R11(N0, N1, N2, N3) \
  register int32_t N0 __asm__("r8");     \
  register int32_t N1 __asm__("r9");     \
  register int32_t N2 __asm__("r10");    \
  register int32_t N3 __asm__("r11")

static UTVM_DSP_INLINE int32_t utvm_dsp_ld4(const int8_t* p) {
  uint32_t v;
  (void)memcpy(&v, p, sizeof v);
  return (int32_t)v;
}

static UTVM_DSP_INLINE int32_t utvm_dsp_even(int32_t v) { return __sxtb16(v); }

/* GCC 12 does not fold the rotation into SXTB16's own ROR #8 operand (an extra instruction per
 * word), so GCC and Clang get that one instruction as inline assembly, as CMSIS-NN does
 * (__SXTB16_RORn); other compilers the intrinsic. */
static UTVM_DSP_INLINE int32_t utvm_dsp_odd(int32_t v) {
  int32_t r;
#if defined(__GNUC__) || defined(__clang__)
  __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(v));
#else
  const uint32_t u = (uint32_t)v;
  r = __sxtb16((int32_t)((u >> 8u) | (u << 24u)));
#endif
  return r;
}

/* offs + utvm_dsp_odd(v) lane by lane (SXTAB16 with ROR #8). */
static UTVM_DSP_INLINE int32_t utvm_dsp_odd_add(int32_t offs, int32_t v) {
  int32_t r;
#if defined(__GNUC__) || defined(__clang__)
  __asm__("sxtab16 %0, %1, %2, ror #8" : "=r"(r) : "r"(offs), "r"(v));
#else
  const uint32_t u = (uint32_t)v;
  r = __sxtab16(offs, (int32_t)((u >> 8u) | (u << 24u)));
#endif
  return r;
}

/* (a & 0xFFFF) | (b << 16) (PKHBT) and (a & 0xFFFF0000) | (b >> 16) (PKHTB, b's top lane into the
 * bottom one); GCC does not form them from the C expressions. */
static UTVM_DSP_INLINE uint32_t utvm_dsp_pkhbt(uint32_t a, uint32_t b) {
  uint32_t r;
#if defined(__GNUC__) || defined(__clang__)
  __asm__("pkhbt %0, %1, %2, lsl #16" : "=r"(r) : "r"(a), "r"(b));
#else
  r = (a & 0xFFFFu) | (b << 16u);
#endif
  return r;
}

static UTVM_DSP_INLINE uint32_t utvm_dsp_pkhtb(uint32_t a, uint32_t b) {
  uint32_t r;
#if defined(__GNUC__) || defined(__clang__)
  __asm__("pkhtb %0, %1, %2, asr #16" : "=r"(r) : "r"(a), "r"(b));
#else
  r = (a & 0xFFFF0000u) | (b >> 16u);
#endif
  return r;
}

/* Requantization constants of one channel (multiplier m, shift s of TFLite QuantizeMultiplier,
 * m = 0 or 2^30 <= m < 2^31):
 *
 * For e = -s >= 1, MultiplyByQuantizedMultiplier(x, m, s) = RDBP(SRDHM(x, m), e) with
 * SRDHM(x, m) = h = floor((x m + 2^30) / 2^31) (m != INT32_MIN: no saturation; gemmlowp's
 * truncated nudged quotient is this floor for both signs, see common.h) and
 * RDBP(h, e) = floor((h + 2^(e-1) - [h < 0]) / 2^e). Nesting the floors (B an integer:
 * floor((floor(A / 2^31) + B) / 2^e) = floor((A + B 2^31) / 2^(31+e))):
 *   result = floor((x m + 2^30 + 2^(30+e) - [h < 0] 2^31) / 2^(31+e)).
 * [h < 0] may be replaced by [x < 0] (m >= 0): they differ only when -2^30 <= x m < 0, where h = 0
 * and the result is 0 with either (0 <= x m + 2^30 + 2^(30+e) - 2^31 < 2^(31+e) for e >= 1).
 * |x m| < 2^62 and 2^30 + 2^(30+e) <= 2^61 + 2^30 (e <= 31): the sum fits int64, and
 * floor(V / 2^(31+e)) = floor(V / 2^32) >> (e - 1) (arithmetic): the high word of one SMLAL,
 * started from init = 2^30 + 2^(30+e) - [x < 0] 2^31, shifted right by e - 1.
 * For s >= 0 (or e > 31, which TFLite's RoundingDivideByPOT does not allow either) the generic
 * arithmetic of common.h is used. */
typedef struct {
  int32_t m;
  uint32_t init_lo; /* low word of 2^30 + 2^(30+e); the generic path: the shift s */
  int32_t init_hi;  /* high word */
  int32_t sh;       /* e - 1; -1: the generic path */
} utvm_dsp_rq_ch;

static UTVM_DSP_INLINE void utvm_dsp_rq_setup(utvm_dsp_rq_ch* c, int32_t m, int32_t s) {
  const int32_t e = -s;
  c->m = m;
  c->init_lo = (uint32_t)s;
  c->init_hi = 0;
  c->sh = -1;
  if ((e >= 1) && (e <= 31)) {
    const uint32_t t = (uint32_t)1 << (uint32_t)e;
    c->init_lo = (t << 30u) + 0x40000000u; /* e = 1: 2^30 + 2^31; e >= 2: 2^30 */
    c->init_hi = (int32_t)(t >> 2u);        /* e >= 2: 2^(e-2) */
    c->sh = e - 1;
  }
}

/* The fast path: init_lo/init_hi/sh of a channel with 1 <= e <= 31. */
static UTVM_DSP_INLINE int32_t utvm_dsp_rq_fast(uint32_t init_lo, int32_t init_hi, int32_t sh, int32_t m,
                                                int32_t x) {
  const int64_t init = (int64_t)(((uint64_t)(uint32_t)init_hi << 32u) | (uint64_t)init_lo);
  const int64_t neg = (int64_t)(int32_t)((uint32_t)x & 0x80000000u); /* -2^31 when x < 0 */
  const int64_t v = (init + neg) + ((int64_t)x * (int64_t)m);
  return (int32_t)((uint32_t)((uint64_t)v >> 32u)) >> sh;
}

/* MultiplyByQuantizedMultiplier(x, m, s), bit-exact (see utvm_dsp_rq_ch). */
static UTVM_DSP_INLINE int32_t utvm_dsp_rq(const utvm_dsp_rq_ch* c, int32_t x) {
  int32_t r;
  if (c->sh >= 0) {
    r = utvm_dsp_rq_fast(c->init_lo, c->init_hi, c->sh, c->m, x);
  } else {
    r = utvm_mul_by_quantized_mul(x, c->m, (int32_t)c->init_lo);
  }
  return r;
}

/* Requantized value + output offset, clamped to [lo, hi], as int8. */
static UTVM_DSP_INLINE int8_t utvm_dsp_rq_out(const utvm_dsp_rq_ch* c, int32_t x, int32_t zp, int32_t lo,
                                              int32_t hi) {
  int32_t v = utvm_dsp_rq(c, x) + zp;
  v = (v < lo) ? lo : v;
  v = (v > hi) ? hi : v;
  return (int8_t)v;
}

/* The requantization of the kernels whose constants the generator prepares (conv2d_s8_q15.h,
 * depthwise_conv2d_s8_q15.h): per channel three int32 (m, k, sh) and a mode for the whole
 * operator, a constant in each specialized copy of the calling loop:
 * - UTVM_DSP_RQ_ANY: (m, 0, shift), common.h's arithmetic, + output offset, clamp to [lo, hi];
 * - UTVM_DSP_RQ_FAST: every shift -e in -31..-2 and e <= 22: k = 2^(e-2) + zp 2^(e-1), sh = e - 1:
 *   utvm_dsp_rq_fast with init = (k, 2^30), which adds the output offset zp as well (exact:
 *   floor((V + zp 2^(31+e)) / 2^(31+e)) = floor(V / 2^(31+e)) + zp; |V| / 2^32 < 2^30 + 2^29 and
 *   |zp| 2^(e-1) <= 2^28 keep the high word in int32), then the clamp to [lo, hi];
 * - UTVM_DSP_RQ_FULL: the same with the full int8 range (lo = -128, hi = 127, e.g. ReLU outputs
 *   with zero point -128): one SSAT. */
#define UTVM_DSP_RQ_ANY 0
#define UTVM_DSP_RQ_FAST 1
#define UTVM_DSP_RQ_FULL 2

static UTVM_DSP_INLINE int8_t utvm_dsp_rq3(int32_t acc, int32_t mode, int32_t m, int32_t k, int32_t sh, int32_t zp,
                                           int32_t lo, int32_t hi) {
  int32_t v;
  if (mode == UTVM_DSP_RQ_ANY) {
    v = utvm_mul_by_quantized_mul(acc, m, sh) + zp;
  } else {
    v = utvm_dsp_rq_fast(0x40000000u, k, sh, m, acc);
  }
  if (mode == UTVM_DSP_RQ_FULL) {
    v = __ssat(v, 8);
  } else {
    v = (v < lo) ? lo : v;
    v = (v > hi) ? hi : v;
  }
  return (int8_t)v;
}

/* UTVM_DSP_RQ_FULL on twice the sum (x2 = 2 acc, the factor folded into the weights and biases by
 * the generator, which keeps |x2| < 2^31), with the triplet (m, 2k, sh + 1) (ops/conv.py
 * rq2_triplets): SMMLAR's floor(((2k - [x2 < 0]) 2^32 + x2 m + 2^31) / 2^32) >> (sh + 1) is
 * utvm_dsp_rq3's floor((k 2^32 + 2^30 - [acc < 0] 2^31 + acc m) / 2^(32 + sh)): 4 instructions per
 * sum instead of 6. UTVM_DSP_RQ2_TEXT(X, T, M, K2, S1): inline assembly text on operands named
 * X (the sum, replaced by the output byte), T (a temporary) and the triplet M, K2, S1. */
#define UTVM_DSP_RQ2_TEXT(X, T, M, K2, S1)                                                              \
  "add %[" T "], %[" K2 "], %[" X "], asr #31\n\tsmmlar %[" T "], %[" X "], %[" M "], %[" T "]\n\t" \
  "asr %[" T "], %[" T "], %[" S1 "]\n\tssat %[" X "], #8, %[" T "]\n\t"

/* The same in C (other compilers, -O0, the kernels' C forms); t = (m, 2k, sh + 1). */
static UTVM_DSP_INLINE int8_t utvm_dsp_rq2(int32_t x2, const int32_t* t) {
  const int64_t hi = (int64_t)t[1] - (int64_t)(((uint32_t)x2 >> 31u) & 1u);
  const int64_t v = (hi * 4294967296) + ((int64_t)x2 * (int64_t)t[0]) + 2147483648;
  return (int8_t)__ssat((int32_t)((uint32_t)((uint64_t)v >> 32u)) >> t[2], 8);
}

#endif /* UTVM_KERNELS_ARM_DSP_DSP_S8_H_ */
