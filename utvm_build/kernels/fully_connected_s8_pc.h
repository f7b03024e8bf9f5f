/* utvm-build kernels: FULLY_CONNECTED, int8 with per-channel weights
 * (reference_integer_ops::FullyConnectedPerChannel: one multiplier and shift per output unit). */
#ifndef UTVM_KERNELS_FULLY_CONNECTED_S8_PC_H_
#define UTVM_KERNELS_FULLY_CONNECTED_S8_PC_H_

#include "fully_connected.h"

/* bias: folded bias (input offset folded in; never NULL). p->multiplier/shift are unused. */
static void utvm_fully_connected_s8_pc(const utvm_fc_q_params* p, const int32_t* multipliers,
                                       const int32_t* shifts, const int8_t* in, const int8_t* w,
                                       const int32_t* bias, int8_t* out) {
  int32_t b;
  int32_t c;
  int32_t d;
  for (b = 0; b < p->batches; ++b) {
    const int8_t* x = &in[b * p->accum_depth];
    for (c = 0; c < p->out_depth; ++c) {
      const int8_t* wc = &w[c * p->accum_depth];
      int32_t acc = bias[c];
      for (d = 0; d < p->accum_depth; ++d) {
        acc += (int32_t)wc[d] * (int32_t)x[d];
      }
      acc = utvm_mul_by_quantized_mul(acc, multipliers[c], shifts[c]) + p->output_offset;
      out[(b * p->out_depth) + c] = (int8_t)utvm_clamp_i32(acc, p->act_min, p->act_max);
    }
  }
}

#endif /* UTVM_KERNELS_FULLY_CONNECTED_S8_PC_H_ */
