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

/* The filter taps inside the image along one axis: k in [*k0, *k1) has 0 <= start + k * dilation <
 * size (an empty range when none has). */
static inline void utvm_conv_taps(int32_t start, int32_t dilation, int32_t filter, int32_t size, int32_t* k0,
                                  int32_t* k1) {
  int32_t lo = 0;
  int32_t hi = filter;
  while ((lo < filter) && ((start + (lo * dilation)) < 0)) {
    ++lo;
  }
  while ((hi > lo) && ((start + ((hi - 1) * dilation)) >= size)) {
    --hi;
  }
  *k0 = lo;
  *k1 = hi;
}

/* int8 depthwise (depthwise_conv2d_s8.h and its DSP version): the accumulator of output channel oc
 * (input channel ic) at one pixel, every tap checked; a tap outside the image reads p->pad_value
 * (the input zero point: it cancels that tap's share of the folded input offset). in_b: the
 * batch's input; (iy0, ix0): input position of tap (0, 0). */
static inline int32_t utvm_conv_dw_s8_one(const utvm_conv_q_params* p, const int8_t* in_b, const int8_t* w,
                                          int32_t iy0, int32_t ix0, int32_t ic, int32_t oc, int32_t bias) {
  const utvm_conv_geom* g = &p->g;
  int32_t acc = bias;
  int32_t ky;
  int32_t kx;
  for (ky = 0; ky < g->filter_h; ++ky) {
    const int32_t iy = iy0 + (ky * g->dilation_h);
    for (kx = 0; kx < g->filter_w; ++kx) {
      const int32_t ix = ix0 + (kx * g->dilation_w);
      const int32_t wv = w[(((ky * g->filter_w) + kx) * g->out_c) + oc];
      const int32_t xv = utvm_conv_inside(g, iy, ix) ? (int32_t)in_b[(((iy * g->in_w) + ix) * g->in_c) + ic]
                                                     : p->pad_value;
      acc += wv * xv;
    }
  }
  return acc;
}

/* The walk of the generic CONV_2D kernels (conv2d_s16.h, conv2d_f32.h, conv2d_s8_generic.h),
 * written once: for each output (batch, y, x, channel) in output order, ACC acc = INIT(bias, oc);
 * for each tap (ky, kx) the tap inside the image adds acc = MAC(acc, w, x) over the group's input
 * channels in ascending order (the reference's order), a tap outside it gives acc = SKIP(p, acc, wp)
 * (int8: the folded input offset of the skipped tap); then out = FINISH(p, bias, mult, shift, oc,
 * acc). The element operations are the type's static inline functions; the macro expands in place,
 * so each kernel costs what its hand-written loops cost. */
#define UTVM_CONV_WALK(p, in, w, bias, mult, shift, out, T, WT, ACC, INIT, MAC, SKIP, FINISH)                  \
  do {                                                                                                      \
    const utvm_conv_geom* g_ = &(p)->g;                                                                     \
    const int32_t fpg_ = g_->out_c / (g_->in_c / g_->filter_in_c);                                          \
    int32_t b_;                                                                                             \
    int32_t oy_;                                                                                            \
    int32_t ox_;                                                                                            \
    int32_t oc_;                                                                                            \
    int32_t ky_;                                                                                            \
    int32_t kx_;                                                                                            \
    int32_t c_;                                                                                             \
    for (b_ = 0; b_ < g_->batches; ++b_) {                                                                  \
      for (oy_ = 0; oy_ < g_->out_h; ++oy_) {                                                               \
        const int32_t iy0_ = (oy_ * g_->stride_h) - g_->pad_h;                                              \
        for (ox_ = 0; ox_ < g_->out_w; ++ox_) {                                                             \
          const int32_t ix0_ = (ox_ * g_->stride_w) - g_->pad_w;                                            \
          for (oc_ = 0; oc_ < g_->out_c; ++oc_) {                                                           \
            const int32_t c0_ = (oc_ / fpg_) * g_->filter_in_c;                                             \
            ACC acc_ = INIT((bias), oc_);                                                                   \
            for (ky_ = 0; ky_ < g_->filter_h; ++ky_) {                                                      \
              const int32_t iy_ = iy0_ + (ky_ * g_->dilation_h);                                            \
              for (kx_ = 0; kx_ < g_->filter_w; ++kx_) {                                                    \
                const int32_t ix_ = ix0_ + (kx_ * g_->dilation_w);                                          \
                const WT* wp_ = &(w)[((((oc_ * g_->filter_h) + ky_) * g_->filter_w) + kx_) * g_->filter_in_c]; \
                if (utvm_conv_inside(g_, iy_, ix_)) {                                                       \
                  const T* xp_ = &(in)[(((((b_ * g_->in_h) + iy_) * g_->in_w) + ix_) * g_->in_c) + c0_];    \
                  for (c_ = 0; c_ < g_->filter_in_c; ++c_) {                                                \
                    acc_ = MAC(acc_, wp_[c_], xp_[c_]);                                                     \
                  }                                                                                         \
                } else {                                                                                    \
                  acc_ = SKIP((p), acc_, wp_);                                                              \
                }                                                                                           \
              }                                                                                             \
            }                                                                                               \
            (out)[(((((b_ * g_->out_h) + oy_) * g_->out_w) + ox_) * g_->out_c) + oc_] =                     \
                FINISH((p), (bias), (mult), (shift), oc_, acc_);                                            \
          }                                                                                                 \
        }                                                                                                   \
      }                                                                                                     \
    }                                                                                                       \
  } while (0)

/* An integer CONV_2D entry point made of the walk above: conv2d_s8_generic.h (int8, ACC int32_t)
 * and conv2d_s16.h (16x8, ACC int64_t) are each one instance with their element operations, so the
 * two share their signature as well as their loops. in, out: T; w: int8; bias: ACC per output
 * channel; mult / shift: per output channel requantization (TFLite QuantizeMultiplier). The kernel
 * table reads an instance's parameter types through this definition (kernel_table.py). */
#define UTVM_CONV_Q_KERNEL(NAME, T, ACC, INIT, MAC, SKIP, FINISH)                                           \
  static void NAME(const utvm_conv_q_params* p, const T* in, const int8_t* w, const ACC* bias, const int32_t* mult, \
                   const int32_t* shift, T* out) {                                                           \
    UTVM_CONV_WALK(p, in, w, bias, mult, shift, out, T, int8_t, ACC, INIT, MAC, SKIP, FINISH);              \
  }

/* The walk of the generic DEPTHWISE_CONV_2D kernels (depthwise_conv2d_s16.h, _f32.h): for each
 * output (batch, y, x, input channel, multiplier) in output order, acc = MAC(acc, w, x) over the
 * taps inside the image (ky, kx ascending; ACC starts at ZERO), then out = FINISH(p, bias, mult,
 * shift, oc, acc). */
#define UTVM_DW_WALK(p, in, w, bias, mult, shift, out, ACC, ZERO, MAC, FINISH)                               \
  do {                                                                                                      \
    const utvm_conv_geom* g_ = &(p)->g;                                                                     \
    int32_t b_;                                                                                             \
    int32_t oy_;                                                                                            \
    int32_t ox_;                                                                                            \
    int32_t ic_;                                                                                            \
    int32_t m_;                                                                                             \
    int32_t ky_;                                                                                            \
    int32_t kx_;                                                                                            \
    for (b_ = 0; b_ < g_->batches; ++b_) {                                                                  \
      for (oy_ = 0; oy_ < g_->out_h; ++oy_) {                                                               \
        const int32_t iy0_ = (oy_ * g_->stride_h) - g_->pad_h;                                              \
        for (ox_ = 0; ox_ < g_->out_w; ++ox_) {                                                             \
          const int32_t ix0_ = (ox_ * g_->stride_w) - g_->pad_w;                                            \
          for (ic_ = 0; ic_ < g_->in_c; ++ic_) {                                                            \
            for (m_ = 0; m_ < g_->depth_multiplier; ++m_) {                                                 \
              const int32_t oc_ = (ic_ * g_->depth_multiplier) + m_;                                        \
              ACC acc_ = (ZERO);                                                                            \
              for (ky_ = 0; ky_ < g_->filter_h; ++ky_) {                                                    \
                const int32_t iy_ = iy0_ + (ky_ * g_->dilation_h);                                          \
                for (kx_ = 0; kx_ < g_->filter_w; ++kx_) {                                                  \
                  const int32_t ix_ = ix0_ + (kx_ * g_->dilation_w);                                        \
                  if (utvm_conv_inside(g_, iy_, ix_)) {                                                     \
                    acc_ = MAC(acc_, (w)[(((ky_ * g_->filter_w) + kx_) * g_->out_c) + oc_],                \
                               (in)[(((((b_ * g_->in_h) + iy_) * g_->in_w) + ix_) * g_->in_c) + ic_]);      \
                  }                                                                                         \
                }                                                                                           \
              }                                                                                             \
              (out)[(((((b_ * g_->out_h) + oy_) * g_->out_w) + ox_) * g_->out_c) + oc_] =                   \
                  FINISH((p), (bias), (mult), (shift), oc_, acc_);                                          \
            }                                                                                               \
          }                                                                                                 \
        }                                                                                                   \
      }                                                                                                     \
    }                                                                                                       \
  } while (0)

/* float32 element operations shared by conv2d_f32.h and depthwise_conv2d_f32.h: total = 0,
 * total += x * w, a skipped tap adds nothing, then total + bias (bias may be NULL) clamped to the
 * activation range. */
static inline float utvm_conv_f32_zero(const float* bias, int32_t oc) {
  (void)bias;
  (void)oc;
  return 0.0f;
}

static inline float utvm_conv_f32_mac(float total, float w, float x) {
  return total + (x * w);
}

static inline float utvm_conv_f32_no_skip(const utvm_conv_f32_params* p, float total, const float* wp) {
  (void)p;
  (void)wp;
  return total;
}

static inline float utvm_conv_f32_finish(const utvm_conv_f32_params* p, const float* bias, const int32_t* mult,
                                         const int32_t* shift, int32_t oc, float total) {
  (void)mult;
  (void)shift;
  return utvm_clamp_f32(total + ((bias != NULL) ? bias[oc] : 0.0f), p->act_min, p->act_max);
}

/* int16 (16x8) element operations of the generic CONV_2D and DEPTHWISE_CONV_2D kernels (the
 * bias is added by the type's FINISH). */
static inline int64_t utvm_conv_s16_zero(const int64_t* bias, int32_t oc) {
  (void)bias;
  (void)oc;
  return 0;
}

static inline int64_t utvm_conv_s16_mac(int64_t acc, int8_t w, int16_t x) {
  const int32_t prod = (int32_t)w * (int32_t)x;
  return acc + (int64_t)prod;
}

static inline int64_t utvm_conv_s16_no_skip(const utvm_conv_q_params* p, int64_t acc, const int8_t* wp) {
  (void)p;
  (void)wp;
  return acc;
}

/* The int16 (16x8) output of CONV_2D and DEPTHWISE_CONV_2D (conv2d_s16.h, depthwise_conv2d_s16.h and
 * their Helium versions): bias (int64, may be NULL; an int32 bias is widened at code generation)
 * plus the sum, requantized with channel oc's multiplier and shift, clamped. p->acc32 (CONV_2D with
 * an int32 bias): the reference accumulates in int32 (wraps: the int64 sum truncated) and uses the
 * int32 MultiplyByQuantizedMultiplier (double rounding) instead of the int64 one. */
static inline int16_t utvm_conv_s16_out(const utvm_conv_q_params* p, const int64_t* bias, const int32_t* mult,
                                        const int32_t* shift, int32_t oc, int64_t acc) {
  int64_t total = acc;
  int32_t r;
  if (bias != NULL) {
    total += bias[oc];
  }
  if (p->acc32 != 0) {
    r = utvm_mul_by_quantized_mul((int32_t)(uint32_t)total, mult[oc], shift[oc]);
  } else {
    r = utvm_mul_by_quantized_mul64(total, mult[oc], shift[oc]);
  }
  return (int16_t)utvm_clamp_i32(r, p->act_min, p->act_max);
}

#endif /* UTVM_KERNELS_CONV_H_ */
