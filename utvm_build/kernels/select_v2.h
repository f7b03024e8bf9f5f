/* utvm-build kernels: SELECT_V2 (reference_ops::Select / BroadcastSelect5DSlow): out = cond ? x : y
 * with the three inputs broadcast to the output. The elements are copied as bytes (elem_size 1, 2
 * or 4: int8, int16, float32). Dims are the output's, padded at the front to UTVM_SEL_MAX_DIMS;
 * strides are element strides, 0 on broadcast dimensions. */
#ifndef UTVM_KERNELS_SELECT_V2_H_
#define UTVM_KERNELS_SELECT_V2_H_

#include "common.h"

#define UTVM_SEL_MAX_DIMS 6

typedef struct {
  int32_t size;
  int32_t elem_size;
  int32_t dims[UTVM_SEL_MAX_DIMS];
  int32_t stride_c[UTVM_SEL_MAX_DIMS];
  int32_t stride_x[UTVM_SEL_MAX_DIMS];
  int32_t stride_y[UTVM_SEL_MAX_DIMS];
} utvm_select_v2_params;

static void utvm_select_v2(const utvm_select_v2_params* p, const uint8_t* cond, const void* x, const void* y,
                           void* out) {
  const uint8_t* xb = (const uint8_t*)x;
  const uint8_t* yb = (const uint8_t*)y;
  uint8_t* ob = (uint8_t*)out;
  int32_t idx[UTVM_SEL_MAX_DIMS] = {0, 0, 0, 0, 0, 0};
  int32_t oc = 0;
  int32_t ox = 0;
  int32_t oy = 0;
  int32_t i;
  int32_t d;
  int32_t k;
  for (i = 0; i < p->size; ++i) {
    const uint8_t* src = (cond[oc] != 0u) ? &xb[ox * p->elem_size] : &yb[oy * p->elem_size];
    for (k = 0; k < p->elem_size; ++k) {
      ob[(i * p->elem_size) + k] = src[k];
    }
    for (d = UTVM_SEL_MAX_DIMS - 1; d >= 0; --d) {
      idx[d] += 1;
      oc += p->stride_c[d];
      ox += p->stride_x[d];
      oy += p->stride_y[d];
      if (idx[d] < p->dims[d]) {
        break;
      }
      oc -= p->stride_c[d] * p->dims[d];
      ox -= p->stride_x[d] * p->dims[d];
      oy -= p->stride_y[d] * p->dims[d];
      idx[d] = 0;
    }
  }
}

#endif /* UTVM_KERNELS_SELECT_V2_H_ */
