/* utvm-build kernels: SVDF, int8 input/output, int16 weights_time and state (TFLite
 * reference_ops::EvalIntegerSVDF). The fused activation is not applied (the reference only clamps
 * to the int8 range). bias may be NULL.
 * The int32 sums wrap on overflow, as the reference's do in practice (two's complement). */
#ifndef UTVM_KERNELS_SVDF_S8_H_
#define UTVM_KERNELS_SVDF_S8_H_

#include "svdf.h"

/* the new activation, saturated to the int16 state */
static inline int16_t utvm_svdf_s8_store(const utvm_svdf_q_params* p, int32_t dot) {
  return (int16_t)utvm_clamp_i32(utvm_mul_by_quantized_mul(dot, p->multiplier_1, p->shift_1), -32768, 32767);
}

static void utvm_svdf_s8(const utvm_svdf_q_params* p, const int8_t* in, const int8_t* weights_feature,
                         const int16_t* weights_time, const int32_t* bias, int16_t* state, int8_t* out) {
  UTVM_SVDF_Q(p, in, weights_feature, weights_time, bias, state, out, int16_t, utvm_svdf_s8_store,
              utvm_svdf_s8_time_mac);
}

#endif /* UTVM_KERNELS_SVDF_S8_H_ */
