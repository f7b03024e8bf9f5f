/* utvm-build kernels: DEQUANTIZE int8 / uint8 / int16 -> float32.
 *
 * TFLite reference_ops::Dequantize computes static_cast<float>(double(scale) * (q - zero_point)).
 * scale is a float32 value and |q - zero_point| < 2^17, so the double product is exact and is
 * rounded once to float; the float32 product below is that same correctly rounded value, so
 * float arithmetic reproduces the reference bit for bit without double on the target.
 */
#ifndef UTVM_KERNELS_QUANTIZE_DEQUANT_H_
#define UTVM_KERNELS_QUANTIZE_DEQUANT_H_

#include "quantize.h"

/* int8/uint8/int16 -> float32 (reference_ops::Dequantize). */
typedef struct {
  int32_t size;
  int32_t in_bits;
  int32_t zero_point;
  float scale;
} utvm_dequantize_params;

static void utvm_dequantize(const utvm_dequantize_params* p, const void* in, float* out) {
  int32_t i;
  for (i = 0; i < p->size; ++i) {
    const int32_t q = utvm_q_load(in, p->in_bits, i) - p->zero_point;
    out[i] = p->scale * (float)q;
  }
}

#endif /* UTVM_KERNELS_QUANTIZE_DEQUANT_H_ */
