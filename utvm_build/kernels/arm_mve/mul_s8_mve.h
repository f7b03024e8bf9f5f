/* utvm-build kernels, Helium (MVE): MUL int8 with operands of the same shape. A kernel only the
 * MVE targets have: the generator calls it instead of utvm_mul_s8 when the target's kernel table
 * provides it (ops/elementwise.py).
 *
 * The reference arithmetic (reference_integer_ops::MulElementwise; elementwise.h
 * utvm_mul_q_one): output_offset + MultiplyByQuantizedMultiplier((in1 + offset1) * (in2 +
 * offset2)), clamped. 8 elements per step: two widening loads (VLDRB.S16), the offsets added in
 * int16 lanes (|x + offset| <= 255), VMULLB / VMULLT (the exact int32 products of the even and
 * of the odd lanes, |product| <= 65025), each half requantized with mve_s8.h utvm_mve_rq (any
 * shift, exact), narrowed back into element order (VMOVNB / VMOVNT) and stored as 8 bytes; the
 * last 1..7 elements predicated (nothing read or written past the tensors).
 */
#ifndef UTVM_KERNELS_ARM_MVE_MUL_S8_MVE_H_
#define UTVM_KERNELS_ARM_MVE_MUL_S8_MVE_H_

#if !defined(__ARM_FEATURE_MVE) || ((__ARM_FEATURE_MVE & 1) == 0)
#error "utvm-build: these kernels were generated for a Helium target (--target cortex-m55/m85/m52) but compiled without MVE; use --target cortex-m33 or generic"
#endif

#include "elementwise.h"
#include "ew_rows.h"
#include "mve_s8.h"

/* Eight elements: a, b the widened inputs; the result as int16 lanes in element order. */
static UTVM_MVE_INLINE int16x8_t utvm_mul_mve_eight(const utvm_mul_q_params* p, int16x8_t a, int16x8_t b, int32x4_t m,
                                                    int32x4_t sh) {
  const int16x8_t x = vaddq_n_s16(a, (int16_t)p->input1_offset);
  const int16x8_t y = vaddq_n_s16(b, (int16_t)p->input2_offset);
  const int32x4_t e = utvm_mve_rq(vmullbq_int_s16(x, y), m, sh, p->output_offset, p->act_min, p->act_max);
  const int32x4_t o = utvm_mve_rq(vmulltq_int_s16(x, y), m, sh, p->output_offset, p->act_min, p->act_max);
  return vmovntq_s32(vmovnbq_s32(vdupq_n_s16(0), e), o);
}

/* n elements; p: as utvm_mul_s8. */
static UTVM_MVE_HOT void utvm_mul_mve_flat(const utvm_mul_q_params* p, int32_t n, const int8_t* in1, const int8_t* in2,
                                           int8_t* out) {
  const int32x4_t m = vdupq_n_s32(p->output_multiplier);
  const int32x4_t sh = vdupq_n_s32(p->output_shift);
  int32_t k;
  for (k = 0; (k + 8) <= n; k += 8) {
    vstrbq_s16(&out[k], utvm_mul_mve_eight(p, vldrbq_s16(&in1[k]), vldrbq_s16(&in2[k]), m, sh));
  }
  if (k < n) {
    const mve_pred16_t pr = vctp16q((uint32_t)(n - k));
    vstrbq_p_s16(&out[k], utvm_mul_mve_eight(p, vldrbq_z_s16(&in1[k], pr), vldrbq_z_s16(&in2[k], pr), m, sh), pr);
  }
}

/* The generator's entry (static inline: a model that calls only another entry of this header
 * compiles without an unused-function warning). */
static inline void utvm_mul_s8_mve(const utvm_mul_q_params* p, int32_t n, const int8_t* in1, const int8_t* in2,
                                   int8_t* out) {
  utvm_mul_mve_flat(p, n, in1, in2, out);
}

/* A row of a broadcast (elementwise.h UTVM_EW_ROWS): both inputs advancing, the loop above; an input
 * repeated along the row (stride 0) is one VDUP for the row. */
static UTVM_MVE_INLINE void utvm_mul_mve_row(const utvm_mul_q_params* p, const int8_t* a, int32_t s1, const int8_t* b,
                                             int32_t s2, int8_t* out, int32_t n) {
  const int32x4_t m = vdupq_n_s32(p->output_multiplier);
  const int32x4_t rsh = vdupq_n_s32(p->output_shift);
  int32_t k;
  if ((s1 != 0) && (s2 != 0)) {
    utvm_mul_mve_flat(p, n, a, b, out);
  } else {
    const int16x8_t one = vdupq_n_s16((int16_t)((s1 != 0) ? b[0] : a[0]));
    const int8_t* vec = (s1 != 0) ? a : b;
    for (k = 0; k < n; k += 8) {
      const mve_pred16_t pr = vctp16q((uint32_t)(n - k));
      const int16x8_t x = vldrbq_z_s16(&vec[k], pr);
      const int16x8_t y = (s1 != 0) ? utvm_mul_mve_eight(p, x, one, m, rsh) : utvm_mul_mve_eight(p, one, x, m, rsh);
      vstrbq_p_s16(&out[k], y, pr);
    }
  }
}

/* Broadcasting operands (any shape utvm_mul_s8 takes). */
static UTVM_MVE_HOT void utvm_mul_mve_bc(const utvm_mul_q_params* p, const utvm_ew_shape* sh, const int8_t* in1,
                                         const int8_t* in2, int8_t* out) {
  UTVM_EW_ROWS(sh, in1, in2, out, utvm_mul_mve_row, p);
}

static inline void utvm_mul_s8_mve_bc(const utvm_mul_q_params* p, const utvm_ew_shape* sh, const int8_t* in1,
                                      const int8_t* in2, int8_t* out) {
  utvm_mul_mve_bc(p, sh, in1, in2, out);
}

#endif /* UTVM_KERNELS_ARM_MVE_MUL_S8_MVE_H_ */
