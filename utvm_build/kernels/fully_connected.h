/* utvm-build kernels: FULLY_CONNECTED integer parameter struct
 * (kernels: fully_connected_{s8,s8_pc,s16,s16_pc}.h; fully_connected_f32.h has its own).
 *
 * out[b][c] = act(requant(bias[c] + sum_d w[c][d] * (x[b][d] + input_offset)))
 * The int8 kernel receives a bias with input_offset * sum_d w[c][d] already folded in (computed at
 * code generation), so the inner loop is a plain dot product.
 */
#ifndef UTVM_KERNELS_FULLY_CONNECTED_H_
#define UTVM_KERNELS_FULLY_CONNECTED_H_

#include "common.h"

typedef struct {
  int32_t batches;
  int32_t accum_depth;
  int32_t out_depth;
  int32_t output_offset;
  int32_t multiplier;
  int32_t shift;
  int32_t act_min;
  int32_t act_max;
  int32_t acc32;   /* 16x8 without an int64 bias: int32 accumulator and MultiplyByQuantizedMultiplier */
} utvm_fc_q_params;

#endif /* UTVM_KERNELS_FULLY_CONNECTED_H_ */
