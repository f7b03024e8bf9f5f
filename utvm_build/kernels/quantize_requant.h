/* utvm-build kernels: QUANTIZE int -> int (requantize), int8 / uint8 / int16 / int32 in and out.
 *
 * TFLite reference_ops::Requantize: out = clamp(MultiplyByQuantizedMultiplier(in - in_zp,
 * multiplier, shift) + out_zp) with multiplier/shift from QuantizeMultiplier(double(s_in) /
 * double(s_out)). The reference's int8 <-> uint8 fast path (same scale, zero points 128 apart:
 * in ^ 0x80) gives the same bytes as this loop: with multiplier 2^30 and shift 1 the rescale is
 * the identity, so out = in - in_zp + out_zp = in +/- 128, inside the output range.
 */
#ifndef UTVM_KERNELS_QUANTIZE_REQUANT_H_
#define UTVM_KERNELS_QUANTIZE_REQUANT_H_

#include "quantize.h"

/* int -> int (reference_ops::Requantize). */
typedef struct {
  int32_t size;
  int32_t in_bits;
  int32_t out_bits;
  int32_t input_zero_point;
  int32_t output_zero_point;
  int32_t multiplier;
  int32_t shift;
  int32_t qmin;
  int32_t qmax;
} utvm_requantize_params;

static inline void utvm_requantize_one(const utvm_requantize_params* p, const void* in, void* out,
                                       int32_t i) {
  /* int32 inputs: in - zp and the left shift wrap in the reference (two's complement) */
  const uint32_t x_wrapped = (uint32_t)utvm_q_load(in, p->in_bits, i) - (uint32_t)p->input_zero_point;
  const int32_t x = (int32_t)x_wrapped;
  const int32_t left_shift = (p->shift > 0) ? p->shift : 0;
  const int32_t right_shift = (p->shift > 0) ? 0 : -p->shift;
  const int32_t shifted = utvm_shl_wrap_i32(x, left_shift);
  const int32_t scaled = utvm_rounding_divide_by_pot(
      utvm_sat_rounding_doubling_high_mul(shifted, p->multiplier), right_shift);
  /* scaled + out_zp cannot overflow for the int8/int16 outputs (|out_zp| <= 32768 and the clamp
   * follows); for int32 outputs the zero point is added with wrap-around like the reference */
  const uint32_t q_wrapped = (uint32_t)scaled + (uint32_t)p->output_zero_point;
  const int32_t q = (int32_t)q_wrapped;
  utvm_q_store(out, p->out_bits, i, utvm_clamp_i32(q, p->qmin, p->qmax));
}

static void utvm_requantize(const utvm_requantize_params* p, const void* in, void* out) {
  UTVM_EACH_ELEMENT(p, utvm_requantize_one, in, out);
}

#endif /* UTVM_KERNELS_QUANTIZE_REQUANT_H_ */
