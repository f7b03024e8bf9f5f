/* utvm-build kernels: CUMSUM parameter struct and walk (cumsum_<type>.h: the element operations). */
#ifndef UTVM_KERNELS_CUMSUM_H_
#define UTVM_KERNELS_CUMSUM_H_

#include "common.h"

typedef struct {
  int32_t outer;       /* product of the dimensions before the axis */
  int32_t axis;        /* extent of the axis */
  int32_t inner;       /* product of the dimensions after the axis */
  int32_t exclusive;
  int32_t reverse;
} utvm_cumsum_params;

/* The walk of every CUMSUM kernel, written once: along the axis (reversed with p->reverse), per
 * element x = LOAD(q, in[at]); acc = ADD(acc, x) from `start`; out[at] = OUT(q, acc) (with
 * p->exclusive, OUT of the sum before adding x). q is the type's extra parameters (or p); LOAD, ADD
 * and OUT are its static inline element operations. */
#define UTVM_CUMSUM(p, q, in, out, ACC, start, LOAD, ADD, OUT)                                                     \
  do {                                                                                                             \
    int32_t o_;                                                                                                    \
    int32_t n_;                                                                                                    \
    int32_t a_;                                                                                                    \
    for (o_ = 0; o_ < (p)->outer; ++o_) {                                                                          \
      for (n_ = 0; n_ < (p)->inner; ++n_) {                                                                        \
        ACC acc_ = (start);                                                                                        \
        for (a_ = 0; a_ < (p)->axis; ++a_) {                                                                       \
          const int32_t k_ = ((p)->reverse != 0) ? (((p)->axis - 1) - a_) : a_;                                    \
          const size_t at_ = ((((size_t)o_ * (size_t)(p)->axis) + (size_t)k_) * (size_t)(p)->inner) + (size_t)n_;  \
          const ACC x_ = LOAD((q), (in)[at_]);                                                                     \
          ACC y_;                                                                                                  \
          if ((p)->exclusive != 0) {                                                                               \
            y_ = acc_;                                                                                             \
            acc_ = ADD(acc_, x_);                                                                                  \
          } else {                                                                                                 \
            acc_ = ADD(acc_, x_);                                                                                  \
            y_ = acc_;                                                                                             \
          }                                                                                                        \
          (out)[at_] = OUT((q), y_);                                                                               \
        }                                                                                                          \
      }                                                                                                            \
    }                                                                                                              \
  } while (0)

/* The element operations of the plain CUMSUM kernels: the value itself (LOAD and OUT), a + b
 * (int32 / int64 wrap in two's complement where the reference's signed overflow is undefined). */
#define UTVM_CUMSUM_VALUE(p, x) (x)

static inline float utvm_cumsum_f32_add(float a, float b) {
  return a + b;
}

static inline int32_t utvm_cumsum_s32_add(int32_t a, int32_t b) {
  const uint32_t s = (uint32_t)a + (uint32_t)b;
  return (int32_t)s;
}

static inline int64_t utvm_cumsum_s64_add(int64_t a, int64_t b) {
  const uint64_t s = (uint64_t)a + (uint64_t)b;
  return (int64_t)s;
}

#endif /* UTVM_KERNELS_CUMSUM_H_ */
