/* utvm-build kernels: SVDF, int8 input/output with int8 weights_time and int8 state (TFLite Micro's
 * EvalIntegerSvdfReference<int8_t>; TFLite's reference only has the int16 state variant).
 * As TFLM: the new activation is clamped to [-128, 127] *before* the state zero point is added and
 * the sum is stored with an int8 conversion (wraps); the time dot product subtracts the zero
 * point. The fused activation is not applied. bias may be NULL.
 * The int32 sums wrap on overflow, as the reference's do in practice (two's complement). */
#ifndef UTVM_KERNELS_SVDF_S8_S8_H_
#define UTVM_KERNELS_SVDF_S8_S8_H_

#include "svdf.h"

/* TFLM: clamped to int8 before the state zero point is added, stored with a wrapping int8
 * conversion */
static inline int8_t utvm_svdf_s8_s8_store(const utvm_svdf_q_params* p, int32_t dot) {
  const int32_t v = utvm_clamp_i32(utvm_mul_by_quantized_mul(dot, p->multiplier_1, p->shift_1), -128, 127) +
                    p->state_zero_point;
  return (int8_t)(uint8_t)(uint32_t)v;
}

static void utvm_svdf_s8_s8(const utvm_svdf_q_params* p, const int8_t* in, const int8_t* weights_feature,
                            const int8_t* weights_time, const int32_t* bias, int8_t* state, int8_t* out) {
  UTVM_SVDF_Q(p, in, weights_feature, weights_time, bias, state, out, int8_t, utvm_svdf_s8_s8_store,
              utvm_svdf_s8_s8_time_mac);
}

#endif /* UTVM_KERNELS_SVDF_S8_S8_H_ */
