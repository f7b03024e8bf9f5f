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

/* n elements; p: output_multiplier, output_shift (<= 0), output_offset, act_min, act_max. */
static void utvm_add_s8_lut(const utvm_add_q_params* p, const int32_t* t1, const int32_t* t2, int32_t n,
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

#endif /* UTVM_KERNELS_ARM_DSP_ADD_S8_LUT_H_ */
