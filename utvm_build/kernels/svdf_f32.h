/* utvm-build kernels: SVDF, float32 (TFLite reference_ops::EvalFloatSVDF; state layout: svdf.h).
 * bias may be NULL. */
#ifndef UTVM_KERNELS_SVDF_F32_H_
#define UTVM_KERNELS_SVDF_F32_H_

#include <math.h>

#include "svdf.h"

typedef struct {
  UTVM_SVDF_SHAPE_FIELDS
  int32_t activation;       /* 0 none, 1 tanh, 2 clamp to [act_min, act_max] */
  float act_min;
  float act_max;
} utvm_svdf_f32_params;

static inline float utvm_svdf_f32_mac(const utvm_svdf_f32_params* p, float dot, float w, float x) {
  (void)p;
  return dot + (w * x);
}

static inline float utvm_svdf_f32_store(const utvm_svdf_f32_params* p, float dot) {
  (void)p;
  return 0.0f + dot;
}

static inline float utvm_svdf_f32_bias(const float* bias, int32_t u) {
  return (bias != NULL) ? bias[u] : 0.0f;
}

static inline float utvm_svdf_f32_out(const utvm_svdf_f32_params* p, float acc) {
  float v = acc; /* activation 0: none */
  if (p->activation == 1) {
    v = tanhf(acc);
  } else if (p->activation == 2) {
    v = utvm_clamp_f32(acc, p->act_min, p->act_max);
  } else {
    /* 0: no activation */
  }
  return v;
}

static void utvm_svdf_f32(const utvm_svdf_f32_params* p, const float* in, const float* weights_feature,
                          const float* weights_time, const float* bias, float* state, float* out) {
  const int32_t row = p->memory_size * p->num_filters;
  UTVM_SVDF_FEATURES(p, row, in, weights_feature, state, float, float, float, utvm_svdf_f32_mac, utvm_svdf_f32_store);
  UTVM_SVDF_TIME(p, row, weights_time, bias, state, out, float, float, float, float, utvm_svdf_f32_bias,
                 utvm_svdf_f32_mac, utvm_svdf_f32_out);
}

#endif /* UTVM_KERNELS_SVDF_F32_H_ */
