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

/* The scatter of every TRANSPOSE_CONV kernel, written once, in the reference's order: acc[] = 0;
 * for each input element x = LOAD(p, in[b, iy, ix, ic]) and each tap (fy, fx) landing inside the
 * output, for every output channel acc[b, oy, ox, oc] = MAC(acc[..], x, w[oc, fy, fx, ic]).
 * LOAD and MAC are the type's static inline element operations (the input offset, the
 * accumulator's width); the macro expands in place, at no run-time cost. */
#define UTVM_TCONV_SCATTER(p, g, in, w, acc, X, ZERO, LOAD, MAC)                                                       \
  do {                                                                                                                 \
    const int32_t n_out_ = (g)->batches * (g)->out_h * (g)->out_w * (g)->out_c;                                        \
    int32_t i_;                                                                                                        \
    int32_t b_;                                                                                                        \
    int32_t iy_;                                                                                                       \
    int32_t ix_;                                                                                                       \
    int32_t ic_;                                                                                                       \
    int32_t fy_;                                                                                                       \
    int32_t fx_;                                                                                                       \
    int32_t oc_;                                                                                                       \
    for (i_ = 0; i_ < n_out_; ++i_) {                                                                                  \
      (acc)[i_] = (ZERO);                                                                                              \
    }                                                                                                                  \
    for (b_ = 0; b_ < (g)->batches; ++b_) {                                                                            \
      for (iy_ = 0; iy_ < (g)->in_h; ++iy_) {                                                                          \
        for (ix_ = 0; ix_ < (g)->in_w; ++ix_) {                                                                        \
          for (ic_ = 0; ic_ < (g)->in_c; ++ic_) {                                                                      \
            const int32_t ox0_ = (ix_ * (g)->stride_w) - (g)->pad_w;                                                   \
            const int32_t oy0_ = (iy_ * (g)->stride_h) - (g)->pad_h;                                                   \
            const X xv_ = LOAD((p), (in)[(((((b_ * (g)->in_h) + iy_) * (g)->in_w) + ix_) * (g)->in_c) + ic_]);         \
            for (fy_ = 0; fy_ < (g)->filter_h; ++fy_) {                                                                \
              const int32_t oy_ = oy0_ + fy_;                                                                          \
              if ((oy_ < 0) || (oy_ >= (g)->out_h)) {                                                                  \
                continue;                                                                                              \
              }                                                                                                        \
              for (fx_ = 0; fx_ < (g)->filter_w; ++fx_) {                                                              \
                const int32_t ox_ = ox0_ + fx_;                                                                        \
                if ((ox_ < 0) || (ox_ >= (g)->out_w)) {                                                                \
                  continue;                                                                                            \
                }                                                                                                      \
                for (oc_ = 0; oc_ < (g)->out_c; ++oc_) {                                                               \
                  const int32_t at_ = utvm_tconv_out_index((g), b_, oy_, ox_, oc_);                                    \
                  (acc)[at_] = MAC((acc)[at_], xv_,                                                                    \
                                   (w)[(((((oc_ * (g)->filter_h) + fy_) * (g)->filter_w) + fx_) * (g)->in_c) + ic_]);  \
                }                                                                                                      \
              }                                                                                                        \
            }                                                                                                          \
          }                                                                                                            \
        }                                                                                                              \
      }                                                                                                                \
    }                                                                                                                  \
  } while (0)

/* The integer kernels' requantization of the sums, written once: per output element, ACC a =
 * acc[i] (+ bias[channel]), out[i] = (T)clamp(RQ(p, a, multiplier[channel], shift[channel])). */
#define UTVM_TCONV_REQUANTIZE(p, g, acc, bias, multiplier, shift, out, T, ACC, RQ)                            \
  do {                                                                                                        \
    const int32_t n_out_ = (g)->batches * (g)->out_h * (g)->out_w * (g)->out_c;                               \
    int32_t i_;                                                                                               \
    for (i_ = 0; i_ < n_out_; ++i_) {                                                                         \
      const int32_t c_ = i_ % (g)->out_c;                                                                     \
      ACC a_ = (acc)[i_];                                                                                     \
      if ((bias) != NULL) {                                                                                   \
        a_ += (bias)[c_];                                                                                     \
      }                                                                                                       \
      (out)[i_] = (T)utvm_clamp_i32(RQ((p), a_, (multiplier)[c_], (shift)[c_]), (p)->act_min, (p)->act_max);  \
    }                                                                                                         \
  } while (0)

#endif /* UTVM_KERNELS_TRANSPOSE_CONV_H_ */
