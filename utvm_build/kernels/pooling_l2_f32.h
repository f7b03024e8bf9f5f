/* utvm-build kernels: L2_POOL_2D, float32 (reference_ops::L2Pool: the squares of the taps inside the
 * image summed in window order, divided by their count, square root, activation clamp). */
#ifndef UTVM_KERNELS_POOLING_L2_F32_H_
#define UTVM_KERNELS_POOLING_L2_F32_H_

#include <math.h>

#include "pooling.h"

static void utvm_l2_pool_f32(const utvm_pool_f32_params* p, const float* in, float* out) {
  int32_t b;
  int32_t oy;
  int32_t ox;
  int32_t c;
  for (b = 0; b < p->batches; ++b) {
    for (oy = 0; oy < p->out_h; ++oy) {
      for (ox = 0; ox < p->out_w; ++ox) {
        int32_t iy;
        int32_t ix;
        int32_t fy0;
        int32_t fy1;
        int32_t fx0;
        int32_t fx1;
        UTVM_POOL_WINDOW(p, oy, ox, iy, ix, fy0, fy1, fx0, fx1);
        for (c = 0; c < p->channels; ++c) {
          int32_t fy;
          int32_t fx;
          float sum_squares = 0.0f;
          int32_t count = 0;
          for (fy = fy0; fy < fy1; ++fy) {
            for (fx = fx0; fx < fx1; ++fx) {
              const float v = in[(((((b * p->in_h) + iy + fy) * p->in_w) + ix + fx) * p->channels) + c];
              sum_squares += v * v;
              count += 1;
            }
          }
          out[(((((b * p->out_h) + oy) * p->out_w) + ox) * p->channels) + c] =
              utvm_clamp_f32(sqrtf(sum_squares / (float)count), p->act_min, p->act_max);
        }
      }
    }
  }
}

#endif /* UTVM_KERNELS_POOLING_L2_F32_H_ */
