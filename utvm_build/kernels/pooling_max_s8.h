/* utvm-build kernels: MAX_POOL_2D, int8_t (reference_integer_ops::MaxPool; no requantization). */
#ifndef UTVM_KERNELS_POOLING_MAX_S8_H_
#define UTVM_KERNELS_POOLING_MAX_S8_H_

#include "pooling.h"

static void utvm_max_pool_s8(const utvm_pool_q_params* p, const int8_t* in, int8_t* out) {
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
          int32_t m = INT8_MIN;
          for (fy = fy0; fy < fy1; ++fy) {
            for (fx = fx0; fx < fx1; ++fx) {
              m = utvm_max_i32(m, (int32_t)in[(((((b * p->in_h) + iy + fy) * p->in_w) + ix + fx) * p->channels) + c]);
            }
          }
          out[(((((b * p->out_h) + oy) * p->out_w) + ox) * p->channels) + c] = (int8_t)utvm_clamp_i32(m, p->act_min, p->act_max);
        }
      }
    }
  }
}

#endif /* UTVM_KERNELS_POOLING_MAX_S8_H_ */
