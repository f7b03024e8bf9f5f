/* utvm-build kernels: TRANSPOSE_CONV geometry and integer parameter struct
 * (kernels: transpose_conv_{s8,s16,f32}.h; the float32 struct is in transpose_conv_f32.h).
 *
 * Layouts are TFLite's: input [N][H][W][IC], weights [OC][KH][KW][IC], output [N][OH][OW][OC].
 * Like the reference kernels (internal/reference/transpose_conv.h and
 * internal/reference/integer_ops/transpose_conv.h), every input element is scattered into the
 * output positions it influences; taps falling outside the output are dropped. The quantized
 * kernels accumulate in the scratch buffer (one int32 / int64 per output element).
 */
#ifndef UTVM_KERNELS_TRANSPOSE_CONV_H_
#define UTVM_KERNELS_TRANSPOSE_CONV_H_

#include "common.h"

typedef struct {
  int32_t batches;
  int32_t in_h;
  int32_t in_w;
  int32_t in_c;
  int32_t filter_h;
  int32_t filter_w;
  int32_t out_h;
  int32_t out_w;
  int32_t out_c;
  int32_t stride_h;
  int32_t stride_w;
  int32_t pad_h; /* top padding (ComputePaddingHeightWidth on the output size) */
  int32_t pad_w; /* left padding */
} utvm_tconv_geom;

typedef struct {
  utvm_tconv_geom g;
  int32_t input_offset;  /* -input zero point (int8) */
  int32_t output_offset; /* output zero point (int8) */
  int32_t acc32;         /* 16x8 only: 1 = int32 bias (int32 accumulator and requantization) */
  int32_t act_min;
  int32_t act_max;
} utvm_tconv_q_params;

/* Offset of output element (b, y, x, c). */
static inline int32_t utvm_tconv_out_index(const utvm_tconv_geom* g, int32_t b, int32_t y, int32_t x, int32_t c) {
  return (((((b * g->out_h) + y) * g->out_w) + x) * g->out_c) + c;
}

#endif /* UTVM_KERNELS_TRANSPOSE_CONV_H_ */
