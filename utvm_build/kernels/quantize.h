/* utvm-build kernels: QUANTIZE / DEQUANTIZE typed load/store helpers
 * (kernels: quantize_f32.h, quantize_requant.h, quantize_dequant.h, each with its parameter struct).
 *
 * Integer tensors are passed as void pointers with their width in bits (8, 16, 32: signed; UTVM_Q_U8
 * for uint8), so one loop serves every type pair TFLite Micro's quantize kernel accepts.
 */
#ifndef UTVM_KERNELS_QUANTIZE_H_
#define UTVM_KERNELS_QUANTIZE_H_

#include "common.h"

/* the "width" of a uint8 tensor (int8, int16 and int32 are 8, 16 and 32) */
#define UTVM_Q_U8 (-8)

static inline int32_t utvm_q_load(const void* p, int32_t bits, int32_t i) {
  if (bits == UTVM_Q_U8) {
    return (int32_t)((const uint8_t*)p)[i];
  }
  if (bits == 8) {
    return ((const int8_t*)p)[i];
  }
  if (bits == 16) {
    return ((const int16_t*)p)[i];
  }
  return ((const int32_t*)p)[i];
}

/* v is already clamped to the range of the output type */
static inline void utvm_q_store(void* p, int32_t bits, int32_t i, int32_t v) {
  if (bits == UTVM_Q_U8) {
    ((uint8_t*)p)[i] = (uint8_t)v;
  } else if (bits == 8) {
    ((int8_t*)p)[i] = (int8_t)v;
  } else if (bits == 16) {
    ((int16_t*)p)[i] = (int16_t)v;
  } else {
    ((int32_t*)p)[i] = v;
  }
}

#endif /* UTVM_KERNELS_QUANTIZE_H_ */
