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

/* The loop of every binary elementwise kernel (add_s16, add_f32, mul_*): out[i] = (T)ONE(p, a, b)
 * with a and b the input elements that output element i reads. ONE is the type's element
 * operation (a static inline function below or in the type's file); the walk is written once here and expanded in place, so
 * each kernel compiles to the loops it had when it spelled them out. Same-shape operands take the
 * flat loop; otherwise rows of the innermost dimension, the odometer stepping between rows. */
#define UTVM_EW_BINARY(T, ONE, p, sh, in1, in2, out)                                    \
  do {                                                                                  \
    int32_t i_;                                                                         \
    if ((sh)->broadcast == 0) {                                                         \
      for (i_ = 0; i_ < (sh)->size; ++i_) {                                             \
        (out)[i_] = (T)ONE((p), (in1)[i_], (in2)[i_]);                                  \
      }                                                                                 \
    } else {                                                                            \
      const int32_t n_ = (sh)->dims[UTVM_EW_MAX_DIMS - 1];                              \
      const int32_t s1_ = (sh)->stride1[UTVM_EW_MAX_DIMS - 1];                          \
      const int32_t s2_ = (sh)->stride2[UTVM_EW_MAX_DIMS - 1];                          \
      const int32_t rows_ = utvm_ew_rows(sh);                                           \
      int32_t r_;                                                                       \
      T* dst_ = (out);                                                                  \
      utvm_ew_iter it_;                                                                 \
      utvm_ew_iter_init(&it_);                                                          \
      for (r_ = 0; r_ < rows_; ++r_) {                                                  \
        for (i_ = 0; i_ < n_; ++i_) {                                                   \
          *dst_ = (T)ONE((p), (in1)[it_.o1 + (i_ * s1_)], (in2)[it_.o2 + (i_ * s2_)]);  \
          ++dst_;                                                                       \
        }                                                                               \
        utvm_ew_iter_next((sh), &it_);                                                  \
      }                                                                                 \
    }                                                                                   \
  } while (0)

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

/* MUL's element operation, int8 and int16 alike (narrowed by the caller):
 * output_offset + MultiplyByQuantizedMultiplier((in1 + off1) * (in2 + off2)), clamped. */
static inline int32_t utvm_mul_q_one(const utvm_mul_q_params* p, int32_t a, int32_t b) {
  const int32_t prod = (p->input1_offset + a) * (p->input2_offset + b);
  const int32_t raw = p->output_offset + utvm_mul_by_quantized_mul(prod, p->output_multiplier, p->output_shift);
  return utvm_clamp_i32(raw, p->act_min, p->act_max);
}

/* MultiplyByQuantizedMultiplierSmallerThanOneExp (shift <= 0). */
static inline int32_t utvm_mul_by_quantized_mul_lt1(int32_t x, int32_t multiplier, int32_t shift) {
  return utvm_rounding_divide_by_pot(utvm_sat_rounding_doubling_high_mul(x, multiplier), -shift);
}

#endif /* UTVM_KERNELS_ELEMENTWISE_H_ */
