/* utvm-build kernels, DSP targets: ADD / SUB, int8; replaces kernels/add_s8.h (same function, same
 * arguments, same results). The arithmetic below is the generic file's; operands of the same shape
 * (no broadcast, the residual additions of ResNet-like models) take utvm_add_s8_flat, one loop
 * with every constant in a local (the generic single loop nest reloads them from the parameter
 * structs after every int8 store, which may alias them).
 *
 * Generic description: ADD / SUB, int8.
 *
 * TFLite reference: reference_integer_ops::AddElementwise / BroadcastAdd4DSlow (int8) and
 * reference_ops::AddGeneralParamScale / BroadcastAdd4DSlow (int16 general scale). SUB uses the
 * same arithmetic with input2_multiplier negated (sub.cc PrepareGeneralSubOp, op_sign = -1).
 *
 * Per element the reference rescales both inputs and the sum with
 * MultiplyByQuantizedMultiplierSmallerThanOneExp(x, m, shift) = RDBP(SRDHM(x, m), e), e = -shift
 * (RDBP: RoundingDivideByPOT, SRDHM: SaturatingRoundingDoublingHighMul). With int8 operands the
 * values are small enough for exact shorter forms, with everything that depends only on (m, e)
 * computed once per call: the inputs v * 2^20 (|v| <= 255) in 32-bit arithmetic
 * (utvm_add_s8_input_apply), the sum (|x| < 2^29) with one 32x32->64 multiply-add
 * (utvm_add_s8_rescale_apply). tests/test_ops_add_s8.py compares them with the reference
 * arithmetic on every int8 pair.
 */
#ifndef UTVM_KERNELS_ADD_S8_H_
#define UTVM_KERNELS_ADD_S8_H_

#if !defined(__ARM_FEATURE_DSP) || (__ARM_FEATURE_DSP != 1)
#error "utvm-build: these kernels were generated for a DSP target (--target cortex-m4/m7/m33/m55) but compiled without the DSP extension; use --target generic"
#endif

#include "elementwise.h"

/* RDBP(SRDHM(x, m), e) for |x| < 2^29, m != INT32_MIN, 0 <= e <= 31, in one step:
 *
 * SRDHM(x, m) = floor((x * m + 2^30) / 2^31): gemmlowp's trunc((xm + nudge) / 2^31), nudge 2^30
 * (xm >= 0) or 1 - 2^30 (xm < 0), is that floor for both signs (xm < 0: trunc(v / 2^31) =
 * floor((v + 2^31 - 1) / 2^31) with v = xm + 1 - 2^30), and m != INT32_MIN excludes saturation.
 * RDBP(h, e) = floor((h + 2^(e-1) - [h < 0]) / 2^e) for e >= 1 (the reference adds 1 when the
 * remainder exceeds 2^(e-1) - 1 + [h < 0]). Nesting the floors:
 *   RDBP(SRDHM(x, m), e) = floor((floor((x * m + c) / 2^31) + 2^(e-1)) / 2^e),
 *   c = 2^30 - [h < 0] * 2^31 (e >= 1), c = 2^30 (e = 0: RDBP is the identity).
 * [h < 0] may be replaced by s = [x < 0] xor [m < 0]: they differ only when xm > -2^30 and
 * s = 1, where h = 0 and both forms give 0, since then 0 <= xm + 2^30 - 2^31 + 2^(30+e) <
 * 2^(31+e). So c depends on the sign of x only (init_neg / init_pos). With |x| < 2^29 and
 * |m| < 2^31, V = floor((x * m + c) / 2^31) has |V| < 2^29 + 1, so V + 2^(e-1) + 2^31 lies in
 * [0, 2^32): the division by 2^e is a logical shift of that uint32_t, and subtracting 2^(31-e)
 * (modulo 2^32) leaves the two's complement bits of the result. */
typedef struct {
  int32_t multiplier;
  int32_t init_neg; /* c for x < 0 */
  int32_t init_pos; /* c for x >= 0 */
  uint32_t round;   /* 2^31 + 2^(e-1) (e >= 1), 2^31 (e = 0) */
  uint32_t exponent;
  uint32_t offset;  /* 2^(31-e) - the output zero point (modulo 2^32) */
} utvm_add_s8_rescale;

/* Rescale by (multiplier, shift), then add output_offset (the zero point; 0 for a bare rescale). */
static inline void utvm_add_s8_rescale_init(utvm_add_s8_rescale* r, int32_t multiplier, int32_t shift,
                                            int32_t output_offset) {
  const uint32_t e = (uint32_t)(-shift);
  const bool flip_neg = (e > 0u) && (multiplier >= 0); /* s = 1 for x < 0 */
  const bool flip_pos = (e > 0u) && (multiplier < 0);  /* s = 1 for x >= 0 */
  r->multiplier = multiplier;
  r->init_neg = flip_neg ? (int32_t)-1073741824 : (int32_t)1073741824;
  r->init_pos = flip_pos ? (int32_t)-1073741824 : (int32_t)1073741824;
  r->round = (e > 0u) ? (0x80000000u + ((uint32_t)1 << (e - 1u))) : 0x80000000u;
  r->exponent = e;
  r->offset = (0x80000000u >> e) - (uint32_t)output_offset;
}

/* RDBP(SRDHM(x, m), e) + output offset (|x| < 2^29; the offset is at most 2^8). */
static inline int32_t utvm_add_s8_rescale_apply(const utvm_add_s8_rescale* r, int32_t x) {
  const int64_t c = (int64_t)((x < 0) ? r->init_neg : r->init_pos);
  const int64_t t = ((int64_t)x * (int64_t)r->multiplier) + c;
  const uint32_t v = (uint32_t)((uint64_t)t >> 31u); /* V modulo 2^32 */
  const uint32_t q = ((v + r->round) >> r->exponent) - r->offset;
  return (int32_t)q;
}

/* The input rescale for int8: RDBP(SRDHM(v * 2^20, m), e) for |v| <= 255, in 32-bit arithmetic.
 * Split m = mh * 2^11 + ml, 0 <= ml < 2^11 (mh = (m - ml) / 2^11 exactly). Then
 * SRDHM(v * 2^20, m) = floor((v * m + 2^10) / 2^11) = h = v * mh + floor((v * ml + 2^10) / 2^11),
 * where 0 <= v * ml + 2^10 + 2^19 < 2^20 (|v * ml| <= 255 * 2047 < 2^19 - 2^10), so the floor is an
 * unsigned shift of that sum minus 2^8. As in utvm_add_s8_rescale, RDBP(h, e) = floor((h + k) / 2^e)
 * with k = 2^(e-1) - s (e >= 1; s = [v < 0] xor [m < 0]) and k = 0 (e = 0); |h| < 2^28, so
 * h + k + 2^31 is in [0, 2^32) and the division is again a logical shift, the 2^31 being taken back
 * as 2^(31-e) after it. */
typedef struct {
  int32_t mh;
  int32_t ml;
  uint32_t add_neg; /* k - 2^8 + 2^31 for v < 0 */
  uint32_t add_pos; /* for v >= 0 */
  uint32_t exponent;
  uint32_t offset;  /* 2^(31-e) */
} utvm_add_s8_input;

static inline void utvm_add_s8_input_init(utvm_add_s8_input* r, int32_t multiplier, int32_t shift) {
  const uint32_t e = (uint32_t)(-shift);
  const uint32_t ml_bits = (uint32_t)multiplier & 2047u;
  const int32_t ml = (int32_t)ml_bits;
  const uint32_t half = (e > 0u) ? ((uint32_t)1 << (e - 1u)) : 0u;
  const uint32_t add = half + 0x7FFFFF00u; /* k + 2^31 - 2^8 with s = 0 */
  r->ml = ml;
  r->mh = (multiplier - ml) / 2048;
  r->add_neg = add;
  r->add_pos = add;
  if (e > 0u) {
    if (multiplier >= 0) {
      r->add_neg = add - 1u; /* s = 1 for v < 0 */
    } else {
      r->add_pos = add - 1u; /* s = 1 for v >= 0 */
    }
  }
  r->exponent = e;
  r->offset = 0x80000000u >> e;
}

/* RDBP(SRDHM(v * 2^20, m), e) + 2^(31-e), modulo 2^32 (the offset is taken back once per element). */
static inline uint32_t utvm_add_s8_input_apply(const utvm_add_s8_input* r, int32_t v) {
  const int32_t t = (v * r->ml) + 525312; /* v * ml + 2^10 + 2^19, in [0, 2^20) */
  const int32_t vh = v * r->mh;
  const uint32_t low = (uint32_t)t >> 11u; /* floor((v * ml + 2^10) / 2^11) + 2^8 */
  const uint32_t h = (uint32_t)vh + low + ((v < 0) ? r->add_neg : r->add_pos);
  return h >> r->exponent;
}

/* Same-shape operands: n >= 0 elements, the arithmetic of utvm_add_s8 below with every constant
 * in a local. Inlined into utvm_add_s8, so that a model with a single ADD still gets it with its
 * parameters as constants (kernel guide); an out-of-line -O2 copy was 3 % faster on ResNet-8's
 * three ADDs but 5 % slower on a model with one. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
static inline void utvm_add_s8_flat(const utvm_add_q_params* p, const utvm_add_s8_input* pr1,
                             const utvm_add_s8_input* pr2, const utvm_add_s8_rescale* pro, const int8_t* in1,
                             const int8_t* in2, int8_t* out, int32_t n) {
  const int32_t off1 = p->input1_offset;
  const int32_t off2 = p->input2_offset;
  const int32_t lo = p->act_min;
  const int32_t hi = p->act_max;
  const int32_t mh1 = pr1->mh;
  const int32_t ml1 = pr1->ml;
  const uint32_t an1 = pr1->add_neg;
  const uint32_t ap1 = pr1->add_pos;
  const uint32_t e1 = pr1->exponent;
  const int32_t mh2 = pr2->mh;
  const int32_t ml2 = pr2->ml;
  const uint32_t an2 = pr2->add_neg;
  const uint32_t ap2 = pr2->add_pos;
  const uint32_t e2 = pr2->exponent;
  const uint32_t in_offset = pr1->offset + pr2->offset;
  const int32_t om = pro->multiplier;
  const int32_t oin = pro->init_neg;
  const int32_t oip = pro->init_pos;
  const uint32_t oround = pro->round;
  const uint32_t oe = pro->exponent;
  const uint32_t ooff = pro->offset;
  int32_t k;
  for (k = 0; k < n; ++k) {
    const int32_t v1 = off1 + (int32_t)in1[k];
    const int32_t v2 = off2 + (int32_t)in2[k];
    const uint32_t h1 = ((uint32_t)(v1 * mh1) + ((uint32_t)((v1 * ml1) + 525312) >> 11u)) + ((v1 < 0) ? an1 : ap1);
    const uint32_t h2 = ((uint32_t)(v2 * mh2) + ((uint32_t)((v2 * ml2) + 525312) >> 11u)) + ((v2 < 0) ? an2 : ap2);
    const int32_t x = (int32_t)(((h1 >> e1) + (h2 >> e2)) - in_offset);
    const int64_t t = ((int64_t)x * (int64_t)om) + (int64_t)((x < 0) ? oin : oip);
    const uint32_t v = (uint32_t)((uint64_t)t >> 31u);
    int32_t r = (int32_t)(((v + oround) >> oe) - ooff);
    r = (r < lo) ? lo : r;
    r = (r > hi) ? hi : r;
    out[k] = (int8_t)r;
  }
}

/* int8 has left_shift 20 (add.cc: 15 for int16 outputs, else 20); p->left_shift is not read. One
 * loop nest for both layouts (same-shape operands: one row of sh->size elements), so that a model
 * with a single ADD gets the element arithmetic inlined once, with its parameters as constants.
 * The scaled inputs have magnitude below 2^28 (|m| < 2^31, and RDBP does not grow them), so their
 * sum meets the |x| < 2^29 of the output rescale. */
static void utvm_add_s8(const utvm_add_q_params* p, const utvm_ew_shape* sh, const int8_t* in1,
                        const int8_t* in2, int8_t* out) {
  utvm_add_s8_input r1;
  utvm_add_s8_input r2;
  utvm_add_s8_rescale ro;
  uint32_t in_offset;
  int32_t n = sh->size;
  int32_t rows = 1;
  int32_t s1 = 1;
  int32_t s2 = 1;
  int8_t* dst = out;
  int32_t r;
  utvm_ew_iter it;
  utvm_add_s8_input_init(&r1, p->input1_multiplier, p->input1_shift);
  utvm_add_s8_input_init(&r2, p->input2_multiplier, p->input2_shift);
  utvm_add_s8_rescale_init(&ro, p->output_multiplier, p->output_shift, p->output_offset);
  in_offset = r1.offset + r2.offset;
  utvm_ew_iter_init(&it);
  if (sh->broadcast == 0) {
    rows = 0; /* the generic loop below does nothing */
    utvm_add_s8_flat(p, &r1, &r2, &ro, in1, in2, out, n);
  } else {
    n = sh->dims[UTVM_EW_MAX_DIMS - 1];
    rows = utvm_ew_rows(sh);
    s1 = sh->stride1[UTVM_EW_MAX_DIMS - 1];
    s2 = sh->stride2[UTVM_EW_MAX_DIMS - 1];
  }
  for (r = 0; r < rows; ++r) {
    int32_t i1 = it.o1;
    int32_t i2 = it.o2;
    int32_t k;
    for (k = 0; k < n; ++k) {
      const int32_t v1 = p->input1_offset + (int32_t)in1[i1];
      const int32_t v2 = p->input2_offset + (int32_t)in2[i2];
      const uint32_t sum_bits = (utvm_add_s8_input_apply(&r1, v1) + utvm_add_s8_input_apply(&r2, v2)) - in_offset;
      const int32_t raw = utvm_add_s8_rescale_apply(&ro, (int32_t)sum_bits);
      *dst = (int8_t)utvm_clamp_i32(raw, p->act_min, p->act_max);
      dst = &dst[1];
      i1 += s1;
      i2 += s2;
    }
    if (rows > 1) {   /* same-shape operands: one row, no odometer (its fields are unused) */
      utvm_ew_iter_next(sh, &it);
    }
  }
}

#endif /* UTVM_KERNELS_ADD_S8_H_ */
