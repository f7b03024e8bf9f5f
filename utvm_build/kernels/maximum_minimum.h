/* utvm-build kernels: MAXIMUM, MINIMUM with TFLite broadcasting (maximum_minimum.cc:
 * max = a > b ? a : b, min = a < b ? a : b, on the stored values: quantized inputs share the
 * output's scale and zero point). float32, int8, int16, int32, int64. */
#ifndef UTVM_KERNELS_MAXIMUM_MINIMUM_H_
#define UTVM_KERNELS_MAXIMUM_MINIMUM_H_

#include "ew_walk.h"

static inline void utvm_maximum_minimum_f32(int32_t is_max, const utvm_ew_shape* sh, const float* in1,
                                            const float* in2, float* out) {
  utvm_ew_walk w;
  int32_t i;
  utvm_ew_walk_init(&w);
  for (i = 0; i < sh->size; ++i) {
    const float a = in1[w.o1];
    const float b = in2[w.o2];
    const bool first = (is_max != 0) ? (a > b) : (a < b);
    out[i] = first ? a : b;
    utvm_ew_walk_step(sh, &w);
  }
}

static inline void utvm_maximum_minimum_s8(int32_t is_max, const utvm_ew_shape* sh, const int8_t* in1,
                                           const int8_t* in2, int8_t* out) {
  utvm_ew_walk w;
  int32_t i;
  utvm_ew_walk_init(&w);
  for (i = 0; i < sh->size; ++i) {
    const int8_t a = in1[w.o1];
    const int8_t b = in2[w.o2];
    const bool first = (is_max != 0) ? (a > b) : (a < b);
    out[i] = first ? a : b;
    utvm_ew_walk_step(sh, &w);
  }
}

static inline void utvm_maximum_minimum_s16(int32_t is_max, const utvm_ew_shape* sh, const int16_t* in1,
                                            const int16_t* in2, int16_t* out) {
  utvm_ew_walk w;
  int32_t i;
  utvm_ew_walk_init(&w);
  for (i = 0; i < sh->size; ++i) {
    const int16_t a = in1[w.o1];
    const int16_t b = in2[w.o2];
    const bool first = (is_max != 0) ? (a > b) : (a < b);
    out[i] = first ? a : b;
    utvm_ew_walk_step(sh, &w);
  }
}

static inline void utvm_maximum_minimum_s32(int32_t is_max, const utvm_ew_shape* sh, const int32_t* in1,
                                            const int32_t* in2, int32_t* out) {
  utvm_ew_walk w;
  int32_t i;
  utvm_ew_walk_init(&w);
  for (i = 0; i < sh->size; ++i) {
    const int32_t a = in1[w.o1];
    const int32_t b = in2[w.o2];
    const bool first = (is_max != 0) ? (a > b) : (a < b);
    out[i] = first ? a : b;
    utvm_ew_walk_step(sh, &w);
  }
}

static inline void utvm_maximum_minimum_s64(int32_t is_max, const utvm_ew_shape* sh, const int64_t* in1,
                                            const int64_t* in2, int64_t* out) {
  utvm_ew_walk w;
  int32_t i;
  utvm_ew_walk_init(&w);
  for (i = 0; i < sh->size; ++i) {
    const int64_t a = in1[w.o1];
    const int64_t b = in2[w.o2];
    const bool first = (is_max != 0) ? (a > b) : (a < b);
    out[i] = first ? a : b;
    utvm_ew_walk_step(sh, &w);
  }
}

#endif /* UTVM_KERNELS_MAXIMUM_MINIMUM_H_ */
