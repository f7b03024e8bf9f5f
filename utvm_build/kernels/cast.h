/* utvm-build kernels: CAST (TFLite Micro cast.cc: static_cast per element).
 * Inputs and outputs int8, int16, int32, uint32, float32, bool (uint32 as TFLM's signal front end uses it: values are carried modulo 2^32; uint32 to float32
 * converts the unsigned value; float32 to uint32 saturates, as the TFLM build that is the oracle does).
 * Integer narrowing wraps (two's complement, as static_cast does). float32 to an integer type
 * truncates toward zero; out-of-range and NaN inputs, undefined in C, give what the reference's
 * conversion instruction gives on x86 and Arm AArch32 VCVT alike for in-range values and, here by
 * definition, INT32_MIN (x86 cvttss2si) before narrowing, so that no input is undefined behaviour.
 * To bool: value != 0 (static_cast<bool>): float32 -0.0 gives false, NaN true; bool is one byte 0/1. */
#ifndef UTVM_KERNELS_CAST_H_
#define UTVM_KERNELS_CAST_H_

#include "common.h"

#define UTVM_CAST_S8 0
#define UTVM_CAST_S16 1
#define UTVM_CAST_S32 2
#define UTVM_CAST_F32 3
#define UTVM_CAST_BOOL 4
#define UTVM_CAST_U32 5

typedef struct {
  int32_t in_type;  /* UTVM_CAST_* */
  int32_t out_type; /* UTVM_CAST_* */
} utvm_cast_params;

static inline int32_t utvm_cast_f32_to_i32(float f) {
  int32_t r = (int32_t)INT32_MIN;
  if ((f > -2147483904.0f) && (f < 2147483648.0f)) {
    r = (int32_t)f;
  }
  return r;
}

/* float to uint32 through int64 (in range: |f| < 2^63; else 0, the low bits of x86's INT64_MIN) */
static inline uint32_t utvm_cast_f32_to_u32(float f) {
  /* Saturating, as the TFLM build that is the oracle converts (a float32 -> uint32 CAST exists only
   * in TFLM): below 0 and NaN give 0, 2^32 and above UINT32_MAX; in range a single VCVT on an FPU
   * (no 64-bit conversion, no soft-float library code). */
  uint32_t r = 0u;
  if (f >= 4294967296.0f) {
    r = UINT32_MAX;
  } else if (f > -1.0f) {
    r = (uint32_t)f;
  } else {
    /* negative or NaN: 0 */
  }
  return r;
}

static void utvm_cast(const utvm_cast_params* p, int32_t size, const void* in, void* out) {
  int32_t i;
  for (i = 0; i < size; ++i) {
    int32_t iv = 0;
    float fv = 0.0f;
    bool is_float = false;
    uint32_t uv = 0u;
    bool is_u32 = false;
    switch (p->in_type) {
      case UTVM_CAST_S8:
        iv = ((const int8_t*)in)[i];
        break;
      case UTVM_CAST_S16:
        iv = ((const int16_t*)in)[i];
        break;
      case UTVM_CAST_S32:
        iv = ((const int32_t*)in)[i];
        break;
      case UTVM_CAST_F32:
        fv = ((const float*)in)[i];
        is_float = true;
        break;
      case UTVM_CAST_U32:
        uv = ((const uint32_t*)in)[i];
        is_u32 = true;
        /* the same bits as an int32 (two's complement), for the integer outputs */
        if (uv >= 0x80000000u) {
          const uint32_t inv = ~uv;
          iv = -(int32_t)inv - 1;
        } else {
          iv = (int32_t)uv;
        }
        break;
      default:
        if (((const uint8_t*)in)[i] != 0u) {
          iv = 1;
        }
        break;
    }
    if (p->out_type == UTVM_CAST_BOOL) {
      /* iv carries every integer input (uint32 by its bits): nonzero exactly when the input is */
      const bool nonzero = is_float ? (fv != 0.0f) : (iv != 0);
      ((uint8_t*)out)[i] = nonzero ? 1u : 0u;
    } else if (p->out_type == UTVM_CAST_F32) {
      ((float*)out)[i] = is_float ? fv : (is_u32 ? (float)uv : (float)iv);
    } else if (p->out_type == UTVM_CAST_U32) {
      ((uint32_t*)out)[i] = is_float ? utvm_cast_f32_to_u32(fv) : (uint32_t)iv;
    } else {
      const int32_t v = is_float ? utvm_cast_f32_to_i32(fv) : iv;
      const uint32_t u = (uint32_t)v;
      if (p->out_type == UTVM_CAST_S8) {
        ((int8_t*)out)[i] = (int8_t)(uint8_t)(u & 0xFFu);
      } else if (p->out_type == UTVM_CAST_S16) {
        ((int16_t*)out)[i] = (int16_t)(uint16_t)(u & 0xFFFFu);
      } else {
        ((int32_t*)out)[i] = v;
      }
    }
  }
}

#endif /* UTVM_KERNELS_CAST_H_ */
