/* utvm-build kernels, Helium (M-profile Vector Extension, Armv8.1-M: Cortex-M55, M85, M52): the
 * helpers shared by the int8 MVE kernels of this folder (ACLE intrinsics from arm_mve.h, no
 * assembler).
 *
 * - utvm_mve_rq: TFLite MultiplyByQuantizedMultiplier on 4 int32 lanes, exact:
 *   * the left shift (shift > 0) is VSHL by register, which wraps as the reference's int32 shift
 *     does in practice (common.h utvm_shl_wrap_i32);
 *   * SaturatingRoundingDoublingHighMul is VQRDMULH: gemmlowp's (ab + nudge) / 2^31 truncated,
 *     nudge 2^30 or 1 - 2^30 by the sign of ab, equals floor((ab + 2^30) / 2^31) for both signs
 *     (common.h), which is VQRDMULH's (2ab + 2^31) >> 32; both saturate only INT32_MIN^2;
 *   * RoundingDivideByPOT(x, e) rounds ties away from zero, VRSHL by -e rounds them up: for
 *     x < 0 and e > 0 subtract 1 first (VQADD of (x & -e) >> 31, the sign bit of x where the
 *     shift is negative): floor((x - 1 + 2^(e-1)) / 2^e) is the reference's result for every
 *     negative x (ties -(2k+1) 2^(e-1) go to -(k+1), other x are not moved across a multiple of
 *     2^e); x = INT32_MIN saturates in VQADD and still gives -2^(31-e) exactly. VRSHL's sum is
 *     not truncated to 32 bits (Armv8.1-M pseudocode), so x near INT32_MAX is exact too.
 *   Tests: tests/test_kernels_arm_mve.py (edge cases on QEMU mps3-an547 against common.h).
 * - utvm_mve_rq_right: the same when no lane shifts left (the kernels check their layer's shifts
 *   once, utvm_mve_any_left, and take it then);
 * - utvm_mve_copy / utvm_mve_fill: byte runs with tail-predicated 16-byte vectors (newlib-nano's
 *   memcpy copies byte by byte).
 */
#ifndef UTVM_KERNELS_ARM_MVE_MVE_S8_H_
#define UTVM_KERNELS_ARM_MVE_MVE_S8_H_

#if !defined(__ARM_FEATURE_MVE) || ((__ARM_FEATURE_MVE & 1) == 0)
#error "utvm-build: these kernels were generated for a Helium target (--target cortex-m55/m85/m52) but compiled without MVE; use --target cortex-m33 or generic"
#endif

#include <arm_mve.h>

#include "common.h"

#if defined(__GNUC__) || defined(__clang__)
#define UTVM_MVE_NOINLINE __attribute__((noinline))
#define UTVM_MVE_INLINE __attribute__((always_inline)) inline
#else
#define UTVM_MVE_NOINLINE
#define UTVM_MVE_INLINE inline
#endif

/* The hot loops at -O2 whatever the build's level (GCC -Os keeps MVE predicates on the stack and
 * does not form low-overhead loops), with noclone: no copy specialised on constant arguments. GCC 12
 * -Os cloned utvm_conv2d_mve_pixels_rows for a model's constant parameters and then found no
 * registers for its assembler block ("impossible constraints"), and crashed in the clone of
 * utvm_softmax_s8 (an internal compiler error in trunc_int_for_mode, EfficientNet-B0); both found
 * on QEMU by tests/target_harness.py and tests/test_field_models.py. The depthwise loops
 * (UTVM_MVE_HOT_NOSCHED) keep their clones: they are faster with them (micro_speech's depthwise
 * 582 k instructions with, 734 k without, measured) and compile for every tested model. */
#if defined(__GNUC__) && !defined(__clang__)
#define UTVM_MVE_HOT __attribute__((noinline, noclone, optimize("O2")))
/* the same without the scheduling pass before register allocation: with it GCC computed the
 * nine products of an unrolled 3x3 window before adding any and spilled them to the stack (with
 * UTVM_MVE_ORDER below; KWS depthwise 280 k instructions per layer against 234 k, measured) */
#define UTVM_MVE_HOT_NOSCHED __attribute__((noinline, optimize("O2", "no-schedule-insns")))
#else
#define UTVM_MVE_HOT UTVM_MVE_NOINLINE
#define UTVM_MVE_HOT_NOSCHED UTVM_MVE_NOINLINE
#endif

/* An empty assembler statement that takes two vectors and gives them back: GCC must finish
 * their values first, so a chain of accumulations stays a chain (no products computed ahead and
 * spilled). No instruction. */
#if defined(__GNUC__) || defined(__clang__)
#define UTVM_MVE_ORDER(a, b) __asm__("" : "+w"(a), "+w"(b))
#else
#define UTVM_MVE_ORDER(a, b) ((void)0)
#endif

/* MultiplyByQuantizedMultiplier(acc, m, shift) per lane (see above), then + zp, clamped to
 * [lo, hi]. */
static UTVM_MVE_INLINE int32x4_t utvm_mve_rq(int32x4_t acc, int32x4_t m, int32x4_t shift, int32_t zp, int32_t lo,
                                             int32_t hi) {
  const int32x4_t zero = vdupq_n_s32(0);
  const int32x4_t rsh = vminq_s32(shift, zero); /* -e, e >= 0 */
  int32x4_t v = vshlq_s32(acc, vmaxq_s32(shift, zero));
  v = vqrdmulhq_s32(v, m);
  v = vqaddq_s32(v, vshrq_n_s32(vandq_s32(v, rsh), 31));
  v = vrshlq_s32(v, rsh);
  v = vaddq_n_s32(v, zp);
  v = vmaxq_s32(v, vdupq_n_s32(lo));
  return vminq_s32(v, vdupq_n_s32(hi));
}

/* utvm_mve_rq for shifts <= 0 in every lane (no left shift: 3 vector instructions fewer and no
 * zero vector); the caller checks the shifts (utvm_mve_any_left). */
static UTVM_MVE_INLINE int32x4_t utvm_mve_rq_right(int32x4_t acc, int32x4_t m, int32x4_t rsh, int32_t zp, int32_t lo,
                                                   int32_t hi) {
  int32x4_t v = vqrdmulhq_s32(acc, m);
  v = vqaddq_s32(v, vshrq_n_s32(vandq_s32(v, rsh), 31));
  v = vrshlq_s32(v, rsh);
  v = vaddq_n_s32(v, zp);
  v = vmaxq_s32(v, vdupq_n_s32(lo));
  return vminq_s32(v, vdupq_n_s32(hi));
}

/* Whether any of n shifts, one every `stride` int32 from sh, is > 0 (a left shift). */
static inline bool utvm_mve_any_left(const int32_t* sh, int32_t n, int32_t stride) {
  int32_t i;
  for (i = 0; i < n; ++i) {
    if (sh[i * stride] > 0) {
      return true;
    }
  }
  return false;
}

/* n bytes from src to dst, 16 at a time (the last vector predicated). */
static UTVM_MVE_INLINE void utvm_mve_copy(int8_t* dst, const int8_t* src, int32_t n) {
  int32_t k = 0;
  while ((k + 16) <= n) {
    vstrbq_s8(&dst[k], vldrbq_s8(&src[k]));
    k += 16;
  }
  if (k < n) {
    const mve_pred16_t p = vctp8q((uint32_t)(n - k));
    vstrbq_p_s8(&dst[k], vldrbq_z_s8(&src[k], p), p);
  }
}

/* n bytes of value v at dst. */
static UTVM_MVE_INLINE void utvm_mve_fill(int8_t* dst, int8_t v, int32_t n) {
  const int8x16_t x = vdupq_n_s8(v);
  int32_t k = 0;
  while (k < n) {
    vstrbq_p_s8(&dst[k], x, vctp8q((uint32_t)(n - k)));
    k += 16;
  }
}

#endif /* UTVM_KERNELS_ARM_MVE_MVE_S8_H_ */
