/* utvm-build kernels: FULLY_CONNECTED, 16x8 with per-channel weights
 * (reference_integer_ops::FullyConnectedPerChannel, int16 overload: int64 accumulator and bias). */
#ifndef UTVM_KERNELS_FULLY_CONNECTED_S16_PC_H_
#define UTVM_KERNELS_FULLY_CONNECTED_S16_PC_H_

#include "fully_connected.h"

/* bias: int64 (may be NULL). Without a bias the reference instantiates the int32-bias variant: int32
 * accumulator (wraps) and the int32 MultiplyByQuantizedMultiplier. p->multiplier/shift are unused. */
static void utvm_fully_connected_s16_pc(const utvm_fc_q_params* p, const int32_t* multipliers,
                                        const int32_t* shifts, const int16_t* in, const int8_t* w,
                                        const int64_t* bias, int16_t* out) {
  int32_t b;
  int32_t c;
  int32_t d;
  for (b = 0; b < p->batches; ++b) {
    const int16_t* x = &in[b * p->accum_depth];
    for (c = 0; c < p->out_depth; ++c) {
      const int8_t* wc = &w[c * p->accum_depth];
      int64_t acc = 0;
      int32_t r;
      for (d = 0; d < p->accum_depth; ++d) {
        const int32_t prod = (int32_t)wc[d] * (int32_t)x[d];
        acc += (int64_t)prod;
      }
      if (bias != NULL) {
        acc += bias[c];
      }
      if (p->acc32 != 0) {   /* the reference's int32 instantiation: int32 sums wrap */
        r = utvm_mul_by_quantized_mul((int32_t)(uint32_t)acc, multipliers[c], shifts[c]);
      } else {
        r = utvm_mul_by_quantized_mul64(acc, multipliers[c], shifts[c]);
      }
      out[(b * p->out_depth) + c] = (int16_t)utvm_clamp_i32(r, p->act_min, p->act_max);
    }
  }
}

#endif /* UTVM_KERNELS_FULLY_CONNECTED_S16_PC_H_ */
