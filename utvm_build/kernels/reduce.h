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
  UTVM_MEAN_WALK_FIELDS
  int32_t kind;        /* UTVM_REDUCE_* */
  int32_t seed_first;  /* all dims reduced: output = input[0], then the rest */
} utvm_reduce_params;

/* First input index the walk feeds through the reducer (1 when the output was seeded). */
static inline int32_t utvm_reduce_start(const utvm_reduce_params* p) {
  return ((p->seed_first != 0) && (p->in_size > 0)) ? 1 : 0;
}

/* The element operations of REDUCE_MAX / REDUCE_MIN (any arithmetic type; NaN as the
 * reference's comparisons treat it: the current value stays). */
#define UTVM_REDUCE_MAX_OF(acc, v) (((v) > (acc)) ? (v) : (acc))
#define UTVM_REDUCE_MIN_OF(acc, v) (((v) < (acc)) ? (v) : (acc))

/* The walk of every reduce kernel (mean.h's, seeded with input[0] when seed_first):
 * out[o] = STEP(out[o], in[i]); STEP is the type's element operation. */
#define UTVM_REDUCE_WALK(p, in, out, init, STEP) UTVM_MEAN_WALK(p, in, out, init, utvm_reduce_start(p), STEP)

/* REDUCE_MAX / REDUCE_MIN of one type: lowest / highest its initial value. */
#define UTVM_REDUCE_MAX_MIN(p, in, out, lowest, highest)          \
  do {                                                            \
    if ((p)->kind == UTVM_REDUCE_MAX) {                           \
      UTVM_REDUCE_WALK(p, in, out, lowest, UTVM_REDUCE_MAX_OF);   \
    } else {                                                      \
      UTVM_REDUCE_WALK(p, in, out, highest, UTVM_REDUCE_MIN_OF);  \
    }                                                             \
  } while (0)

#endif /* UTVM_KERNELS_REDUCE_H_ */
