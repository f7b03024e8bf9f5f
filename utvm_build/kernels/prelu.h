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

static inline void utvm_prelu_f32_one(const float* in, const float* alpha, float* out, int32_t o1, int32_t o2,
                                      int32_t i) {
  const float x = in[o1];
  out[i] = (x >= 0.0f) ? x : (x * alpha[o2]);
}

static inline void utvm_prelu_f32(const utvm_ew_shape* sh, const float* in, const float* alpha, float* out) {
  UTVM_EW_EACH(sh, utvm_prelu_f32_one, in, alpha, out);
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

static inline void utvm_prelu_s8_one(const utvm_prelu_q_params* p, const int8_t* in, const int8_t* alpha,
                                     int8_t* out, int32_t o1, int32_t o2, int32_t i) {
  out[i] = (int8_t)utvm_prelu_q_one(p, in[o1], alpha[o2]);
}

static inline void utvm_prelu_s8(const utvm_prelu_q_params* p, const utvm_ew_shape* sh, const int8_t* in,
                                 const int8_t* alpha, int8_t* out) {
  UTVM_EW_EACH(sh, utvm_prelu_s8_one, p, in, alpha, out);
}

static inline void utvm_prelu_s16_one(const utvm_prelu_q_params* p, const int16_t* in, const int8_t* alpha,
                                      int16_t* out, int32_t o1, int32_t o2, int32_t i) {
  out[i] = (int16_t)utvm_prelu_q_one(p, in[o1], alpha[o2]);
}

static inline void utvm_prelu_s16(const utvm_prelu_q_params* p, const utvm_ew_shape* sh, const int16_t* in,
                                  const int8_t* alpha, int16_t* out) {
  UTVM_EW_EACH(sh, utvm_prelu_s16_one, p, in, alpha, out);
}

#endif /* UTVM_KERNELS_PRELU_H_ */
