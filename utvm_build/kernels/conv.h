/* utvm-build kernels: CONV_2D and DEPTHWISE_CONV_2D parameter structs
 * (kernels: conv2d_{s8,s16,f32}.h, depthwise_conv2d_{s8,s16,f32}.h).
 *
 * Layouts are TFLite's: input [N][H][W][C], output [N][OH][OW][OC],
 * conv filter [OC][KH][KW][filter_in_c] (groups = in_c / filter_in_c),
 * depthwise filter [1][KH][KW][OC] with OC = in_c * depth_multiplier.
 * Taps outside the input (SAME padding) are skipped, as in the reference kernels.
 *
 * int8: the generator folds -input_zero_point * sum(weights) into the bias. That sum includes the
 * taps that fall outside the image at the borders, which the reference skips; the kernels undo
 * them by adding w * pad_value (pad_value = input zero point) for every skipped tap, so the result
 * equals the reference exactly at every output position. (conv2d_s8.h instead computes its border
 * pixels as the reference does, from the model's own bias and the input offset.)
 */
#ifndef UTVM_KERNELS_CONV_H_
#define UTVM_KERNELS_CONV_H_

#include "common.h"

typedef struct {
  int32_t batches;
  int32_t in_h;
  int32_t in_w;
  int32_t in_c;
  int32_t filter_h;
  int32_t filter_w;
  int32_t filter_in_c;      /* conv: in_c / groups; depthwise: unused (1) */
  int32_t depth_multiplier; /* depthwise: out_c / in_c; conv: unused (1) */
  int32_t out_h;
  int32_t out_w;
  int32_t out_c;
  int32_t stride_h;
  int32_t stride_w;
  int32_t dilation_h;
  int32_t dilation_w;
  int32_t pad_h;            /* top padding (TFLite padding_values.height) */
  int32_t pad_w;            /* left padding */
} utvm_conv_geom;

typedef struct {
  utvm_conv_geom g;
  int32_t pad_value;     /* int8: input zero point (see above); int16: 0 */
  int32_t output_offset; /* output zero point */
  int32_t acc32;         /* int16 only: 1 = int32 bias model (int32 accumulator and requantization) */
  int32_t act_min;
  int32_t act_max;
} utvm_conv_q_params;

typedef struct {
  utvm_conv_geom g;
  float act_min;
  float act_max;
} utvm_conv_f32_params;

/* True when input row y / column x lies inside the image. */
static inline bool utvm_conv_inside(const utvm_conv_geom* g, int32_t y, int32_t x) {
  return (y >= 0) && (y < g->in_h) && (x >= 0) && (x < g->in_w);
}

#endif /* UTVM_KERNELS_CONV_H_ */
