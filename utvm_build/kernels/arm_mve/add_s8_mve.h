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
#include "ew_rows.h"
#include "mve_s8.h"

/* RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(v, m), e) per lane, rsh = -e (<= 0),
 * fix = 1 when e > 0, else 0: the one subtracted from negative lanes before VRSHL (mve_s8.h) as
 * h + (h >> 31) * fix, one VSHR and one VMLA by a scalar (no vector constant: MVE has 8 Q
 * registers). Without saturation: here |v| < 2^29 (inputs (x + offset) * 2^20 with
 * |x + offset| <= 255, or the sum of two such rescaled values), so |h| <= |v| and h - 1 does not
 * wrap. */
static UTVM_MVE_INLINE int32x4_t utvm_add_mve_rescale(int32x4_t v, int32_t m, int32_t rsh, int32_t fix) {
  int32x4_t h = vqrdmulhq_n_s32(v, m);
  h = vmlaq_n_s32(h, vshrq_n_s32(h, 31), fix);
  return vrshlq_n_s32(h, rsh);
}

/* The scalars of one ADD / SUB (in general-purpose registers, read by the vector instructions). */
typedef struct {
  int32_t o1, o2;         /* input offsets * 2^left_shift */
  int32_t m1, m2, mo;     /* multipliers */
  int32_t r1, r2, ro;     /* shifts (<= 0) */
  int32_t f1, f2, fo;     /* 1 where the shift is < 0 */
  int32_t zp;
} utvm_add_mve_k;

/* Four elements: a, b the widened inputs; pw 2^left_shift, lo / hi the clamp. */
static UTVM_MVE_INLINE int32x4_t utvm_add_mve_four(const utvm_add_mve_k* c, int32x4_t a, int32x4_t b, int32x4_t pw,
                                                   int32x4_t lo, int32x4_t hi) {
  const int32x4_t s1 = utvm_add_mve_rescale(vmlasq_n_s32(a, pw, c->o1), c->m1, c->r1, c->f1);
  const int32x4_t s2 = utvm_add_mve_rescale(vmlasq_n_s32(b, pw, c->o2), c->m2, c->r2, c->f2);
  const int32x4_t v = vaddq_n_s32(utvm_add_mve_rescale(vaddq_s32(s1, s2), c->mo, c->ro, c->fo), c->zp);
  return vminq_s32(vmaxq_s32(v, lo), hi);
}

static UTVM_MVE_INLINE void utvm_add_mve_setup(utvm_add_mve_k* c, const utvm_add_q_params* p) {
  c->o1 = p->input1_offset * ((int32_t)1 << p->left_shift);
  c->o2 = p->input2_offset * ((int32_t)1 << p->left_shift);
  c->m1 = p->input1_multiplier;
  c->m2 = p->input2_multiplier;
  c->mo = p->output_multiplier;
  c->r1 = p->input1_shift;
  c->r2 = p->input2_shift;
  c->ro = p->output_shift;
  c->f1 = (c->r1 < 0) ? 1 : 0;
  c->f2 = (c->r2 < 0) ? 1 : 0;
  c->fo = (c->ro < 0) ? 1 : 0;
  c->zp = p->output_offset;
}

/* n elements; p: as utvm_add_s8 (shifts <= 0, left_shift 20). Per 4 elements: two widening
 * loads, (x + offset) * 2^20 as one VMLAS each (x * 2^20 + offset * 2^20), three rescales of 4
 * instructions, the sum, the zero point, the clamp, one narrowing store; the last 1..3
 * predicated. */
static UTVM_MVE_HOT void utvm_add_mve_flat(const utvm_add_q_params* p, int32_t n, const int8_t* in1, const int8_t* in2,
                                           int8_t* out) {
  utvm_add_mve_k c;
  const int32x4_t pw = vdupq_n_s32((int32_t)1 << p->left_shift);
  const int32x4_t lo = vdupq_n_s32(p->act_min);
  const int32x4_t hi = vdupq_n_s32(p->act_max);
  int32_t k;
  utvm_add_mve_setup(&c, p);
  for (k = n >> 2; k > 0; --k) {
    vstrbq_s32(out, utvm_add_mve_four(&c, vldrbq_s32(in1), vldrbq_s32(in2), pw, lo, hi));
    in1 += 4;
    in2 += 4;
    out += 4;
  }
  if ((n & 3) != 0) {
    const mve_pred16_t pr = vctp32q((uint32_t)(n & 3));
    vstrbq_p_s32(out, utvm_add_mve_four(&c, vldrbq_z_s32(in1, pr), vldrbq_z_s32(in2, pr), pw, lo, hi), pr);
  }
}

/* The generator's entry (static inline: a model that calls only another entry of this header
 * compiles without an unused-function warning). */
static inline void utvm_add_s8_mve(const utvm_add_q_params* p, int32_t n, const int8_t* in1, const int8_t* in2,
                                   int8_t* out) {
  utvm_add_mve_flat(p, n, in1, in2, out);
}

/* What the rows of a broadcast share, for both forms: the clamp bounds; the reference arithmetic's
 * scalars k and 2^20 (pw); the linear form's parameters, table u and c (also as a vector, cv). */
typedef struct {
  utvm_add_mve_k k;
  const utvm_add_q_params* p;
  const int32_t* u;
  int32_t c;
  int32x4_t pw;
  int32x4_t cv;
  int32x4_t lo;
  int32x4_t hi;
} utvm_add_mve_rows;

static UTVM_MVE_INLINE void utvm_add_mve_rows_init(utvm_add_mve_rows* w, const utvm_add_q_params* p, const int32_t* u,
                                                   int32_t c) {
  utvm_add_mve_setup(&w->k, p);
  w->p = p;
  w->u = u;
  w->c = c;
  w->pw = vdupq_n_s32((int32_t)1 << p->left_shift);
  w->cv = vdupq_n_s32(c);
  w->lo = vdupq_n_s32(p->act_min);
  w->hi = vdupq_n_s32(p->act_max);
}

/* A row of n elements of a broadcast (elementwise.h UTVM_EW_ROWS): in1 advances by s1 (0 or 1) per
 * element, in2 by s2. With one input repeated (stride 0) its rescaled value is computed once for the
 * row; the other takes the place of input 1 (the scalars swapped: the sum is symmetric). */
static UTVM_MVE_INLINE void utvm_add_mve_row(const utvm_add_mve_rows* w, const int8_t* in1, int32_t s1,
                                             const int8_t* in2, int32_t s2, int8_t* out, int32_t n) {
  utvm_add_mve_k v = w->k;
  const int8_t* vec = in1;
  int32_t x;
  int32x4_t s;
  int32_t k;
  if ((s1 != 0) && (s2 != 0)) {
    for (k = 0; k < n; k += 4) {
      const mve_pred16_t pr = vctp32q((uint32_t)(n - k));
      vstrbq_p_s32(&out[k], utvm_add_mve_four(&v, vldrbq_z_s32(&in1[k], pr), vldrbq_z_s32(&in2[k], pr), w->pw, w->lo,
                                              w->hi), pr);
    }
    return;
  }
  x = (int32_t)in2[0];
  if (s1 == 0) { /* input 1 is the repeated one: input 2 in its place */
    vec = in2;
    x = (int32_t)in1[0];
    v.o1 = w->k.o2;
    v.m1 = w->k.m2;
    v.r1 = w->k.r2;
    v.f1 = w->k.f2;
    v.o2 = w->k.o1;
    v.m2 = w->k.m1;
    v.r2 = w->k.r1;
    v.f2 = w->k.f1;
  }
  s = utvm_add_mve_rescale(vmlasq_n_s32(vdupq_n_s32(x), w->pw, v.o2), v.m2, v.r2, v.f2);
  for (k = 0; k < n; k += 4) {
    const mve_pred16_t pr = vctp32q((uint32_t)(n - k));
    const int32x4_t s1v = utvm_add_mve_rescale(vmlasq_n_s32(vldrbq_z_s32(&vec[k], pr), w->pw, v.o1), v.m1, v.r1, v.f1);
    const int32x4_t r = vaddq_n_s32(utvm_add_mve_rescale(vaddq_s32(s1v, s), v.mo, v.ro, v.fo), v.zp);
    vstrbq_p_s32(&out[k], vminq_s32(vmaxq_s32(r, w->lo), w->hi), pr);
  }
}

/* Broadcasting operands (any shape utvm_add_s8 takes). */
static UTVM_MVE_HOT void utvm_add_mve_bc(const utvm_add_q_params* p, const utvm_ew_shape* sh, const int8_t* in1,
                                         const int8_t* in2, int8_t* out) {
  utvm_add_mve_rows w;
  utvm_add_mve_rows_init(&w, p, NULL, 0);
  UTVM_EW_ROWS(sh, in1, in2, out, utvm_add_mve_row, &w);
}

static inline void utvm_add_s8_mve_bc(const utvm_add_q_params* p, const utvm_ew_shape* sh, const int8_t* in1,
                                      const int8_t* in2, int8_t* out) {
  utvm_add_mve_bc(p, sh, in1, in2, out);
}

/* The linear form (ops/add_s8_lin.py; arm_dsp/add_s8_lut.h utvm_add_s8_lin has the derivation): for
 * every pair of int8 values (a, b) of the "linear" and the "tabulated" input the generator has checked
 * that clamp((floor(c * a / 2^8) + u[b]) >> 16, act_min, act_max) is TFLite's result (this table holds
 * the result itself, not plus 128). floor(c * a / 2^8) is VMULH (the high word of the 64-bit product)
 * of a * 2^24 and c; u[b] one gather load (VLDRW with the byte values as word offsets). Per 4
 * elements: two widening loads, VSHL, the gather, VMULH, VADD, VSHR, VMAX, VMIN, one narrowing store
 * (10 instructions against utvm_add_s8_mve's 24); the last 1..3 predicated. */
static UTVM_MVE_INLINE int32x4_t utvm_add_lin_mve_four(int32x4_t a, int32x4_t t, int32x4_t cv, int32x4_t lo,
                                                       int32x4_t hi) {
  const int32x4_t x = vaddq_s32(vmulhq_s32(vshlq_n_s32(a, 24), cv), t);
  return vminq_s32(vmaxq_s32(vshrq_n_s32(x, 16), lo), hi);
}

/* n elements: lin is the input that goes through c, tab the one through u; p: act_min, act_max. */
static UTVM_MVE_HOT void utvm_add_lin_mve_flat(const utvm_add_q_params* p, const int32_t* u, int32_t c, int32_t n,
                                               const int8_t* lin, const int8_t* tab, int8_t* out) {
  const int32x4_t cv = vdupq_n_s32(c);
  const int32x4_t lo = vdupq_n_s32(p->act_min);
  const int32x4_t hi = vdupq_n_s32(p->act_max);
  const uint8_t* tb = (const uint8_t*)tab;
  int32_t k;
  for (k = n >> 2; k > 0; --k) {
    const int32x4_t t = vldrwq_gather_shifted_offset_s32(u, vldrbq_u32(tb));
    vstrbq_s32(out, utvm_add_lin_mve_four(vldrbq_s32(lin), t, cv, lo, hi));
    lin += 4;
    tb += 4;
    out += 4;
  }
  if ((n & 3) != 0) {
    const mve_pred16_t pr = vctp32q((uint32_t)(n & 3));
    const int32x4_t t = vldrwq_gather_shifted_offset_z_s32(u, vldrbq_z_u32(tb, pr), pr);
    vstrbq_p_s32(out, utvm_add_lin_mve_four(vldrbq_z_s32(lin, pr), t, cv, lo, hi), pr);
  }
}

static inline void utvm_add_s8_lin_mve(const utvm_add_q_params* p, const int32_t* u, int32_t c, int32_t n,
                                       const int8_t* lin, const int8_t* tab, int8_t* out) {
  utvm_add_lin_mve_flat(p, u, c, n, lin, tab, out);
}

/* The linear form's broadcast rows (elementwise.h UTVM_EW_ROWS, with sh's stride1 / stride2 those of
 * lin / tab: the generator swaps them with the operands): both advancing, the loop above; tab
 * repeated, its table value once per row (then VMULH, VADD per 4); lin repeated, its product once
 * per row (then the gather, VADD per 4). */
static UTVM_MVE_INLINE void utvm_add_lin_mve_row(const utvm_add_mve_rows* w, const int8_t* a, int32_t sl,
                                                 const int8_t* tab, int32_t st, int8_t* out, int32_t n) {
  const uint8_t* b = (const uint8_t*)tab;
  int32_t k;
  if ((sl != 0) && (st != 0)) {
    utvm_add_lin_mve_flat(w->p, w->u, w->c, n, a, tab, out);
  } else if (sl != 0) {
    const int32x4_t t = vdupq_n_s32(w->u[b[0]]);
    for (k = 0; k < n; k += 4) {
      const mve_pred16_t pr = vctp32q((uint32_t)(n - k));
      vstrbq_p_s32(&out[k], utvm_add_lin_mve_four(vldrbq_z_s32(&a[k], pr), t, w->cv, w->lo, w->hi), pr);
    }
  } else {
    const int32x4_t h = vmulhq_s32(vdupq_n_s32((int32_t)((uint32_t)(int32_t)a[0] << 24u)), w->cv);
    for (k = 0; k < n; k += 4) {
      const mve_pred16_t pr = vctp32q((uint32_t)(n - k));
      const int32x4_t x = vaddq_s32(h, vldrwq_gather_shifted_offset_z_s32(w->u, vldrbq_z_u32(&b[k], pr), pr));
      vstrbq_p_s32(&out[k], vminq_s32(vmaxq_s32(vshrq_n_s32(x, 16), w->lo), w->hi), pr);
    }
  }
}

static UTVM_MVE_HOT void utvm_add_lin_mve_bc(const utvm_add_q_params* p, const utvm_ew_shape* sh, const int32_t* u,
                                             int32_t c, const int8_t* lin, const int8_t* tab, int8_t* out) {
  utvm_add_mve_rows w;
  utvm_add_mve_rows_init(&w, p, u, c);
  UTVM_EW_ROWS(sh, lin, tab, out, utvm_add_lin_mve_row, &w);
}

static inline void utvm_add_s8_lin_mve_bc(const utvm_add_q_params* p, const utvm_ew_shape* sh, const int32_t* u,
                                          int32_t c, const int8_t* lin, const int8_t* tab, int8_t* out) {
  utvm_add_lin_mve_bc(p, sh, u, c, lin, tab, out);
}

#endif /* UTVM_KERNELS_ARM_MVE_ADD_S8_MVE_H_ */
