/* utvm-build kernels: ARG_MAX / ARG_MIN parameters (kernels: arg_min_max_{f32,s8,s32,u8}.h).
 *
 * TFLite reference_ops::ArgMinMax: the input viewed as [outer, axis_size, inner]; per (outer,
 * inner) the first value is the running best and a later value replaces it only when strictly
 * greater (ARG_MAX) / strictly less (ARG_MIN), so ties keep the lowest index (float: a NaN never
 * replaces, as std::greater / std::less in tflite-runtime 2.14). The index goes to an int32 or an
 * int64 output (the other pointer is NULL). */
#ifndef UTVM_KERNELS_ARG_MIN_MAX_H_
#define UTVM_KERNELS_ARG_MIN_MAX_H_

#include "common.h"

typedef struct {
  int32_t outer;
  int32_t axis_size; /* >= 1 */
  int32_t inner;
  int32_t is_max;
} utvm_arg_params;

static inline void utvm_arg_store(int32_t* out32, int64_t* out64, int32_t k, int32_t index) {
  if (out32 != NULL) {
    out32[k] = index;
  } else {
    out64[k] = (int64_t)index;
  }
}

/* The walk of every ARG_MAX / ARG_MIN kernel, written once for the input type T (the comparisons
 * are C's, the same for every type): per (outer, inner) the index of the first best value. */
#define UTVM_ARG_MIN_MAX(T, p, in, out32, out64)                                        \
  do {                                                                                  \
    int32_t outer_;                                                                     \
    int32_t inner_;                                                                     \
    int32_t i_;                                                                         \
    for (outer_ = 0; outer_ < (p)->outer; ++outer_) {                                   \
      const T* base_ = &(in)[outer_ * (p)->axis_size * (p)->inner];                     \
      for (inner_ = 0; inner_ < (p)->inner; ++inner_) {                                 \
        T best_ = base_[inner_];                                                        \
        int32_t best_index_ = 0;                                                        \
        for (i_ = 1; i_ < (p)->axis_size; ++i_) {                                       \
          const T v_ = base_[(i_ * (p)->inner) + inner_];                               \
          const bool better_ = ((p)->is_max != 0) ? (v_ > best_) : (v_ < best_);        \
          if (better_) {                                                                \
            best_ = v_;                                                                 \
            best_index_ = i_;                                                           \
          }                                                                             \
        }                                                                               \
        utvm_arg_store((out32), (out64), (outer_ * (p)->inner) + inner_, best_index_);  \
      }                                                                                 \
    }                                                                                   \
  } while (0)

#endif /* UTVM_KERNELS_ARG_MIN_MAX_H_ */
