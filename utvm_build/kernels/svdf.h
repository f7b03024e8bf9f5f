/* utvm-build kernels: SVDF integer parameter struct (kernels: svdf_{s8,s8_s8}.h; svdf_f32.h
 * has its own struct and follows the same state layout).
 *
 * state[b][f][0 .. memory_size) is a variable tensor that persists between runs. Each run shifts it
 * left by one element (as std::copy over the whole buffer in the reference; the last element of
 * every filter row is overwritten next), writes the new feature activation
 * dot(weights_feature[f], input[b]) into the last column, then
 * out[b][u] = bias[u] + sum_{r < rank} dot(weights_time[u * rank + r], state[b][u * rank + r]).
 */
#ifndef UTVM_KERNELS_SVDF_H_
#define UTVM_KERNELS_SVDF_H_

#include <string.h>

#include "common.h"

typedef struct {
  int32_t batches;
  int32_t input_size;
  int32_t num_filters;
  int32_t memory_size;
  int32_t rank;
  int32_t num_units;
  int32_t input_offset;     /* -input zero point */
  int32_t state_zero_point; /* int8 state only (TFLM); 0 for int16 state */
  int32_t output_offset;
  int32_t multiplier_1;     /* input * weights_feature -> state */
  int32_t shift_1;
  int32_t multiplier_2;     /* state * weights_time -> output */
  int32_t shift_2;
} utvm_svdf_q_params;

#endif /* UTVM_KERNELS_SVDF_H_ */
