/* utvm-build kernels: MEAN shared walk and integer parameter struct (kernels: mean_{s8,s16,f32}.h;
 * the float32 struct is in mean_f32.h).
 *
 * The input (up to 6-D, row-major) is walked in order; element i adds to output
 * sum_d index[d] * out_strides[d] (stride 0 on reduced axes), so every output sums its inputs in
 * the reference's order. Integer kernels accumulate in an int32 scratch of out_size values.
 */
#ifndef UTVM_KERNELS_MEAN_H_
#define UTVM_KERNELS_MEAN_H_

#include "common.h"

#define UTVM_MEAN_MAX_RANK 6

/* int8/int16: TFLite reference_ops::QuantizedMeanOrSum (integer version):
 * out = clamp(MultiplyByQuantizedMultiplier(sum - zp_in * count, multiplier, shift) + zp_out), with the
 * multiplier already divided by count at code generation. */
typedef struct {
  int32_t rank;
  int32_t in_dims[UTVM_MEAN_MAX_RANK];
  int32_t out_strides[UTVM_MEAN_MAX_RANK];
  int32_t in_size;
  int32_t out_size;
  int32_t sum_offset;       /* -zp_in * count */
  int32_t multiplier;
  int32_t shift;
  int32_t output_zero_point;
  int32_t out_min;
  int32_t out_max;
} utvm_mean_q_params;

/* Advance a row-major multi-index; returns the output offset of the new index. */
static inline int32_t utvm_mean_next(int32_t rank, const int32_t* dims, const int32_t* out_strides,
                                     int32_t* index, int32_t offset) {
  int32_t o = offset;
  int32_t d;
  for (d = rank - 1; d >= 0; --d) {
    index[d] += 1;
    o += out_strides[d];
    if (index[d] < dims[d]) {
      break;
    }
    o -= index[d] * out_strides[d];
    index[d] = 0;
  }
  return o;
}

/* The finishing step of the integer kernels: sum -> output value. */
static inline int32_t utvm_mean_finish(const utvm_mean_q_params* p, int32_t sum) {
  /* sum - zp_in * count wraps like the reference's int32 arithmetic */
  const uint32_t wrapped = (uint32_t)sum + (uint32_t)p->sum_offset;
  const int32_t shifted = (int32_t)wrapped;
  const int32_t r = utvm_mul_by_quantized_mul(shifted, p->multiplier, p->shift) + p->output_zero_point;
  return utvm_clamp_i32(r, p->out_min, p->out_max);
}

#endif /* UTVM_KERNELS_MEAN_H_ */
