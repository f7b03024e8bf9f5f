/* utvm-build kernels: float32 elementwise unary operators (TFLite reference semantics).
 *
 * ABS, NEG, CEIL, FLOOR, ROUND (ties to even, reference_ops::RoundToNearest), SQRT, RSQRT (1 / sqrtf),
 * SQUARE, EXP, LOG, SIN, COS (the float libm functions std::exp/std::log/... call on float), ELU
 * (expm1f below 0), HARD_SWISH (x * min(6, max(0, x + 3)) / 6).
 * Every entry point is `static inline` so that a model that calls one of them compiles (and links)
 * only that one: no unused-function warnings, no libm function it does not use.
 */
#ifndef UTVM_KERNELS_UNARY_F32_H_
#define UTVM_KERNELS_UNARY_F32_H_

#include <math.h>

#include "common.h"

static inline void utvm_abs_f32(int32_t size, const float* in, float* out) {
  int32_t i;
  for (i = 0; i < size; ++i) {
    out[i] = fabsf(in[i]);
  }
}

static inline void utvm_neg_f32(int32_t size, const float* in, float* out) {
  int32_t i;
  for (i = 0; i < size; ++i) {
    out[i] = -in[i];
  }
}

static inline void utvm_ceil_f32(int32_t size, const float* in, float* out) {
  int32_t i;
  for (i = 0; i < size; ++i) {
    out[i] = ceilf(in[i]);
  }
}

static inline void utvm_floor_f32(int32_t size, const float* in, float* out) {
  int32_t i;
  for (i = 0; i < size; ++i) {
    out[i] = floorf(in[i]);
  }
}

/* RoundToNearest: halves go to the even neighbour. diff == 0.5 implies |x| < 2^23, so the int
 * conversion of floor(x) is in range. */
static inline void utvm_round_f32(int32_t size, const float* in, float* out) {
  int32_t i;
  for (i = 0; i < size; ++i) {
    const float fl = floorf(in[i]);
    const float diff = in[i] - fl;
    bool down = diff < 0.5f;
    if ((!down) && (diff == 0.5f)) {
      const int32_t fi = (int32_t)fl;
      down = ((fi % 2) == 0);
    }
    out[i] = down ? fl : (fl + 1.0f);
  }
}

static inline void utvm_sqrt_f32(int32_t size, const float* in, float* out) {
  int32_t i;
  for (i = 0; i < size; ++i) {
    out[i] = sqrtf(in[i]);
  }
}

static inline void utvm_rsqrt_f32(int32_t size, const float* in, float* out) {
  int32_t i;
  for (i = 0; i < size; ++i) {
    out[i] = 1.0f / sqrtf(in[i]);
  }
}

static inline void utvm_square_f32(int32_t size, const float* in, float* out) {
  int32_t i;
  for (i = 0; i < size; ++i) {
    out[i] = in[i] * in[i];
  }
}

static inline void utvm_exp_f32(int32_t size, const float* in, float* out) {
  int32_t i;
  for (i = 0; i < size; ++i) {
    out[i] = expf(in[i]);
  }
}

static inline void utvm_log_f32(int32_t size, const float* in, float* out) {
  int32_t i;
  for (i = 0; i < size; ++i) {
    out[i] = logf(in[i]);
  }
}

static inline void utvm_sin_f32(int32_t size, const float* in, float* out) {
  int32_t i;
  for (i = 0; i < size; ++i) {
    out[i] = sinf(in[i]);
  }
}

static inline void utvm_cos_f32(int32_t size, const float* in, float* out) {
  int32_t i;
  for (i = 0; i < size; ++i) {
    out[i] = cosf(in[i]);
  }
}

static inline void utvm_elu_f32(int32_t size, const float* in, float* out) {
  int32_t i;
  for (i = 0; i < size; ++i) {
    out[i] = (in[i] < 0.0f) ? expm1f(in[i]) : in[i];
  }
}

static inline void utvm_hard_swish_f32(int32_t size, const float* in, float* out) {
  int32_t i;
  for (i = 0; i < size; ++i) {
    const float x = in[i];
    const float r = x + 3.0f;
    const float c = (r > 6.0f) ? 6.0f : ((r < 0.0f) ? 0.0f : r);
    out[i] = (x * c) / 6.0f;
  }
}

#endif /* UTVM_KERNELS_UNARY_F32_H_ */
