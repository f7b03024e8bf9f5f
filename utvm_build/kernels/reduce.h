/* utvm-build kernels: REDUCE_MAX, REDUCE_MIN, REDUCE_ALL and the float32 / int32 SUM
 * (kernels: reduce_{s8,s16,s32,f32,b8}.h); int8 / int16 SUM uses the MEAN kernels (mean.h).
 *
 * TFLite reference_ops::ReduceGeneric: every output starts at the reduction's initial value
 * (lowest for max, max for min, 0 for sum, true for all) and takes the inputs in input order,
 * out = reducer(out, in), with the walk of mean.h. When every input dimension is reduced,
 * reduce.cc's ReduceAllDims seeds the single output with input[0] instead (seed_first = 1); for
 * ordinary values both agree, for -inf (max), +inf (min), NaN and -0.0 (sum) they do not.
 * The int32 sum wraps as the reference's int arithmetic does in practice; int8/int16 SUM is the
 * requantized QuantizedMeanOrSum of the MEAN kernels.
 */
#ifndef UTVM_KERNELS_REDUCE_H_
#define UTVM_KERNELS_REDUCE_H_

#include "mean.h"

#define UTVM_REDUCE_MAX 0
#define UTVM_REDUCE_MIN 1
#define UTVM_REDUCE_SUM 2
#define UTVM_REDUCE_ALL 3

typedef struct {
  int32_t rank;
  int32_t in_dims[UTVM_MEAN_MAX_RANK];
  int32_t out_strides[UTVM_MEAN_MAX_RANK];
  int32_t in_size;
  int32_t out_size;
  int32_t kind;        /* UTVM_REDUCE_* */
  int32_t seed_first;  /* all dims reduced: output = input[0], then the rest */
} utvm_reduce_params;

/* First input index the walk feeds through the reducer (1 when the output was seeded). */
static inline int32_t utvm_reduce_start(const utvm_reduce_params* p) {
  return ((p->seed_first != 0) && (p->in_size > 0)) ? 1 : 0;
}

#endif /* UTVM_KERNELS_REDUCE_H_ */
