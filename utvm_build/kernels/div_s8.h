/* utvm-build kernels: DIV int8 with TFLite broadcasting, as TFLite Micro computes it
 * (reference_ops::DivElementwise / BroadcastDivSlowQuantized; TFLite 2.14 has no int8 DIV).
 * Per element:
 *   x1 = a - zp1, x2 = b - zp2; if x2 < 0 both change sign;
 *   inv = GetReciprocal(x2, 31, &recip_shift)   (gemmlowp one_over_one_plus_x_for_x_in_0_1 of
 *         (x2 << clz(x2)) - 2^31: 2^recip_shift / x2 in Q0.31, recip_shift = 31 - clz(x2));
 *   headroom = CountLeadingSignBits(x1);
 *   q = SaturatingRoundingDoublingHighMul(x1 << headroom, inv);
 *   out = clamp(zp_out + RoundingDivideByPOT(SRDHM(q, M), headroom + recip_shift - shift)).
 * Where TFLite Micro's arithmetic is undefined in C++, this kernel defines it as TFLite Micro's
 * x86-64 build (the oracle) executes it, so every input gives the oracle's byte:
 * - a zero divisor (x2 == 0; the reference only DCHECKs it): clz(0) is 32, the shifted value is 0,
 *   gemmlowp's Newton iteration runs on -1.0 with two's complement wrap-around and yields
 *   UTVM_DIV_S8_RECIP_OF_ZERO, recip_shift -1; the result is then finite and deterministic;
 * - RoundingDivideByPOT by an exponent of 32 or more (headroom + recip_shift - shift reaches 38 -
 *   shift: small |x1| over large |x2| when the output shift is small or negative): gemmlowp's mask
 *   (1ll << e) - 1 is narrowed to int32 and x >> e shifts by e mod 32 on x86-64, e mod 64 for the
 *   64-bit mask. Those outputs are not the rounded quotient (TFLite Micro on a Cortex-M, where a
 *   register shift by 32 or more gives the sign, differs there too); utvm_div_s8_rdbpot reproduces
 *   the x86-64 result with defined C arithmetic.
 * The handler refuses output shifts above 22 (the exponent would go negative). */
#ifndef UTVM_KERNELS_DIV_S8_H_
#define UTVM_KERNELS_DIV_S8_H_

#include "ew_walk.h"
#include "softmax.h"

typedef struct {
  int32_t input1_offset;
  int32_t input2_offset;
  int32_t output_offset;
  int32_t output_multiplier;
  int32_t output_shift; /* -31 <= output_shift <= 22 */
  int32_t act_min;
  int32_t act_max;
} utvm_div_s8_params;

/* GetReciprocal(0, 31, &s) as TFLite Micro computes it (see the top of this file). */
#define UTVM_DIV_S8_RECIP_OF_ZERO ((int32_t)-1515870788)

static inline int32_t utvm_div_s8_add_wrap(int32_t a, int32_t b) {
  const uint32_t s = (uint32_t)a + (uint32_t)b;
  return (int32_t)s;
}

/* CountLeadingSignBits(int32), 0 gives 31. */
static inline int32_t utvm_div_s8_clrsb(int32_t x) {
  const uint32_t u = (x < 0) ? ~(uint32_t)x : (uint32_t)x;
  return utvm_clz_u32(u) - 1;
}

/* x >> s for 0 <= s <= 31, arithmetic, on unsigned operands (no shift of a signed value). */
static inline int32_t utvm_div_s8_asr(int32_t x, uint32_t s) {
  uint32_t r;
  if (x < 0) {
    r = ~((~(uint32_t)x) >> s);
  } else {
    r = (uint32_t)x >> s;
  }
  return (int32_t)r;
}

/* gemmlowp RoundingDivideByPOT(x, exponent), 0 <= exponent <= 69, as x86-64 executes it:
 * mask = (int32)((1ll << (exponent mod 64)) - 1), threshold = (mask >> 1) + (x < 0),
 * result = (x >> (exponent mod 32)) + ((x & mask) > threshold). */
static inline int32_t utvm_div_s8_rdbpot(int32_t x, int32_t exponent) {
  const uint64_t mask64 = ((uint64_t)1 << ((uint32_t)exponent & 63u)) - 1u;
  const uint32_t mask_bits = (uint32_t)(mask64 & 0xFFFFFFFFu);
  const int32_t mask = (int32_t)mask_bits;
  const uint32_t remainder_bits = (uint32_t)x & mask_bits;
  const int32_t remainder = (int32_t)remainder_bits;
  const int32_t threshold = utvm_div_s8_asr(mask, 1u) + ((x < 0) ? 1 : 0);
  const int32_t shifted = utvm_div_s8_asr(x, (uint32_t)exponent & 31u);
  return utvm_div_s8_add_wrap(shifted, (remainder > threshold) ? 1 : 0);
}

static inline int32_t utvm_div_s8_one(const utvm_div_s8_params* p, int32_t a, int32_t b) {
  int32_t x1 = p->input1_offset + a;
  int32_t x2 = p->input2_offset + b;
  int32_t inv;
  int32_t recip_shift;
  int32_t headroom;
  int32_t quotient;
  int32_t scaled;
  if (x2 < 0) {
    x1 = -x1;
    x2 = -x2;
  }
  if (x2 == 0) {
    inv = UTVM_DIV_S8_RECIP_OF_ZERO;
    recip_shift = -1;
  } else {
    const int32_t clz = utvm_clz_u32((uint32_t)x2);
    const uint32_t shifted = ((uint32_t)x2 << (uint32_t)clz) - 0x80000000u;
    inv = utvm_fx_one_over_one_plus_x((int32_t)shifted);
    recip_shift = 31 - clz;
  }
  headroom = utvm_div_s8_clrsb(x1);
  quotient = utvm_sat_rounding_doubling_high_mul(utvm_shl_wrap_i32(x1, headroom), inv);
  scaled = utvm_div_s8_rdbpot(utvm_sat_rounding_doubling_high_mul(quotient, p->output_multiplier),
                              (headroom + recip_shift) - p->output_shift);
  return utvm_clamp_i32(utvm_div_s8_add_wrap(p->output_offset, scaled), p->act_min, p->act_max);
}

static inline int8_t utvm_div_s8_at(const utvm_div_s8_params* p, int8_t a, int8_t b) {
  return (int8_t)utvm_div_s8_one(p, (int32_t)a, (int32_t)b);
}

static inline void utvm_div_s8(const utvm_div_s8_params* p, const utvm_ew_shape* sh, const int8_t* in1,
                               const int8_t* in2, int8_t* out) {
  UTVM_EW_EACH(sh, out, utvm_div_s8_at(p, in1[UTVM_EW_I1], in2[UTVM_EW_I2]));
}

#endif /* UTVM_KERNELS_DIV_S8_H_ */
