/* utvm-build kernels: FULLY_CONNECTED, float32. */
#ifndef UTVM_KERNELS_FULLY_CONNECTED_F32_H_
#define UTVM_KERNELS_FULLY_CONNECTED_F32_H_

#include "common.h"

typedef struct {
  int32_t batches;
  int32_t accum_depth;
  int32_t out_depth;
  float act_min;
  float act_max;
} utvm_fc_f32_params;

static void utvm_fully_connected_f32(const utvm_fc_f32_params* p, const float* in, const float* w,
                                     const float* bias, float* out) {
  int32_t b;
  int32_t c;
  int32_t d;
  for (b = 0; b < p->batches; ++b) {
    const float* x = &in[b * p->accum_depth];
    for (c = 0; c < p->out_depth; ++c) {
      const float* wc = &w[c * p->accum_depth];
      float total = 0.0f;
      for (d = 0; d < p->accum_depth; ++d) {
        total += x[d] * wc[d];
      }
      total += (bias != NULL) ? bias[c] : 0.0f;
      out[(b * p->out_depth) + c] = utvm_clamp_f32(total, p->act_min, p->act_max);
    }
  }
}

#endif /* UTVM_KERNELS_FULLY_CONNECTED_F32_H_ */
