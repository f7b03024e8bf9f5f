/* utvm-build kernels: SVDF, int8 input/output with int8 weights_time and int8 state (TFLite Micro's
 * EvalIntegerSvdfReference<int8_t>; TFLite's reference only has the int16 state variant).
 * As TFLM: the new activation is clamped to [-128, 127] *before* the state zero point is added and
 * the sum is stored with an int8 conversion (wraps); the time dot product subtracts the zero
 * point. The fused activation is not applied. bias may be NULL.
 * The int32 sums wrap on overflow, as the reference's do in practice (two's complement). */
#ifndef UTVM_KERNELS_SVDF_S8_S8_H_
#define UTVM_KERNELS_SVDF_S8_S8_H_

#include "svdf.h"

static void utvm_svdf_s8_s8(const utvm_svdf_q_params* p, const int8_t* in, const int8_t* weights_feature,
                            const int8_t* weights_time, const int32_t* bias, int8_t* state, int8_t* out) {
  const int32_t row = p->memory_size * p->num_filters;
  const int32_t moved = (p->batches * row) - 1;  /* state elements shifted one place left */
  int32_t b;
  int32_t f;
  int32_t u;
  int32_t r;
  int32_t i;
  (void)memmove(state, &state[1], (size_t)moved * sizeof(int8_t));
  for (b = 0; b < p->batches; ++b) {
    const int8_t* x = &in[b * p->input_size];
    for (f = 0; f < p->num_filters; ++f) {
      const int8_t* w = &weights_feature[f * p->input_size];
      int32_t dot = 0;
      for (i = 0; i < p->input_size; ++i) {
        dot += (int32_t)w[i] * ((int32_t)x[i] + p->input_offset);
      }
      dot = utvm_clamp_i32(utvm_mul_by_quantized_mul(dot, p->multiplier_1, p->shift_1), -128, 127);
      dot += p->state_zero_point;
      state[(b * row) + (f * p->memory_size) + p->memory_size - 1] = (int8_t)(uint8_t)(uint32_t)dot;
    }
  }
  for (b = 0; b < p->batches; ++b) {
    for (u = 0; u < p->num_units; ++u) {
      /* the int32 sums wrap: accumulated modulo 2^32 in uint32_t, where that is defined */
      uint32_t acc = (bias != NULL) ? (uint32_t)bias[u] : 0u;
      int32_t v;
      for (r = 0; r < p->rank; ++r) {
        const int32_t filter = (u * p->rank) + r;
        const int8_t* wt = &weights_time[filter * p->memory_size];
        const int8_t* s = &state[(b * row) + (filter * p->memory_size)];
        uint32_t total = 0u;
        for (i = 0; i < p->memory_size; ++i) {
          const int32_t prod = (int32_t)wt[i] * ((int32_t)s[i] - p->state_zero_point);
          total += (uint32_t)prod;
        }
        acc += total;
      }
      v = utvm_mul_by_quantized_mul((int32_t)acc, p->multiplier_2, p->shift_2) + p->output_offset;
      out[(b * p->num_units) + u] = (int8_t)utvm_clamp_i32(v, -128, 127);
    }
  }
}

#endif /* UTVM_KERNELS_SVDF_S8_S8_H_ */
