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

#endif /* UTVM_KERNELS_L2NORM_H_ */
