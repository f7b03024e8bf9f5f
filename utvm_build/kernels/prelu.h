/* utvm-build kernels: PRELU with TFLite broadcasting of alpha.
 * float32: x >= 0 ? x : x * alpha. int8 (int8 alpha) and int16 (int8 alpha, TFLite Micro):
 * (x - zp_in) >= 0 ? MultiplyByQuantizedMultiplier(x - zp_in, m1, s1)
 *                  : MultiplyByQuantizedMultiplier((x - zp_in) * (alpha - zp_alpha), m2, s2),
 * plus the output zero point, saturated to the output type (reference_ops::BroadcastPrelu4DSlow). */
#ifndef UTVM_KERNELS_PRELU_H_
#define UTVM_KERNELS_PRELU_H_

#include "ew_walk.h"

typedef struct {
  int32_t input_offset;
  int32_t alpha_offset;
  int32_t output_offset;
  int32_t output_multiplier_1;
  int32_t output_shift_1;
  int32_t output_multiplier_2;
  int32_t output_shift_2;
  int32_t out_min;
  int32_t out_max;
} utvm_prelu_q_params;

static inline float utvm_prelu_f32_one(float a, float b) {
  const float x = a;
  return (x >= 0.0f) ? x : (x * b);
}

static inline void utvm_prelu_f32(const utvm_ew_shape* sh, const float* in, const float* alpha, float* out) {
  UTVM_EW_EACH(sh, out, utvm_prelu_f32_one(in[UTVM_EW_I1], alpha[UTVM_EW_I2]));
}

static inline int32_t utvm_prelu_q_one(const utvm_prelu_q_params* p, int32_t x, int32_t a) {
  const int32_t v = p->input_offset + x;
  int32_t r;
  if (v >= 0) {
    r = utvm_mul_by_quantized_mul(v, p->output_multiplier_1, p->output_shift_1);
  } else {
    r = utvm_mul_by_quantized_mul(v * (p->alpha_offset + a), p->output_multiplier_2, p->output_shift_2);
  }
  return utvm_clamp_i32(r + p->output_offset, p->out_min, p->out_max);
}

static inline int8_t utvm_prelu_s8_one(const utvm_prelu_q_params* p, int8_t a, int8_t b) {
  return (int8_t)utvm_prelu_q_one(p, a, b);
}

static inline void utvm_prelu_s8(const utvm_prelu_q_params* p, const utvm_ew_shape* sh, const int8_t* in,
                                 const int8_t* alpha, int8_t* out) {
  UTVM_EW_EACH(sh, out, utvm_prelu_s8_one(p, in[UTVM_EW_I1], alpha[UTVM_EW_I2]));
}

static inline int16_t utvm_prelu_s16_one(const utvm_prelu_q_params* p, int16_t a, int8_t b) {
  return (int16_t)utvm_prelu_q_one(p, a, b);
}

static inline void utvm_prelu_s16(const utvm_prelu_q_params* p, const utvm_ew_shape* sh, const int16_t* in,
                                  const int8_t* alpha, int16_t* out) {
  UTVM_EW_EACH(sh, out, utvm_prelu_s16_one(p, in[UTVM_EW_I1], alpha[UTVM_EW_I2]));
}

#endif /* UTVM_KERNELS_PRELU_H_ */
