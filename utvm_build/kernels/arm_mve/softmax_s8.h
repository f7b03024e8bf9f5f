/* utvm-build kernels, Helium (MVE): SOFTMAX, int8 input, int8 output (scale 1/256, zero point
 * -128); replaces kernels/softmax_s8.h (same function, same arguments, same results).
 *
 * The reference (softmax.h utvm_softmax_s8_impl: TFLite's Softmax with gemmlowp's
 * exp_on_negative_values and one_over_one_plus_x_for_x_in_0_1) on 4 int32 lanes:
 * - the row's maximum by VMAXV over 16 bytes at a time;
 * - per 4 inputs (widened, the last 1..3 predicated): the difference to the maximum, the lanes at
 *   or above diff_min (a predicate; the others add nothing and give -128), the rescale (VSHL by
 *   register: wraps as utvm_shl_wrap_i32; VQRDMULH: SaturatingRoundingDoublingHighMul, mve_s8.h),
 *   exp_on_negative_values lane by lane with the same fixed-point steps: the polynomial of
 *   exp_on_interval_between_negative_one_quarter_and_0_excl (VQRDMULH, RoundingDivideByPOT as in
 *   mve_s8.h: the sign fix-up then VRSHL), SaturatingRoundingMultiplyByPOT<5> as VQSHL #5
 *   (saturates exactly where gemmlowp's threshold does: |x| >= 2^26, and -2^26 gives INT32_MIN
 *   either way), the 7 barrel-shifter multipliers each applied where its remainder bit is set
 *   (VPSEL), and exp(0) = INT32_MAX; the sum of the exponentials / 2^12 across lanes (VADDVA);
 * - the reciprocal once per row in scalar code (softmax.h);
 * - per 4 outputs: the exponential again, VQRDMULH by the reciprocal, RoundingDivideByPOT by the
 *   row's exponent, -128, clamped, stored (predicated).
 * Rows of more than 256 values take the generic code (their sum of exponentials could push the
 * final shift past 31, where RoundingDivideByPOT is not defined).
 */
#ifndef UTVM_KERNELS_SOFTMAX_S8_H_
#define UTVM_KERNELS_SOFTMAX_S8_H_

#if !defined(__ARM_FEATURE_MVE) || ((__ARM_FEATURE_MVE & 1) == 0)
#error "utvm-build: these kernels were generated for a Helium target (--target cortex-m55/m85/m52) but compiled without MVE; use --target cortex-m33 or generic"
#endif

#include "mve_s8.h"
#include "softmax.h"

/* RoundingDivideByPOT per lane, rsh = -exponent (<= 0) in every lane (mve_s8.h's steps). */
static UTVM_MVE_INLINE int32x4_t utvm_softmax_mve_rdiv(int32x4_t v, int32x4_t rsh) {
  return vrshlq_s32(vqaddq_s32(v, vshrq_n_s32(vandq_s32(v, rsh), 31)), rsh);
}

/* softmax.h utvm_fx_exp_on_negative_values_q5 on 4 lanes (a <= 0, Q5.26; result Q0.31). */
static UTVM_MVE_INLINE int32x4_t utvm_softmax_mve_exp(int32x4_t a) {
  static const int32_t multipliers[7] = {1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242};
  const int32x4_t amq = vsubq_n_s32(vandq_s32(a, vdupq_n_s32(0xFFFFFF)), 0x1000000); /* (a mod 1/4) - 1/4 */
  const int32x4_t remainder = vsubq_s32(amq, a);
  /* exp on [-1/4, 0): x = 8 * amq + 1/8 in Q0.31 */
  const int32x4_t x = vaddq_n_s32(vqshlq_n_s32(amq, 5), 0x10000000);
  const int32x4_t x2 = vqrdmulhq_s32(x, x);
  const int32x4_t x3 = vqrdmulhq_s32(x2, x);
  const int32x4_t x4q = utvm_softmax_mve_rdiv(vqrdmulhq_s32(x2, x2), vdupq_n_s32(-2));
  const int32x4_t poly =
      utvm_softmax_mve_rdiv(vaddq_s32(vqrdmulhq_n_s32(vaddq_s32(x4q, x3), 715827883), x2), vdupq_n_s32(-1));
  int32x4_t r = vaddq_n_s32(vqrdmulhq_n_s32(vaddq_s32(x, poly), 1895147668), 1895147668);
  int32_t k;
  for (k = 0; k < 7; ++k) {
    const mve_pred16_t set = vcmpneq_n_s32(vandq_s32(remainder, vdupq_n_s32((int32_t)1 << (k + 24))), 0);
    r = vpselq_s32(vqrdmulhq_n_s32(r, multipliers[k]), r, set);
  }
  return vpselq_s32(vdupq_n_s32(INT32_MAX), r, vcmpeqq_n_s32(a, 0));
}

/* The rescaled differences of 4 inputs at x (lanes pr) to the row's maximum mx; *in: the lanes
 * at or above diff_min. */
static UTVM_MVE_INLINE int32x4_t utvm_softmax_mve_rescaled(const utvm_softmax_s8_params* p, const int8_t* x,
                                                           mve_pred16_t pr, int32_t mx, mve_pred16_t* in) {
  const int32x4_t diff = vsubq_n_s32(vldrbq_z_s32(x, pr), mx);
  *in = vcmpgeq_m_n_s32(diff, p->diff_min, pr);
  return vqrdmulhq_n_s32(vshlq_s32(diff, vdupq_n_s32(p->input_left_shift)), p->input_multiplier);
}

static UTVM_MVE_HOT void utvm_softmax_s8(const utvm_softmax_s8_params* p, const int8_t* in, int8_t* out) {
  const int32_t d = p->depth;
  int32_t i;
  int32_t c;
  if (d > 256) {
    utvm_softmax_s8_impl(p, in, out, NULL);
    return;
  }
  if (d < 1) {
    return; /* nothing to write (and no sum to normalise) */
  }
  for (i = 0; i < p->outer; ++i) {
    const int8_t* const x = &in[i * d];
    int8_t* const y = &out[i * d];
    int32_t mx = -128;
    int32_t sum = 0;
    int32_t headroom;
    int32_t scale;
    int32x4_t rsh;
    for (c = 0; c < d; c += 16) {
      const mve_pred16_t pr = vctp8q((uint32_t)(d - c));
      mx = vmaxvq_p_s8((int8_t)mx, vldrbq_z_s8(&x[c], pr), pr);
    }
    for (c = 0; c < d; c += 4) {
      mve_pred16_t use;
      const int32x4_t r = utvm_softmax_mve_rescaled(p, &x[c], vctp32q((uint32_t)(d - c)), mx, &use);
      sum = vaddvaq_p_s32(sum, utvm_softmax_mve_rdiv(utvm_softmax_mve_exp(r), vdupq_n_s32(-12)), use);
    }
    /* sum >= 2^19 (the maximum's term) and <= 256 * 2^19: headroom 4..12, the shift 23..31 */
    headroom = utvm_clz_u32((uint32_t)sum);
    scale = utvm_fx_one_over_one_plus_x((int32_t)(((uint32_t)sum << (uint32_t)headroom) - 0x80000000u));
    rsh = vdupq_n_s32(headroom - 35); /* -((12 - headroom) + 31 - 8) */
    for (c = 0; c < d; c += 4) {
      const mve_pred16_t pr = vctp32q((uint32_t)(d - c));
      mve_pred16_t use;
      const int32x4_t r = utvm_softmax_mve_rescaled(p, &x[c], pr, mx, &use);
      int32x4_t v = utvm_softmax_mve_rdiv(vqrdmulhq_n_s32(utvm_softmax_mve_exp(r), scale), rsh);
      v = vminq_s32(vmaxq_s32(vsubq_n_s32(v, 128), vdupq_n_s32(-128)), vdupq_n_s32(127));
      vstrbq_p_s32(&y[c], vpselq_s32(v, vdupq_n_s32(-128), use), pr);
    }
  }
}

#endif /* UTVM_KERNELS_SOFTMAX_S8_H_ */
