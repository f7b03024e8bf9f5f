/* utvm-build kernels: CUMSUM parameter struct (cumsum_<type>.h hold the loops). */
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

#endif /* UTVM_KERNELS_CUMSUM_H_ */
