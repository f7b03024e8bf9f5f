/* utvm-build kernels: SQUARED_DIFFERENCE with TFLite broadcasting.
 * float32: (a - b)^2. int32: (a - b) * (a - b) with two's complement wrap-around (the reference's
 * int32 arithmetic). int8 / int16 (TFLite Micro squared_difference.cc): both inputs rescaled to a
 * common scale ((x - zp) << left_shift, MultiplyByQuantizedMultiplierSmallerThanOneExp), the
 * difference squared, MultiplyByQuantizedMultiplier to the output, zero point, saturate. */
#ifndef UTVM_KERNELS_SQUARED_DIFFERENCE_H_
#define UTVM_KERNELS_SQUARED_DIFFERENCE_H_

#include "ew_walk.h"

typedef struct {
  int32_t left_shift; /* 7 (int8), 0 (int16) */
  int32_t input1_offset;
  int32_t input1_multiplier;
  int32_t input1_shift;
  int32_t input2_offset;
  int32_t input2_multiplier;
  int32_t input2_shift;
  int32_t output_offset;
  int32_t output_multiplier;
  int32_t output_shift;
  int32_t act_min;
  int32_t act_max;
} utvm_sqdiff_q_params;

static inline float utvm_squared_difference_f32_one(float a, float b) {
  const float d = a - b;
  return d * d;
}

static inline void utvm_squared_difference_f32(const utvm_ew_shape* sh, const float* in1, const float* in2,
                                               float* out) {
  UTVM_EW_EACH(sh, out, utvm_squared_difference_f32_one(in1[UTVM_EW_I1], in2[UTVM_EW_I2]));
}

static inline int32_t utvm_squared_difference_s32_one(int32_t a, int32_t b) {
  const uint32_t d = (uint32_t)a - (uint32_t)b;
  const uint32_t sq = d * d;
  return (int32_t)sq;
}

static inline void utvm_squared_difference_s32(const utvm_ew_shape* sh, const int32_t* in1, const int32_t* in2,
                                               int32_t* out) {
  UTVM_EW_EACH(sh, out, utvm_squared_difference_s32_one(in1[UTVM_EW_I1], in2[UTVM_EW_I2]));
}

static inline int32_t utvm_sqdiff_q_one(const utvm_sqdiff_q_params* p, int32_t a, int32_t b) {
  const int32_t sa = utvm_mul_by_quantized_mul_lt1(utvm_shl_wrap_i32(p->input1_offset + a, p->left_shift),
                                                   p->input1_multiplier, p->input1_shift);
  const int32_t sb = utvm_mul_by_quantized_mul_lt1(utvm_shl_wrap_i32(p->input2_offset + b, p->left_shift),
                                                   p->input2_multiplier, p->input2_shift);
  const int32_t d = sa - sb;
  const uint32_t sq_bits = (uint32_t)d * (uint32_t)d;
  const int32_t sq = (int32_t)sq_bits;
  const int32_t raw = utvm_mul_by_quantized_mul(sq, p->output_multiplier, p->output_shift) + p->output_offset;
  return utvm_clamp_i32(raw, p->act_min, p->act_max);
}

static inline int8_t utvm_squared_difference_s8_one(const utvm_sqdiff_q_params* p, int8_t a, int8_t b) {
  return (int8_t)utvm_sqdiff_q_one(p, a, b);
}

static inline void utvm_squared_difference_s8(const utvm_sqdiff_q_params* p, const utvm_ew_shape* sh,
                                              const int8_t* in1, const int8_t* in2, int8_t* out) {
  UTVM_EW_EACH(sh, out, utvm_squared_difference_s8_one(p, in1[UTVM_EW_I1], in2[UTVM_EW_I2]));
}

static inline int16_t utvm_squared_difference_s16_one(const utvm_sqdiff_q_params* p, int16_t a, int16_t b) {
  return (int16_t)utvm_sqdiff_q_one(p, a, b);
}

static inline void utvm_squared_difference_s16(const utvm_sqdiff_q_params* p, const utvm_ew_shape* sh,
                                               const int16_t* in1, const int16_t* in2, int16_t* out) {
  UTVM_EW_EACH(sh, out, utvm_squared_difference_s16_one(p, in1[UTVM_EW_I1], in2[UTVM_EW_I2]));
}

#endif /* UTVM_KERNELS_SQUARED_DIFFERENCE_H_ */
