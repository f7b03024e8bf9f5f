/* utvm-build kernels: MAXIMUM, MINIMUM with TFLite broadcasting (maximum_minimum.cc:
 * max = a > b ? a : b, min = a < b ? a : b, on the stored values: quantized inputs share the
 * output's scale and zero point). float32, int8, int16, int32, int64. */
#ifndef UTVM_KERNELS_MAXIMUM_MINIMUM_H_
#define UTVM_KERNELS_MAXIMUM_MINIMUM_H_

#include "ew_walk.h"

static inline void utvm_maximum_minimum_f32_one(int32_t is_max, const float* in1, const float* in2, float* out,
                                                int32_t o1, int32_t o2, int32_t i) {
  const float a = in1[o1];
  const float b = in2[o2];
  const bool first = (is_max != 0) ? (a > b) : (a < b);
  out[i] = first ? a : b;
}

static inline void utvm_maximum_minimum_f32(int32_t is_max, const utvm_ew_shape* sh, const float* in1,
                                            const float* in2, float* out) {
  UTVM_EW_EACH(sh, utvm_maximum_minimum_f32_one, is_max, in1, in2, out);
}

static inline void utvm_maximum_minimum_s8_one(int32_t is_max, const int8_t* in1, const int8_t* in2,
                                               int8_t* out, int32_t o1, int32_t o2, int32_t i) {
  const int8_t a = in1[o1];
  const int8_t b = in2[o2];
  const bool first = (is_max != 0) ? (a > b) : (a < b);
  out[i] = first ? a : b;
}

static inline void utvm_maximum_minimum_s8(int32_t is_max, const utvm_ew_shape* sh, const int8_t* in1,
                                           const int8_t* in2, int8_t* out) {
  UTVM_EW_EACH(sh, utvm_maximum_minimum_s8_one, is_max, in1, in2, out);
}

static inline void utvm_maximum_minimum_s16_one(int32_t is_max, const int16_t* in1, const int16_t* in2,
                                                int16_t* out, int32_t o1, int32_t o2, int32_t i) {
  const int16_t a = in1[o1];
  const int16_t b = in2[o2];
  const bool first = (is_max != 0) ? (a > b) : (a < b);
  out[i] = first ? a : b;
}

static inline void utvm_maximum_minimum_s16(int32_t is_max, const utvm_ew_shape* sh, const int16_t* in1,
                                            const int16_t* in2, int16_t* out) {
  UTVM_EW_EACH(sh, utvm_maximum_minimum_s16_one, is_max, in1, in2, out);
}

static inline void utvm_maximum_minimum_s32_one(int32_t is_max, const int32_t* in1, const int32_t* in2,
                                                int32_t* out, int32_t o1, int32_t o2, int32_t i) {
  const int32_t a = in1[o1];
  const int32_t b = in2[o2];
  const bool first = (is_max != 0) ? (a > b) : (a < b);
  out[i] = first ? a : b;
}

static inline void utvm_maximum_minimum_s32(int32_t is_max, const utvm_ew_shape* sh, const int32_t* in1,
                                            const int32_t* in2, int32_t* out) {
  UTVM_EW_EACH(sh, utvm_maximum_minimum_s32_one, is_max, in1, in2, out);
}

static inline void utvm_maximum_minimum_s64_one(int32_t is_max, const int64_t* in1, const int64_t* in2,
                                                int64_t* out, int32_t o1, int32_t o2, int32_t i) {
  const int64_t a = in1[o1];
  const int64_t b = in2[o2];
  const bool first = (is_max != 0) ? (a > b) : (a < b);
  out[i] = first ? a : b;
}

static inline void utvm_maximum_minimum_s64(int32_t is_max, const utvm_ew_shape* sh, const int64_t* in1,
                                            const int64_t* in2, int64_t* out) {
  UTVM_EW_EACH(sh, utvm_maximum_minimum_s64_one, is_max, in1, in2, out);
}

#endif /* UTVM_KERNELS_MAXIMUM_MINIMUM_H_ */
