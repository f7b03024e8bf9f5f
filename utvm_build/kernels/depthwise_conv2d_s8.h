/* utvm-build kernels: DEPTHWISE_CONV_2D, int8 (TFLite DepthwiseConvPerChannel).
 *
 * Loop order: output pixel, then blocks of 4 output channels, then the filter taps. In NHWC the
 * 4 channels of a block are contiguous in the [1][KH][KW][OC] filter and, in the input, either
 * contiguous (depth multiplier 1: input channels ic..ic+3) or one shared value (depth multiplier
 * > 1: output channels ic*dm+m..+3 of input channel ic). The taps of a pixel that lie inside the
 * image form a rectangle of the filter (rows [ky0, ky1), columns [kx0, kx1)), which
 * utvm_dw_s8_mac4_contiguous / utvm_dw_s8_mac4_shared accumulate without bounds checks, with the
 * 4 accumulators in registers (the routines a target-specific version would replace). At the
 * borders, every tap outside the image adds w * pad_value (the input zero point), which cancels
 * its share of the folded input offset (see conv.h): utvm_dw_s8_pad4. Channels left over by the
 * blocks, and every channel of a depth multiplier 1 convolution dilated along the width, take the
 * one-channel path, which checks every tap (the reference loop).
 */
#ifndef UTVM_KERNELS_DEPTHWISE_CONV2D_S8_H_
#define UTVM_KERNELS_DEPTHWISE_CONV2D_S8_H_

#include "conv.h"

/* The taps of one pixel inside the image, as filter rows [ky0, ky1) and columns [kx0, kx1). */
typedef struct {
  int32_t ky0;
  int32_t ky1;
  int32_t kx0;
  int32_t kx1;
} utvm_dw_s8_window;

/* Walk over a window: ny rows of nx taps; x_dx / w_dx: input / filter step between the taps of a
 * row; x_skip / w_skip: step from the last tap of a row plus x_dx / w_dx to the next row's first. */
typedef struct {
  int32_t nx;
  int32_t ny;
  int32_t x_dx;
  int32_t x_skip;
  int32_t w_dx;
  int32_t w_skip;
} utvm_dw_s8_walk;

/* acc[i] += sum over the walk of x[i] * w[i]: depth multiplier 1, 4 input channels; x and w at the
 * first tap, channel 0 of the block; x_dx == w_dx (no dilation along the row). */
static void utvm_dw_s8_mac4_contiguous(const utvm_dw_s8_walk* k, const int8_t* x, const int8_t* w,
                                       int32_t acc[4]) {
  const int32_t step = k->w_dx;
  int32_t a0 = acc[0];
  int32_t a1 = acc[1];
  int32_t a2 = acc[2];
  int32_t a3 = acc[3];
  int32_t xi = 0;
  int32_t wi = 0;
  int32_t ky;
  int32_t kx;
  for (ky = k->ny; ky > 0; --ky) {
    for (kx = k->nx; kx > 0; --kx) {
      a0 += (int32_t)x[xi] * (int32_t)w[wi];
      a1 += (int32_t)x[xi + 1] * (int32_t)w[wi + 1];
      a2 += (int32_t)x[xi + 2] * (int32_t)w[wi + 2];
      a3 += (int32_t)x[xi + 3] * (int32_t)w[wi + 3];
      xi += step;
      wi += step;
    }
    xi += k->x_skip;
    wi += k->w_skip;
  }
  acc[0] = a0;
  acc[1] = a1;
  acc[2] = a2;
  acc[3] = a3;
}

/* acc[i] += sum over the walk of x[0] * w[i]: depth multiplier > 1, one input channel. */
static void utvm_dw_s8_mac4_shared(const utvm_dw_s8_walk* k, const int8_t* x, const int8_t* w,
                                   int32_t acc[4]) {
  int32_t a0 = acc[0];
  int32_t a1 = acc[1];
  int32_t a2 = acc[2];
  int32_t a3 = acc[3];
  int32_t xi = 0;
  int32_t wi = 0;
  int32_t ky;
  int32_t kx;
  for (ky = k->ny; ky > 0; --ky) {
    for (kx = k->nx; kx > 0; --kx) {
      const int32_t xv = (int32_t)x[xi];
      a0 += xv * (int32_t)w[wi];
      a1 += xv * (int32_t)w[wi + 1];
      a2 += xv * (int32_t)w[wi + 2];
      a3 += xv * (int32_t)w[wi + 3];
      xi += k->x_dx;
      wi += k->w_dx;
    }
    xi += k->x_skip;
    wi += k->w_skip;
  }
  acc[0] = a0;
  acc[1] = a1;
  acc[2] = a2;
  acc[3] = a3;
}

/* acc[i] += pad * (sum of w[i] over the taps outside the window); w: the filter at channel 0 of
 * the block. In filter order (tap t = ky * filter_w + kx, at w[t * out_c]) the taps outside form
 * runs between the window's rows: before its first row, from the end of one window row to the
 * start of the next, and after its last row (all of them when the window is empty). */
static void utvm_dw_s8_pad4(const utvm_conv_geom* g, const utvm_dw_s8_window* win, const int8_t* w,
                            int32_t pad, int32_t acc[4]) {
  const int32_t oc = g->out_c;
  const int32_t rows = win->ky1 - win->ky0;                   /* > 0 when the window is not empty */
  const int32_t cols = win->kx1 - win->kx0;
  const int32_t between = (g->filter_w - win->kx1) + win->kx0; /* taps between two window rows */
  int32_t runs = 1;
  int32_t n = g->filter_h * g->filter_w; /* empty window: one run over every tap */
  int32_t t = 0;
  int32_t s0 = 0;
  int32_t s1 = 0;
  int32_t s2 = 0;
  int32_t s3 = 0;
  int32_t r;
  if (rows > 0) {
    runs = rows + 1;
    n = (win->ky0 * g->filter_w) + win->kx0;
  }
  for (r = 0; r < runs; ++r) {
    int32_t wi = t * oc;
    int32_t k;
    for (k = n; k > 0; --k) {
      s0 += (int32_t)w[wi];
      s1 += (int32_t)w[wi + 1];
      s2 += (int32_t)w[wi + 2];
      s3 += (int32_t)w[wi + 3];
      wi += oc;
    }
    t += n + cols;
    n = ((r + 2) < runs) ? between : ((g->filter_w - win->kx1) + ((g->filter_h - win->ky1) * g->filter_w));
  }
  acc[0] += s0 * pad;
  acc[1] += s1 * pad;
  acc[2] += s2 * pad;
  acc[3] += s3 * pad;
}

/* out[i] = acc[i] requantized, i < n: utvm_mul_by_quantized_mul(acc, mult, shift) + output offset,
 * clamped. mult is a QuantizeMultiplier result, 0 or in [2^30, 2^31), so the saturating case of the
 * doubling high product (both factors INT32_MIN) cannot occur, and its rounding,
 * trunc((ab + nudge) / 2^31) with nudge 2^30 for ab >= 0 and 1 - 2^30 for ab < 0, equals
 * floor((ab + 2^30) / 2^31) for both signs (ab < 0: trunc(v / 2^31) = floor((v + 2^31 - 1) / 2^31)
 * with v = ab + 1 - 2^30). That floor is bits 31..62 of ab + 2^30 (|ab| < 2^62), taken with an
 * unsigned shift. The rounding division by 2^right is utvm_rounding_divide_by_pot's, with the
 * arithmetic shift done on uint32_t as ~(~high >> right) for negative high. */
static void utvm_dw_s8_store(const utvm_conv_q_params* p, const int32_t* mult, const int32_t* shift,
                             const int32_t* acc, int32_t n, int8_t* out) {
  const int32_t offset = p->output_offset;
  const int32_t act_min = p->act_min;
  const int32_t act_max = p->act_max;
  int32_t i;
  for (i = 0; i < n; ++i) {
    const int32_t left = (shift[i] > 0) ? shift[i] : 0;
    const int32_t right = (shift[i] > 0) ? 0 : -shift[i];
    const int64_t ab = ((int64_t)utvm_shl_wrap_i32(acc[i], left) * (int64_t)mult[i]) + INT64_C(1073741824);
    const uint32_t high = (uint32_t)((uint64_t)ab >> 31u);
    const uint32_t negative = high >> 31u;
    const uint32_t sign = 0u - negative; /* all ones when high < 0 */
    const uint32_t mask = ((uint32_t)1 << (uint32_t)right) - 1u;
    const uint32_t threshold = (mask >> 1u) + negative;
    const uint32_t floor_bits = ((high ^ sign) >> (uint32_t)right) ^ sign; /* floor(high / 2^right) */
    const int32_t q = (int32_t)floor_bits;
    const int32_t v = q + (((high & mask) > threshold) ? 1 : 0) + offset;
    out[i] = (int8_t)utvm_clamp_i32(v, act_min, act_max);
  }
}

/* bias: folded bias (bias - input_zp * sum of the channel's weights), never NULL. */
static void utvm_depthwise_conv2d_s8(const utvm_conv_q_params* p, const int8_t* in, const int8_t* w,
                                     const int32_t* bias, const int32_t* mult, const int32_t* shift,
                                     int8_t* out) {
  const utvm_conv_geom* g = &p->g;
  const int32_t dm = g->depth_multiplier;
  const bool contiguous = (dm == 1) && (g->dilation_w == 1); /* blocks of 4 input channels */
  const int32_t in_row = g->in_w * g->in_c;                   /* input elements per image row */
  const int8_t* in_b = in;
  int8_t* out_px = out;
  utvm_dw_s8_window win;
  utvm_dw_s8_walk walk;
  int32_t b;
  int32_t oy;
  int32_t ox;
  walk.x_dx = g->dilation_w * g->in_c;
  walk.w_dx = g->out_c;
  for (b = 0; b < g->batches; ++b) {
    for (oy = 0; oy < g->out_h; ++oy) {
      const int32_t iy0 = (oy * g->stride_h) - g->pad_h;
      utvm_conv_taps(iy0, g->dilation_h, g->filter_h, g->in_h, &win.ky0, &win.ky1);
      walk.ny = win.ky1 - win.ky0;
      for (ox = 0; ox < g->out_w; ++ox) {
        const int32_t ix0 = (ox * g->stride_w) - g->pad_w;
        int32_t x0;
        int32_t w0;
        bool border;
        int32_t oc = 0;
        int32_t ic = 0;
        int32_t m = 0;
        utvm_conv_taps(ix0, g->dilation_w, g->filter_w, g->in_w, &win.kx0, &win.kx1);
        walk.nx = win.kx1 - win.kx0;
        walk.x_skip = (g->dilation_h * in_row) - (walk.nx * walk.x_dx);
        walk.w_skip = (g->filter_w - walk.nx) * g->out_c;
        /* input (channel 0) and filter offsets of tap (ky0, kx0); x0 is used only when the window
         * is not empty */
        x0 = ((iy0 + (win.ky0 * g->dilation_h)) * in_row) + ((ix0 + (win.kx0 * g->dilation_w)) * g->in_c);
        w0 = ((win.ky0 * g->filter_w) + win.kx0) * g->out_c;
        border = (p->pad_value != 0) && ((walk.ny < g->filter_h) || (walk.nx < g->filter_w));
        while (oc < g->out_c) {
          int32_t acc[4];
          int32_t n = 1;
          if (contiguous ? ((oc + 4) <= g->out_c) : ((m + 4) <= dm)) {
            n = 4;
            acc[0] = bias[oc];
            acc[1] = bias[oc + 1];
            acc[2] = bias[oc + 2];
            acc[3] = bias[oc + 3];
            if ((walk.nx > 0) && (walk.ny > 0)) {
              if (contiguous) {
                utvm_dw_s8_mac4_contiguous(&walk, &in_b[x0 + ic], &w[w0 + oc], acc);
              } else {
                utvm_dw_s8_mac4_shared(&walk, &in_b[x0 + ic], &w[w0 + oc], acc);
              }
            }
            if (border) {
              utvm_dw_s8_pad4(g, &win, &w[oc], p->pad_value, acc);
            }
            utvm_dw_s8_store(p, &mult[oc], &shift[oc], acc, 4, &out_px[oc]);
          } else {
            acc[0] = utvm_conv_dw_s8_one(p, in_b, w, iy0, ix0, ic, oc, bias[oc]);
            utvm_dw_s8_store(p, &mult[oc], &shift[oc], acc, 1, &out_px[oc]);
          }
          oc += n;
          if (contiguous) {
            ic += n;
          } else {
            m += n;
            if (m == dm) {
              m = 0;
              ++ic;
            }
          }
        }
        out_px = &out_px[g->out_c];
      }
    }
    in_b = &in_b[g->in_h * in_row];
  }
}

#endif /* UTVM_KERNELS_DEPTHWISE_CONV2D_S8_H_ */
