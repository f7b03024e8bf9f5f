/* utvm-build kernels: RELU / RELU6 / LEAKY_RELU parameter structs of the quantized kernels
 * (activations_relu_{s8,s16}.h, activations_leaky_{s8,s16}.h; the float32 kernels have their own).
 *
 * Quantized RELU/RELU6 follow TFLite's QuantizedReluX + ReluX: requantize to the output scale,
 * then clamp to [zp + round(0 / s_out), zp + round(6 / s_out)] within the type range.
 * Quantized LEAKY_RELU follows reference_ops::QuantizeLeakyRelu: one multiplier for inputs >= 0
 * (s_in / s_out) and one for negative inputs (s_in * alpha / s_out).
 */
#ifndef UTVM_KERNELS_ACTIVATIONS_H_
#define UTVM_KERNELS_ACTIVATIONS_H_

#include "common.h"

typedef struct {
  int32_t size;
  int32_t input_offset;  /* input zero point (subtracted) */
  int32_t output_offset; /* output zero point */
  int32_t multiplier;
  int32_t shift;
  int32_t act_min;
  int32_t act_max;
} utvm_relu_q_params;

typedef struct {
  int32_t size;
  int32_t input_offset;
  int32_t output_offset;
  int32_t multiplier_identity;
  int32_t shift_identity;
  int32_t multiplier_alpha;
  int32_t shift_alpha;
  int32_t qmin;
  int32_t qmax;
} utvm_leaky_relu_q_params;

/* The element operations of the quantized kernels, int8 and int16 alike (the kernel narrows):
 * requantized to the output, offset and clamped. */
static inline int32_t utvm_relu_q_one(const utvm_relu_q_params* p, int32_t in) {
  const int32_t v = p->output_offset + utvm_mul_by_quantized_mul(in - p->input_offset, p->multiplier, p->shift);
  return utvm_clamp_i32(v, p->act_min, p->act_max);
}

static inline int32_t utvm_leaky_relu_q_one(const utvm_leaky_relu_q_params* p, int32_t in) {
  const int32_t x = in - p->input_offset;
  const int32_t v = p->output_offset +
                    ((x >= 0) ? utvm_mul_by_quantized_mul(x, p->multiplier_identity, p->shift_identity)
                              : utvm_mul_by_quantized_mul(x, p->multiplier_alpha, p->shift_alpha));
  return utvm_clamp_i32(v, p->qmin, p->qmax);
}

/* The loop of every quantized activation kernel: out[i] = (T)ONE(p, in[i]) over p->size elements. */
#define UTVM_ACTIVATION_Q(T, ONE, p, in, out)         \
  do {                                               \
    int32_t i_;                                      \
    for (i_ = 0; i_ < (p)->size; ++i_) {             \
      (out)[i_] = (T)ONE((p), (int32_t)(in)[i_]);    \
    }                                                \
  } while (0)

#endif /* UTVM_KERNELS_ACTIVATIONS_H_ */
