/* utvm-build kernels: ADD / SUB / MUL shared definitions
 * (kernels: add_{s8,s16,s16_pot,f32}.h, mul_{s8,s16,f32}.h).
 *
 * Broadcasting follows TFLite (NdArrayDescsForElementwiseBroadcast): shapes are right-aligned,
 * a dimension of extent 1 is repeated. The generator collapses runs of dimensions with the same
 * broadcast pattern and pads to UTVM_EW_MAX_DIMS, so one generic loop serves every rank. Strides
 * are element strides of each input, 0 on a broadcast dimension. Same-shape operands take a flat
 * loop (broadcast == 0).
 */
#ifndef UTVM_KERNELS_ELEMENTWISE_H_
#define UTVM_KERNELS_ELEMENTWISE_H_

#include "common.h"

#define UTVM_EW_MAX_DIMS 6

typedef struct {
  int32_t size;       /* output elements */
  int32_t broadcast;  /* 0: both inputs have `size` elements in output order */
  int32_t dims[UTVM_EW_MAX_DIMS];    /* output extents, outermost first */
  int32_t stride1[UTVM_EW_MAX_DIMS]; /* input1 element strides (0: broadcast) */
  int32_t stride2[UTVM_EW_MAX_DIMS]; /* input2 element strides (0: broadcast) */
} utvm_ew_shape;

/* Odometer over the outer UTVM_EW_MAX_DIMS - 1 dimensions: o1/o2 are the input offsets of the
 * first element of the current innermost row. */
typedef struct {
  int32_t idx[UTVM_EW_MAX_DIMS];
  int32_t o1;
  int32_t o2;
} utvm_ew_iter;

static inline void utvm_ew_iter_init(utvm_ew_iter* it) {
  int32_t d;
  for (d = 0; d < UTVM_EW_MAX_DIMS; ++d) {
    it->idx[d] = 0;
  }
  it->o1 = 0;
  it->o2 = 0;
}

static inline void utvm_ew_iter_next(const utvm_ew_shape* sh, utvm_ew_iter* it) {
  int32_t d;
  for (d = UTVM_EW_MAX_DIMS - 2; d >= 0; --d) {
    it->o1 += sh->stride1[d];
    it->o2 += sh->stride2[d];
    it->idx[d] += 1;
    if (it->idx[d] < sh->dims[d]) {
      break;
    }
    it->idx[d] = 0;
    it->o1 -= sh->stride1[d] * sh->dims[d];
    it->o2 -= sh->stride2[d] * sh->dims[d];
  }
}

/* Rows of the innermost dimension in a broadcast walk. */
static inline int32_t utvm_ew_rows(const utvm_ew_shape* sh) {
  const int32_t n = sh->dims[UTVM_EW_MAX_DIMS - 1];
  return (n > 0) ? (sh->size / n) : 0;
}

/* ADD / SUB, int8 and int16 general-scale path (TFLite reference AddElementwise /
 * BroadcastAdd4DSlow; SUB negates input2_multiplier as sub.cc does). */
typedef struct {
  int32_t left_shift;  /* 20 for int8, 15 for int16 */
  int32_t input1_offset;
  int32_t input1_multiplier;
  int32_t input1_shift;
  int32_t input2_offset;
  int32_t input2_multiplier;
  int32_t input2_shift;
  int32_t output_offset;
  int32_t output_multiplier;
  int32_t output_shift;
  int32_t act_min;
  int32_t act_max;
} utvm_add_q_params;

/* MUL int8/int16 (reference_integer_ops::MulElementwise). */
typedef struct {
  int32_t input1_offset;
  int32_t input2_offset;
  int32_t output_offset;
  int32_t output_multiplier;
  int32_t output_shift;
  int32_t act_min;
  int32_t act_max;
} utvm_mul_q_params;

/* MultiplyByQuantizedMultiplierSmallerThanOneExp (shift <= 0). */
static inline int32_t utvm_mul_by_quantized_mul_lt1(int32_t x, int32_t multiplier, int32_t shift) {
  return utvm_rounding_divide_by_pot(utvm_sat_rounding_doubling_high_mul(x, multiplier), -shift);
}

#endif /* UTVM_KERNELS_ELEMENTWISE_H_ */
