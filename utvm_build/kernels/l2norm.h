/* utvm-build kernels: L2_NORMALIZATION parameters (kernels: l2norm_f32.h, l2norm_s8.h).
 * The input is [outer, depth]: every row of the last dimension is normalized on its own. */
#ifndef UTVM_KERNELS_L2NORM_H_
#define UTVM_KERNELS_L2NORM_H_

#include "common.h"

typedef struct {
  int32_t outer;
  int32_t depth;
  int32_t input_zero_point; /* int8 only */
} utvm_l2norm_params;

/* The walk of L2_NORMALIZATION, every type: per row of depth elements, acc = the sum of SQ(p, x)
 * (from ZERO, type ACC), the row's scale s = SCALE(acc) (type SCALE_T), then out = APPLY(p, x, s)
 * for each element x of the row. */
#define UTVM_L2NORM_WALK(T, ACC, ZERO, SCALE_T, p, in, out, SQ, SCALE, APPLY) \
  do {                                                                      \
    int32_t i_;                                                             \
    int32_t c_;                                                             \
    for (i_ = 0; i_ < (p)->outer; ++i_) {                                   \
      const T* x_ = &(in)[i_ * (p)->depth];                                 \
      ACC acc_ = (ZERO);                                                    \
      SCALE_T s_;                                                           \
      for (c_ = 0; c_ < (p)->depth; ++c_) {                                 \
        acc_ += SQ((p), x_[c_]);                                            \
      }                                                                     \
      s_ = SCALE(acc_);                                                     \
      for (c_ = 0; c_ < (p)->depth; ++c_) {                                 \
        (out)[(i_ * (p)->depth) + c_] = APPLY((p), x_[c_], s_);             \
      }                                                                     \
    }                                                                       \
  } while (0)

#endif /* UTVM_KERNELS_L2NORM_H_ */
