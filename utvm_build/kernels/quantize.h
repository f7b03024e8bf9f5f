/* utvm-build kernels: QUANTIZE / DEQUANTIZE parameter structs and typed load/store helpers
 * (kernels: quantize_f32.h, quantize_requant.h, quantize_dequant.h).
 *
 * Integer tensors are passed as void pointers with their width in bits (8, 16, 32, signed), so one
 * loop serves every type pair TFLite's quantize.cc accepts.
 */
#ifndef UTVM_KERNELS_QUANTIZE_H_
#define UTVM_KERNELS_QUANTIZE_H_

#include "common.h"

/* float32 -> int8/int16 (reference_ops::AffineQuantize). */
typedef struct {
  int32_t size;
  int32_t out_bits;
  float scale; /* output scale, float32 as in the reference's static_cast<float>(scale) */
  int32_t zero_point;
  int32_t qmin;
  int32_t qmax;
} utvm_quantize_f32_params;

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

/* int8/int16 -> float32 (reference_ops::Dequantize). */
typedef struct {
  int32_t size;
  int32_t in_bits;
  int32_t zero_point;
  float scale;
} utvm_dequantize_params;

static inline int32_t utvm_q_load(const void* p, int32_t bits, int32_t i) {
  if (bits == 8) {
    return ((const int8_t*)p)[i];
  }
  if (bits == 16) {
    return ((const int16_t*)p)[i];
  }
  return ((const int32_t*)p)[i];
}

static inline void utvm_q_store(void* p, int32_t bits, int32_t i, int32_t v) {
  if (bits == 8) {
    ((int8_t*)p)[i] = (int8_t)v;
  } else if (bits == 16) {
    ((int16_t*)p)[i] = (int16_t)v;
  } else {
    ((int32_t*)p)[i] = v;
  }
}

#endif /* UTVM_KERNELS_QUANTIZE_H_ */
