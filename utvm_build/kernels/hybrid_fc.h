/* utvm-build kernels: hybrid FULLY_CONNECTED (see hybrid.h): fully_connected.cc EvalHybridDense with
 * tensor_utils::MatrixBatchVectorMultiplyAccumulate. Per output: int32 dot product of the weight
 * row and the quantized batch, minus row_sum * input offset (asymmetric inputs; row sums of the
 * constant weights are computed at code generation), times the batch scale (times the row's
 * scale for per-channel weights), added to the bias, then the activation clamp. */
#ifndef UTVM_KERNELS_HYBRID_FC_H_
#define UTVM_KERNELS_HYBRID_FC_H_

#include "hybrid.h"

typedef struct {
  int32_t batches;
  int32_t accum_depth;
  int32_t out_depth;
  int32_t asymmetric;
  float act_min;
  float act_max;
} utvm_hybrid_fc_params;

static void utvm_hybrid_fc(const utvm_hybrid_fc_params* p, const int8_t* q, const float* sf,
                           const int32_t* offset, const int8_t* w, const int32_t* row_sums, const float* bias,
                           const float* channel_scale, float* out) {
  int32_t b;
  int32_t r;
  int32_t c;
  for (b = 0; b < p->batches; ++b) {
    const int8_t* x = &q[b * p->accum_depth];
    for (r = 0; r < p->out_depth; ++r) {
      const int8_t* row = &w[r * p->accum_depth];
      int32_t dot = 0;
      float scale = sf[b];
      float acc = (bias != NULL) ? bias[r] : 0.0f;
      for (c = 0; c < p->accum_depth; ++c) {
        dot += (int32_t)row[c] * (int32_t)x[c];
      }
      if (p->asymmetric != 0) {
        if (channel_scale != NULL) {
          scale = scale * channel_scale[r];
        }
        dot -= row_sums[r] * offset[b];
      }
      acc += (float)dot * scale;
      out[(b * p->out_depth) + r] = utvm_clamp_f32(acc, p->act_min, p->act_max);
    }
  }
}

#endif /* UTVM_KERNELS_HYBRID_FC_H_ */
