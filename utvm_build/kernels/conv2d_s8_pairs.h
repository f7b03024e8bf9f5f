/* utvm-build kernels: what the int8 CONV_2D of conv2d_s8.h and its DSP override
 * (arm_dsp/conv2d_s8.h) share: the arguments every block needs, the taps inside the image, and the
 * entry point, the walk over the output pixels that pairs the interior ones (UTVM_CONV2D_S8_KERNEL:
 * one instance per file with its own ONE, a pixel with taps outside the image or left unpaired, and
 * TWO, a pair of interior pixels; the macro expands in place, so each file's kernel is the code it
 * was when each wrote the walk out). */
#ifndef UTVM_KERNELS_CONV2D_S8_PAIRS_H_
#define UTVM_KERNELS_CONV2D_S8_PAIRS_H_

#include "conv.h"

/* The arguments every block needs (one per call of the kernel). */
typedef struct {
  const utvm_conv_q_params* p;
  const int8_t* w;
  const int32_t* bias;        /* folded */
  const int32_t* border_bias; /* the model's */
  const int32_t* mult;
  const int32_t* shift;
} utvm_conv2d_s8_args;

/* Taps inside the image along one axis: k in [*k0, *k1) has 0 <= start + k * dilation < size. */
static inline void utvm_conv2d_s8_range(int32_t start, int32_t dilation, int32_t filter, int32_t size,
                                        int32_t* k0, int32_t* k1) {
  int32_t lo = 0;
  int32_t hi = 0;
  if (start < 0) {
    lo = ((-start) + dilation - 1) / dilation;
  }
  if (size > start) {
    hi = ((size - start) + dilation - 1) / dilation;
  }
  lo = utvm_min_i32(lo, filter);
  hi = utvm_max_i32(utvm_min_i32(hi, filter), lo);
  *k0 = lo;
  *k1 = hi;
}

/* The entry point. bias: folded bias (bias - input_zp * sum of all weights of the channel),
 * never NULL. border_bias: the model's bias itself (zeros when the model has none), used for the pixels that
 * have taps outside the image; NULL when no pixel has any.
 * mult/shift: per output channel requantization (TFLite QuantizeMultiplier). */
#define UTVM_CONV2D_S8_KERNEL(NAME, ONE, TWO)                                                                 \
  static void NAME(const utvm_conv_q_params* p, const int8_t* in, const int8_t* w,                            \
                   const int32_t* bias, const int32_t* border_bias, const int32_t* mult,                      \
                   const int32_t* shift, int8_t* out) {                                                       \
    const utvm_conv_geom* g = &p->g;                                                                          \
    /* window rows / columns that stay inside the image: iy0 in [0, last_y], ix0 in [0, last_x] */            \
    const int32_t last_y = g->in_h - 1 - ((g->filter_h - 1) * g->dilation_h);                                 \
    const int32_t last_x = g->in_w - g->filter_w;                                                             \
    /* an interior pixel waiting for its pair: image, window origin, output */                                \
    const int8_t* pend_in = in;                                                                               \
    int32_t pend_iy0 = 0;                                                                                     \
    int32_t pend_ix0 = 0;                                                                                     \
    int8_t* pend_y = out;                                                                                     \
    bool pending = false;                                                                                     \
    utvm_conv2d_s8_args a;                                                                                    \
    int32_t b;                                                                                                \
    int32_t oy;                                                                                               \
    int32_t ox;                                                                                               \
    a.p = p;                                                                                                  \
    a.w = w;                                                                                                  \
    a.bias = bias;                                                                                            \
    a.border_bias = border_bias;                                                                              \
    a.mult = mult;                                                                                            \
    a.shift = shift;                                                                                          \
    for (b = 0; b < g->batches; ++b) {                                                                        \
      const int8_t* in_b = &in[b * g->in_h * g->in_w * g->in_c];                                              \
      for (oy = 0; oy < g->out_h; ++oy) {                                                                     \
        const int32_t iy0 = (oy * g->stride_h) - g->pad_h;                                                    \
        const bool rows_in = (iy0 >= 0) && (iy0 <= last_y);                                                   \
        for (ox = 0; ox < g->out_w; ++ox) {                                                                   \
          const int32_t ix0 = (ox * g->stride_w) - g->pad_w;                                                  \
          int8_t* y = &out[((((b * g->out_h) + oy) * g->out_w) + ox) * g->out_c];                             \
          if (!rows_in || (ix0 < 0) || (ix0 > last_x)) {                                                      \
            ONE(&a, in_b, iy0, ix0, y);                                                                       \
          } else if (pending) {                                                                               \
            TWO(&a, &pend_in[((pend_iy0 * g->in_w) + pend_ix0) * g->in_c], pend_y,                            \
                               &in_b[((iy0 * g->in_w) + ix0) * g->in_c], y);                                  \
            pending = false;                                                                                  \
          } else {                                                                                            \
            pend_in = in_b;                                                                                   \
            pend_iy0 = iy0;                                                                                   \
            pend_ix0 = ix0;                                                                                   \
            pend_y = y;                                                                                       \
            pending = true;                                                                                   \
          }                                                                                                   \
        }                                                                                                     \
      }                                                                                                       \
    }                                                                                                         \
    if (pending) {                                                                                            \
      ONE(&a, pend_in, pend_iy0, pend_ix0, pend_y);                                                           \
    }                                                                                                         \
  }

#endif /* UTVM_KERNELS_CONV2D_S8_PAIRS_H_ */
