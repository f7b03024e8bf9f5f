/* utvm-build kernels: FLOOR_DIV, FLOOR_MOD, float32, with TFLite broadcasting.
 * FLOOR_DIV: floor((double)a / (double)b) rounded to float (reference_ops::FloorDiv).
 * FLOOR_MOD: fmodf(a, b), plus b when the remainder is non-zero and its sign differs from b's
 * (reference_ops::FloorMod). */
#ifndef UTVM_KERNELS_FLOOR_DIV_MOD_H_
#define UTVM_KERNELS_FLOOR_DIV_MOD_H_

#include <math.h>

#include "ew_walk.h"

static inline void utvm_floor_div_f32(const utvm_ew_shape* sh, const float* in1, const float* in2, float* out) {
  utvm_ew_walk w;
  int32_t i;
  utvm_ew_walk_init(&w);
  for (i = 0; i < sh->size; ++i) {
    out[i] = (float)floor((double)in1[w.o1] / (double)in2[w.o2]);
    utvm_ew_walk_step(sh, &w);
  }
}

static inline void utvm_floor_mod_f32(const utvm_ew_shape* sh, const float* in1, const float* in2, float* out) {
  utvm_ew_walk w;
  int32_t i;
  utvm_ew_walk_init(&w);
  for (i = 0; i < sh->size; ++i) {
    const float b = in2[w.o2];
    const float m = fmodf(in1[w.o1], b);
    float r = m;
    if ((m != 0.0f) && ((b < 0.0f) != (m < 0.0f))) {
      r = m + b;
    }
    out[i] = r;
    utvm_ew_walk_step(sh, &w);
  }
}

#endif /* UTVM_KERNELS_FLOOR_DIV_MOD_H_ */
