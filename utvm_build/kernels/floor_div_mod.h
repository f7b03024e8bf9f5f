/* utvm-build kernels: FLOOR_DIV, FLOOR_MOD, float32, with TFLite broadcasting.
 * FLOOR_DIV: floor((double)a / (double)b) rounded to float (reference_ops::FloorDiv).
 * FLOOR_MOD: fmodf(a, b), plus b when the remainder is non-zero and its sign differs from b's
 * (reference_ops::FloorMod). */
#ifndef UTVM_KERNELS_FLOOR_DIV_MOD_H_
#define UTVM_KERNELS_FLOOR_DIV_MOD_H_

#include <math.h>

#include "ew_walk.h"

static inline float utvm_floor_div_f32_one(float a, float b) {
  return (float)floor((double)a / (double)b);
}

static inline void utvm_floor_div_f32(const utvm_ew_shape* sh, const float* in1, const float* in2, float* out) {
  UTVM_EW_EACH(sh, out, utvm_floor_div_f32_one(in1[UTVM_EW_I1], in2[UTVM_EW_I2]));
}

static inline float utvm_floor_mod_f32_one(float x1, float x2) {
  const float b = x2;
  const float m = fmodf(x1, b);
  float r = m;
  if ((m != 0.0f) && ((b < 0.0f) != (m < 0.0f))) {
    r = m + b;
  }
  return r;
}

static inline void utvm_floor_mod_f32(const utvm_ew_shape* sh, const float* in1, const float* in2, float* out) {
  UTVM_EW_EACH(sh, out, utvm_floor_mod_f32_one(in1[UTVM_EW_I1], in2[UTVM_EW_I2]));
}

#endif /* UTVM_KERNELS_FLOOR_DIV_MOD_H_ */
