/* utvm-build kernels: the row walk of the broadcasting kernels that take a whole row of the
 * innermost dimension at a time (arm_dsp/add_s8_lut.h, arm_mve/add_s8_mve.h, arm_mve/mul_s8_mve.h),
 * over a utvm_ew_shape (elementwise.h). Its own header: the generic kernels do not use it. */
#ifndef UTVM_KERNELS_EW_ROWS_H_
#define UTVM_KERNELS_EW_ROWS_H_

#include "elementwise.h"

/* For each row of the innermost dimension ROW(ctx, a, s1, b, s2, y, n), a / b the row's first elements of
 * in1 / in2, s1 / s2 their strides along the row (1, or 0 for an input repeated along it), y the
 * row's n outputs; the odometer steps between rows. */
#define UTVM_EW_ROWS(sh, in1, in2, out, ROW, ctx)                                                         \
  do {                                                                                                    \
    const int32_t n_ = (sh)->dims[UTVM_EW_MAX_DIMS - 1];                                                  \
    const int32_t rows_ = utvm_ew_rows(sh);                                                               \
    utvm_ew_iter it_;                                                                                     \
    int32_t r_;                                                                                           \
    utvm_ew_iter_init(&it_);                                                                              \
    for (r_ = 0; r_ < rows_; ++r_) {                                                                      \
      ROW((ctx), &(in1)[it_.o1], (sh)->stride1[UTVM_EW_MAX_DIMS - 1], &(in2)[it_.o2],                     \
          (sh)->stride2[UTVM_EW_MAX_DIMS - 1], &(out)[r_ * n_], n_);                                       \
      utvm_ew_iter_next((sh), &it_);                                                                      \
    }                                                                                                     \
  } while (0)

#endif /* UTVM_KERNELS_EW_ROWS_H_ */
