/* utvm-build kernels: AVERAGE_POOL_2D / MAX_POOL_2D parameter structs
 * (kernels: pooling_{avg,max}_{s8,s16,f32}.h).
 *
 * Layout NHWC. Each window is clamped to the image as in TFLite's reference kernels
 * (internal/reference/pooling.h, internal/reference/integer_ops/pooling.h): taps in the padding
 * are skipped, the average divides by the number of taps inside the image.
 */
#ifndef UTVM_KERNELS_POOLING_H_
#define UTVM_KERNELS_POOLING_H_

#include "common.h"

typedef struct {
  int32_t batches;
  int32_t in_h;
  int32_t in_w;
  int32_t channels;
  int32_t out_h;
  int32_t out_w;
  int32_t stride_h;
  int32_t stride_w;
  int32_t filter_h;
  int32_t filter_w;
  int32_t pad_h;
  int32_t pad_w;
  int32_t act_min;
  int32_t act_max;
} utvm_pool_q_params;

typedef struct {
  int32_t batches;
  int32_t in_h;
  int32_t in_w;
  int32_t channels;
  int32_t out_h;
  int32_t out_w;
  int32_t stride_h;
  int32_t stride_w;
  int32_t filter_h;
  int32_t filter_w;
  int32_t pad_h;
  int32_t pad_w;
  float act_min;
  float act_max;
} utvm_pool_f32_params;

/* The window of output (out_y, out_x) clamped to the image: filter rows [*fy0, *fy1), columns
 * [*fx0, *fx1), relative to the input origin (*iy, *ix). */
#define UTVM_POOL_WINDOW(p, out_y, out_x, iy, ix, fy0, fy1, fx0, fx1)      \
  do {                                                                   \
    (ix) = (out_x) * (p)->stride_w - (p)->pad_w;                         \
    (iy) = (out_y) * (p)->stride_h - (p)->pad_h;                         \
    (fx0) = utvm_max_i32(0, -(ix));                                      \
    (fx1) = utvm_min_i32((p)->filter_w, (p)->in_w - (ix));               \
    (fy0) = utvm_max_i32(0, -(iy));                                      \
    (fy1) = utvm_min_i32((p)->filter_h, (p)->in_h - (iy));               \
  } while (0)

#endif /* UTVM_KERNELS_POOLING_H_ */
