/* utvm-build kernels: ADD_N (reference_ops::AddN): n same-shape inputs summed per element.
 * float32: 0.0f + in_0 + in_1 + ... in input order. int8 (TFLite Micro add_n.cc, all inputs share
 * one scale and zero point): every input rescaled ((x - zp) << left_shift,
 * MultiplyByQuantizedMultiplierSmallerThanOneExp), summed, rescaled to the output, saturated. */
#ifndef UTVM_KERNELS_ADD_N_H_
#define UTVM_KERNELS_ADD_N_H_

#include "elementwise.h"

typedef struct {
  int32_t left_shift;
  int32_t input_offset;
  int32_t input_multiplier;
  int32_t input_shift;
  int32_t output_offset;
  int32_t output_multiplier;
  int32_t output_shift;
  int32_t act_min;
  int32_t act_max;
} utvm_add_n_q_params;

static inline void utvm_add_n_f32(int32_t n, int32_t size, const void* const* ins, float* out) {
  int32_t i;
  int32_t j;
  for (i = 0; i < size; ++i) {
    float x = 0.0f;
    for (j = 0; j < n; ++j) {
      x += ((const float*)ins[j])[i];
    }
    out[i] = x;
  }
}

static inline void utvm_add_n_s8(const utvm_add_n_q_params* p, int32_t n, int32_t size, const void* const* ins,
                                 int8_t* out) {
  int32_t i;
  int32_t j;
  for (i = 0; i < size; ++i) {
    int32_t acc = utvm_mul_by_quantized_mul_lt1(utvm_shl_wrap_i32(p->input_offset, p->left_shift),
                                                p->input_multiplier, p->input_shift);
    for (j = 0; j < n; ++j) {
      const int32_t y = p->input_offset + ((const int8_t*)ins[j])[i];
      acc += utvm_mul_by_quantized_mul_lt1(utvm_shl_wrap_i32(y, p->left_shift), p->input_multiplier,
                                           p->input_shift);
    }
    out[i] = (int8_t)utvm_clamp_i32(utvm_mul_by_quantized_mul_lt1(acc, p->output_multiplier, p->output_shift) +
                                        p->output_offset,
                                    p->act_min, p->act_max);
  }
}

#endif /* UTVM_KERNELS_ADD_N_H_ */
