/* utvm-build kernels: EQUAL, NOT_EQUAL, GREATER, GREATER_EQUAL, LESS, LESS_EQUAL with TFLite
 * broadcasting; bool outputs (reference_ops::ComparisonImpl / BroadcastComparison4DSlowImpl).
 * float32, int32, int64, bool (EQUAL / NOT_EQUAL) compare the values; int8 compares after the
 * reference's rescale (ComparisonWithScaling: (x - zp) << left_shift, then
 * MultiplyByQuantizedMultiplierSmallerThanOneExp per input). */
#ifndef UTVM_KERNELS_COMPARE_H_
#define UTVM_KERNELS_COMPARE_H_

#include "ew_walk.h"

#define UTVM_CMP_EQ 0
#define UTVM_CMP_NE 1
#define UTVM_CMP_GT 2
#define UTVM_CMP_GE 3
#define UTVM_CMP_LT 4
#define UTVM_CMP_LE 5

typedef struct {
  int32_t op; /* UTVM_CMP_* */
  int32_t left_shift;
  int32_t input1_offset;
  int32_t input1_multiplier;
  int32_t input1_shift;
  int32_t input2_offset;
  int32_t input2_multiplier;
  int32_t input2_shift;
} utvm_compare_q_params;

/* The six orderings from the two facts the comparison needs: a < b and a == b. */
static inline bool utvm_cmp_result(int32_t op, bool lt, bool eq) {
  bool r;
  switch (op) {
    case UTVM_CMP_EQ:
      r = eq;
      break;
    case UTVM_CMP_NE:
      r = !eq;
      break;
    case UTVM_CMP_GT:
      r = !(lt || eq);
      break;
    case UTVM_CMP_GE:
      r = !lt;
      break;
    case UTVM_CMP_LT:
      r = lt;
      break;
    default:
      r = lt || eq;
      break;
  }
  return r;
}

/* float: NaN compares unequal and unordered, as the C++ operators do. */
static inline bool utvm_cmp_f32(int32_t op, float a, float b) {
  bool r;
  switch (op) {
    case UTVM_CMP_EQ:
      r = (a == b);
      break;
    case UTVM_CMP_NE:
      r = (a != b);
      break;
    case UTVM_CMP_GT:
      r = (a > b);
      break;
    case UTVM_CMP_GE:
      r = (a >= b);
      break;
    case UTVM_CMP_LT:
      r = (a < b);
      break;
    default:
      r = (a <= b);
      break;
  }
  return r;
}

static inline uint8_t utvm_compare_f32_one(int32_t op, float a, float b) {
  return utvm_cmp_f32(op, a, b);
}

static inline void utvm_compare_f32(int32_t op, const utvm_ew_shape* sh, const float* in1, const float* in2,
                                    uint8_t* out) {
  UTVM_EW_EACH(sh, out, utvm_compare_f32_one(op, in1[UTVM_EW_I1], in2[UTVM_EW_I2]));
}

static inline uint8_t utvm_compare_s32_one(int32_t op, int32_t a, int32_t b) {
  return utvm_cmp_result(op, a < b, a == b);
}

static inline void utvm_compare_s32(int32_t op, const utvm_ew_shape* sh, const int32_t* in1, const int32_t* in2,
                                    uint8_t* out) {
  UTVM_EW_EACH(sh, out, utvm_compare_s32_one(op, in1[UTVM_EW_I1], in2[UTVM_EW_I2]));
}

static inline uint8_t utvm_compare_s64_one(int32_t op, int64_t a, int64_t b) {
  return utvm_cmp_result(op, a < b, a == b);
}

static inline void utvm_compare_s64(int32_t op, const utvm_ew_shape* sh, const int64_t* in1, const int64_t* in2,
                                    uint8_t* out) {
  UTVM_EW_EACH(sh, out, utvm_compare_s64_one(op, in1[UTVM_EW_I1], in2[UTVM_EW_I2]));
}

static inline uint8_t utvm_compare_b8_one(int32_t op, uint8_t x1, uint8_t x2) {
  const bool a = (x1 != 0U);
  const bool b = (x2 != 0U);
  return utvm_cmp_result(op, (!a) && b, a == b);
}

static inline void utvm_compare_b8(int32_t op, const utvm_ew_shape* sh, const uint8_t* in1, const uint8_t* in2,
                                   uint8_t* out) {
  UTVM_EW_EACH(sh, out, utvm_compare_b8_one(op, in1[UTVM_EW_I1], in2[UTVM_EW_I2]));
}

static inline int32_t utvm_cmp_scale(int32_t x, int32_t offset, int32_t left_shift, int32_t mult, int32_t shift) {
  const int32_t shifted = utvm_shl_wrap_i32(offset + x, left_shift);
  return utvm_rounding_divide_by_pot(utvm_sat_rounding_doubling_high_mul(shifted, mult), -shift);
}

static inline uint8_t utvm_compare_s8_one(const utvm_compare_q_params* p, int8_t x1, int8_t x2) {
  const int32_t a = utvm_cmp_scale(x1, p->input1_offset, p->left_shift, p->input1_multiplier,
                                   p->input1_shift);
  const int32_t b = utvm_cmp_scale(x2, p->input2_offset, p->left_shift, p->input2_multiplier,
                                   p->input2_shift);
  return utvm_cmp_result(p->op, a < b, a == b);
}

static inline void utvm_compare_s8(const utvm_compare_q_params* p, const utvm_ew_shape* sh, const int8_t* in1,
                                   const int8_t* in2, uint8_t* out) {
  UTVM_EW_EACH(sh, out, utvm_compare_s8_one(p, in1[UTVM_EW_I1], in2[UTVM_EW_I2]));
}

#endif /* UTVM_KERNELS_COMPARE_H_ */
