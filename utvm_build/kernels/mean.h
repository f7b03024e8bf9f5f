/* utvm-build kernels: MEAN (and reduce) shared walk and integer parameter struct (kernels: mean_{s8,s16,f32}.h;
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

/* The walk's fields, at the start of every MEAN and reduce parameter struct (one list). */
#define UTVM_MEAN_WALK_FIELDS               \
  int32_t rank;                             \
  int32_t in_dims[UTVM_MEAN_MAX_RANK];      \
  int32_t out_strides[UTVM_MEAN_MAX_RANK];  \
  int32_t in_size;                          \
  int32_t out_size;

/* int8/int16: TFLite reference_ops::QuantizedMeanOrSum (integer version):
 * out = clamp(MultiplyByQuantizedMultiplier(sum - zp_in * count, multiplier, shift) + zp_out), with the
 * multiplier already divided by count at code generation. */
typedef struct {
  UTVM_MEAN_WALK_FIELDS
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

/* The reduction walk of every MEAN and reduce kernel (reduce.h), written once: acc[] = init;
 * with seed (0 or 1) acc[0] = in[0] and that input is skipped; then acc[o] = STEP(acc[o], in[i])
 * for the other inputs in input order, o the output that input i reduces into. STEP is the
 * type's element operation; the macro expands in place, at no run-time cost. */
#define UTVM_MEAN_WALK(p, in, acc, init, seed, STEP)                               \
  do {                                                                             \
    int32_t index_[UTVM_MEAN_MAX_RANK] = {0, 0, 0, 0, 0, 0};                       \
    int32_t o_ = 0;                                                                \
    int32_t i_;                                                                    \
    const int32_t start_ = (seed);                                                 \
    for (i_ = 0; i_ < (p)->out_size; ++i_) {                                       \
      (acc)[i_] = (init);                                                          \
    }                                                                              \
    if (start_ == 1) {                                                             \
      (acc)[0] = (in)[0];                                                          \
      o_ = utvm_mean_next((p)->rank, (p)->in_dims, (p)->out_strides, index_, o_);  \
    }                                                                              \
    for (i_ = start_; i_ < (p)->in_size; ++i_) {                                   \
      (acc)[o_] = STEP((acc)[o_], (in)[i_]);                                       \
      o_ = utvm_mean_next((p)->rank, (p)->in_dims, (p)->out_strides, index_, o_);  \
    }                                                                              \
  } while (0)

static inline int32_t utvm_mean_add_i32(int32_t acc, int32_t v) {
  return acc + v;
}

/* int8 / int16 MEAN (and SUM): the int32 sums in acc, then each requantized and narrowed to T. */
#define UTVM_MEAN_Q(T, p, in, out, acc)                   \
  do {                                                    \
    int32_t j_;                                           \
    UTVM_MEAN_WALK(p, in, acc, 0, 0, utvm_mean_add_i32);  \
    for (j_ = 0; j_ < (p)->out_size; ++j_) {              \
      (out)[j_] = (T)utvm_mean_finish((p), (acc)[j_]);    \
    }                                                     \
  } while (0)

#endif /* UTVM_KERNELS_MEAN_H_ */
