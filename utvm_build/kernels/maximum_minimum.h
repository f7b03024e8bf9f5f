/* utvm-build kernels: MAXIMUM, MINIMUM with TFLite broadcasting (maximum_minimum.cc:
 * max = a > b ? a : b, min = a < b ? a : b, on the stored values: quantized inputs share the
 * output's scale and zero point). float32, int8, int16, int32, int64. */
#ifndef UTVM_KERNELS_MAXIMUM_MINIMUM_H_
#define UTVM_KERNELS_MAXIMUM_MINIMUM_H_

#include "ew_walk.h"

/* The element operation of every type: the first input where it wins (is_max: a > b, else a < b),
 * else the second; a and b are the two input elements (array reads, evaluated without side effects).
 * int8, int16 and int32 share one inline function (the inputs widened to int32_t, the pick narrowed
 * back: it is one of the inputs, so it fits); float32 and int64 keep their own. */
#define UTVM_MAX_MIN_PICK(is_max, a, b) (((((is_max) != 0) ? ((a) > (b)) : ((a) < (b)))) ? (a) : (b))

static inline float utvm_maximum_minimum_f32_one(int32_t is_max, float a, float b) {
  return UTVM_MAX_MIN_PICK(is_max, a, b);
}

static inline int32_t utvm_maximum_minimum_int_one(int32_t is_max, int32_t a, int32_t b) {
  return UTVM_MAX_MIN_PICK(is_max, a, b);
}

static inline int64_t utvm_maximum_minimum_s64_one(int32_t is_max, int64_t a, int64_t b) {
  return UTVM_MAX_MIN_PICK(is_max, a, b);
}

static inline void utvm_maximum_minimum_f32(int32_t is_max, const utvm_ew_shape* sh, const float* in1,
                                            const float* in2, float* out) {
  UTVM_EW_EACH(sh, out, utvm_maximum_minimum_f32_one(is_max, in1[UTVM_EW_I1], in2[UTVM_EW_I2]));
}

static inline void utvm_maximum_minimum_s8(int32_t is_max, const utvm_ew_shape* sh, const int8_t* in1,
                                           const int8_t* in2, int8_t* out) {
  UTVM_EW_EACH(sh, out, (int8_t)utvm_maximum_minimum_int_one(is_max, in1[UTVM_EW_I1], in2[UTVM_EW_I2]));
}

static inline void utvm_maximum_minimum_s16(int32_t is_max, const utvm_ew_shape* sh, const int16_t* in1,
                                            const int16_t* in2, int16_t* out) {
  UTVM_EW_EACH(sh, out, (int16_t)utvm_maximum_minimum_int_one(is_max, in1[UTVM_EW_I1], in2[UTVM_EW_I2]));
}

static inline void utvm_maximum_minimum_s32(int32_t is_max, const utvm_ew_shape* sh, const int32_t* in1,
                                            const int32_t* in2, int32_t* out) {
  UTVM_EW_EACH(sh, out, (int32_t)utvm_maximum_minimum_int_one(is_max, in1[UTVM_EW_I1], in2[UTVM_EW_I2]));
}

static inline void utvm_maximum_minimum_s64(int32_t is_max, const utvm_ew_shape* sh, const int64_t* in1,
                                            const int64_t* in2, int64_t* out) {
  UTVM_EW_EACH(sh, out, utvm_maximum_minimum_s64_one(is_max, in1[UTVM_EW_I1], in2[UTVM_EW_I2]));
}

#endif /* UTVM_KERNELS_MAXIMUM_MINIMUM_H_ */
