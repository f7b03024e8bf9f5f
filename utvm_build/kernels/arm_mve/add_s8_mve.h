/* utvm-build kernels, Helium (MVE): ADD / SUB int8 with operands of the same shape (ResNet's
 * residual adds). A kernel only the MVE targets have: the generator calls it instead of
 * utvm_add_s8 / utvm_add_s8_lut when the target's kernel table provides it (ops/elementwise.py).
 *
 * The reference arithmetic (reference_integer_ops::AddElementwise; SUB: input2_multiplier
 * negated) on 4 int32 lanes: (x + offset) * 2^left_shift, each input rescaled with
 * MultiplyByQuantizedMultiplierSmallerThanOneExp, the sum rescaled the same way, + the output
 * zero point, clamped; MultiplyByQuantizedMultiplierSmallerThanOneExp(x, m, shift) is
 * mve_s8.h utvm_mve_rq with shift <= 0 (VQRDMULH, the sign fix-up, VRSHL: exact, also for the
 * negative multiplier of SUB). 4 elements per step, the last 1..3 predicated.
 */
#ifndef UTVM_KERNELS_ARM_MVE_ADD_S8_MVE_H_
#define UTVM_KERNELS_ARM_MVE_ADD_S8_MVE_H_

#if !defined(__ARM_FEATURE_MVE) || ((__ARM_FEATURE_MVE & 1) == 0)
#error "utvm-build: these kernels were generated for a Helium target (--target cortex-m55/m85/m52) but compiled without MVE; use --target cortex-m33 or generic"
#endif

#include "elementwise.h"
#include "mve_s8.h"

/* RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(v, m), e) per lane; rsh = -e (<= 0). */
static UTVM_MVE_INLINE int32x4_t utvm_add_mve_rescale(int32x4_t v, int32_t m, int32x4_t rsh) {
  int32x4_t h = vqrdmulhq_n_s32(v, m);
  h = vqaddq_s32(h, vshrq_n_s32(vandq_s32(h, rsh), 31));
  return vrshlq_s32(h, rsh);
}

/* Four elements of in1 / in2 (already loaded, widened) into out. */
static UTVM_MVE_INLINE int32x4_t utvm_add_mve_four(const utvm_add_q_params* p, int32x4_t a, int32x4_t b,
                                                   int32x4_t ls, int32x4_t r1, int32x4_t r2, int32x4_t ro) {
  const int32x4_t s1 = utvm_add_mve_rescale(vshlq_s32(vaddq_n_s32(a, p->input1_offset), ls), p->input1_multiplier, r1);
  const int32x4_t s2 = utvm_add_mve_rescale(vshlq_s32(vaddq_n_s32(b, p->input2_offset), ls), p->input2_multiplier, r2);
  int32x4_t v = vaddq_n_s32(utvm_add_mve_rescale(vaddq_s32(s1, s2), p->output_multiplier, ro), p->output_offset);
  v = vmaxq_s32(v, vdupq_n_s32(p->act_min));
  return vminq_s32(v, vdupq_n_s32(p->act_max));
}

/* n elements; p: as utvm_add_s8 (shifts <= 0, left_shift 20). */
static UTVM_MVE_HOT void utvm_add_s8_mve(const utvm_add_q_params* p, int32_t n, const int8_t* in1, const int8_t* in2,
                                         int8_t* out) {
  const int32x4_t ls = vdupq_n_s32(p->left_shift);
  const int32x4_t r1 = vdupq_n_s32(p->input1_shift);
  const int32x4_t r2 = vdupq_n_s32(p->input2_shift);
  const int32x4_t ro = vdupq_n_s32(p->output_shift);
  int32_t k = 0;
  while ((k + 4) <= n) {
    vstrbq_s32(&out[k], utvm_add_mve_four(p, vldrbq_s32(&in1[k]), vldrbq_s32(&in2[k]), ls, r1, r2, ro));
    k += 4;
  }
  if (k < n) {
    const mve_pred16_t pr = vctp32q((uint32_t)(n - k));
    vstrbq_p_s32(&out[k], utvm_add_mve_four(p, vldrbq_z_s32(&in1[k], pr), vldrbq_z_s32(&in2[k], pr), ls, r1, r2, ro),
                 pr);
  }
}

#endif /* UTVM_KERNELS_ARM_MVE_ADD_S8_MVE_H_ */
