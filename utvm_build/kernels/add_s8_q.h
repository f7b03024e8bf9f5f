/* utvm-build kernels: ADD / SUB, int8: the arithmetic and the loop nest that kernels/add_s8.h and
 * kernels/arm_dsp/add_s8.h share (each keeps its entry point utvm_add_s8; the DSP one adds a loop for
 * same-shape operands).
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
#ifndef UTVM_KERNELS_ADD_S8_Q_H_
#define UTVM_KERNELS_ADD_S8_Q_H_

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

/* The body of utvm_add_s8 (kernel guide: one loop skeleton per family). int8 has left_shift 20
 * (add.cc: 15 for int16 outputs, else 20); p->left_shift is not read. One loop nest for both
 * layouts (same-shape operands: one row of sh->size elements), so that a model with a single ADD
 * gets the element arithmetic inlined once, with its parameters as constants. The scaled inputs
 * have magnitude below 2^28 (|m| < 2^31, and RDBP does not grow them), so their sum meets the
 * |x| < 2^29 of the output rescale. FLAT(p, &r1, &r2, &ro, in1, in2, out, n) is called for
 * same-shape operands before the nest and returns its row count: 1 (the nest does them: generic
 * utvm_add_s8_nest_flat) or 0 (done: arm_dsp utvm_add_s8_flat_rows). */
#define UTVM_ADD_S8_WALK(p, sh, in1, in2, out, FLAT)                                                           \
  do {                                                                                                       \
    utvm_add_s8_input r1_;                                                                                   \
    utvm_add_s8_input r2_;                                                                                   \
    utvm_add_s8_rescale ro_;                                                                                 \
    uint32_t in_offset_;                                                                                     \
    int32_t n_ = (sh)->size;                                                                                 \
    int32_t rows_ = 1;                                                                                       \
    int32_t s1_ = 1;                                                                                         \
    int32_t s2_ = 1;                                                                                         \
    int8_t* dst_ = (out);                                                                                    \
    int32_t r_;                                                                                              \
    utvm_ew_iter it_;                                                                                        \
    utvm_add_s8_input_init(&r1_, (p)->input1_multiplier, (p)->input1_shift);                                 \
    utvm_add_s8_input_init(&r2_, (p)->input2_multiplier, (p)->input2_shift);                                 \
    utvm_add_s8_rescale_init(&ro_, (p)->output_multiplier, (p)->output_shift, (p)->output_offset);          \
    in_offset_ = r1_.offset + r2_.offset;                                                                    \
    utvm_ew_iter_init(&it_);                                                                                 \
    if ((sh)->broadcast == 0) {                                                                              \
      rows_ = FLAT((p), &r1_, &r2_, &ro_, (in1), (in2), (out), n_);                                          \
    } else {                                                                                                 \
      n_ = (sh)->dims[UTVM_EW_MAX_DIMS - 1];                                                                 \
      rows_ = utvm_ew_rows(sh);                                                                              \
      s1_ = (sh)->stride1[UTVM_EW_MAX_DIMS - 1];                                                             \
      s2_ = (sh)->stride2[UTVM_EW_MAX_DIMS - 1];                                                             \
    }                                                                                                        \
    for (r_ = 0; r_ < rows_; ++r_) {                                                                         \
      int32_t i1_ = it_.o1;                                                                                  \
      int32_t i2_ = it_.o2;                                                                                  \
      int32_t k_;                                                                                            \
      for (k_ = 0; k_ < n_; ++k_) {                                                                          \
        const int32_t v1_ = (p)->input1_offset + (int32_t)(in1)[i1_];                                        \
        const int32_t v2_ = (p)->input2_offset + (int32_t)(in2)[i2_];                                        \
        const uint32_t sum_bits_ =                                                                           \
            (utvm_add_s8_input_apply(&r1_, v1_) + utvm_add_s8_input_apply(&r2_, v2_)) - in_offset_;           \
        const int32_t raw_ = utvm_add_s8_rescale_apply(&ro_, (int32_t)sum_bits_);                            \
        *dst_ = (int8_t)utvm_clamp_i32(raw_, (p)->act_min, (p)->act_max);                                    \
        dst_ = &dst_[1];                                                                                     \
        i1_ += s1_;                                                                                          \
        i2_ += s2_;                                                                                          \
      }                                                                                                      \
      if (rows_ > 1) { /* same-shape operands: one row, no odometer (its fields are unused) */               \
        utvm_ew_iter_next(sh, &it_);                                                                         \
      }                                                                                                      \
    }                                                                                                        \
  } while (0)

#endif /* UTVM_KERNELS_ADD_S8_Q_H_ */
