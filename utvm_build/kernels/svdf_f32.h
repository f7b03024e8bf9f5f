/* utvm-build kernels: SVDF, float32 (TFLite reference_ops::EvalFloatSVDF; state layout: svdf.h).
 * bias may be NULL. */
#ifndef UTVM_KERNELS_SVDF_F32_H_
#define UTVM_KERNELS_SVDF_F32_H_

#include <math.h>
#include <string.h>

#include "common.h"

typedef struct {
  int32_t batches;
  int32_t input_size;
  int32_t num_filters;
  int32_t memory_size;
  int32_t rank;
  int32_t num_units;
  int32_t activation;       /* 0 none, 1 tanh, 2 clamp to [act_min, act_max] */
  float act_min;
  float act_max;
} utvm_svdf_f32_params;

static void utvm_svdf_f32(const utvm_svdf_f32_params* p, const float* in, const float* weights_feature,
                          const float* weights_time, const float* bias, float* state, float* out) {
  const int32_t row = p->memory_size * p->num_filters;
  const int32_t moved = (p->batches * row) - 1;  /* state elements shifted one place left */
  int32_t b;
  int32_t f;
  int32_t u;
  int32_t r;
  int32_t i;
  (void)memmove(state, &state[1], (size_t)moved * sizeof(float));
  for (b = 0; b < p->batches; ++b) {
    const float* x = &in[b * p->input_size];
    for (f = 0; f < p->num_filters; ++f) {
      const float* w = &weights_feature[f * p->input_size];
      float dot = 0.0f;
      for (i = 0; i < p->input_size; ++i) {
        dot += w[i] * x[i];
      }
      state[(b * row) + (f * p->memory_size) + p->memory_size - 1] = 0.0f + dot;
    }
  }
  for (b = 0; b < p->batches; ++b) {
    for (u = 0; u < p->num_units; ++u) {
      float acc = (bias != NULL) ? bias[u] : 0.0f;
      for (r = 0; r < p->rank; ++r) {
        const int32_t filter = (u * p->rank) + r;
        const float* wt = &weights_time[filter * p->memory_size];
        const float* s = &state[(b * row) + (filter * p->memory_size)];
        float total = 0.0f;
        for (i = 0; i < p->memory_size; ++i) {
          total += wt[i] * s[i];
        }
        acc += total;
      }
      if (p->activation == 1) {
        acc = tanhf(acc);
      } else if (p->activation == 2) {
        acc = utvm_clamp_f32(acc, p->act_min, p->act_max);
      } else {
        /* 0: no activation */
      }
      out[(b * p->num_units) + u] = acc;
    }
  }
}

#endif /* UTVM_KERNELS_SVDF_F32_H_ */
