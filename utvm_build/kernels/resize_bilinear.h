/* utvm-build kernels: RESIZE_BILINEAR parameter struct (resize_bilinear_<type>.h: the loops).
 * The generator computes, per output row and column, the two source rows/columns and the
 * weights exactly as the reference's ComputeInterpolationValues(Integer) does. */
#ifndef UTVM_KERNELS_RESIZE_BILINEAR_H_
#define UTVM_KERNELS_RESIZE_BILINEAR_H_

#include "common.h"

typedef struct {
  int32_t batch;
  int32_t in_h;
  int32_t in_w;
  int32_t out_h;
  int32_t out_w;
  int32_t depth;
} utvm_resize_bilinear_params;

#endif /* UTVM_KERNELS_RESIZE_BILINEAR_H_ */
