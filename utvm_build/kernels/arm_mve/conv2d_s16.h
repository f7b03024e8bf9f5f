/* utvm-build kernels, Helium (MVE): CONV_2D 16x8 (int16 activations, int8 weights, int64 bias);
 * replaces kernels/conv2d_s16.h (same function, same arguments, same results).
 *
 * Per output pixel, four output channels at a time (a last block of fewer than 4 repeats its last
 * channel, not stored), weights [OC][KH][KW][IC] as the model has them:
 * - one group, dilation_w 1, windows of at most 504 elements: the window as one run, the input
 *   pixel itself for 1x1 filters without padding, else gathered on the stack (im2col, zeros for
 *   the taps outside the image: zero points are 0, so they add nothing, as the skipped taps of
 *   the reference); per block one mve_s16.h utvm_mve_dot4_s16_i32 (int32 sums, exact) and one
 *   vector requantization (utvm_mve_s16_out4) when the layer's shifts and biases allow it;
 * - other layers (groups, dilation_w, larger windows): the window walked as runs contiguous in
 *   the input and the weights (per filter row the taps inside the image, one run with dilation_w 1
 *   and one group, else one per tap), int64 sums (utvm_mve_dot4_s16; groups: one channel at a
 *   time), requantized one by one (conv.h utvm_conv_s16_out: the int64
 *   MultiplyByQuantizedMultiplier, or the int32 one for an int32 bias).
 *
 * Generic description: CONV_2D, int16 activations with int8 weights (16x8; TFLite
 * ConvPerChannel with AccumScalar int64_t or int32_t). Zero points of input and output are 0.
 */
#ifndef UTVM_KERNELS_CONV2D_S16_H_
#define UTVM_KERNELS_CONV2D_S16_H_

#if !defined(__ARM_FEATURE_MVE) || ((__ARM_FEATURE_MVE & 1) == 0)
#error "utvm-build: these kernels were generated for a Helium target (--target cortex-m55/m85/m52) but compiled without MVE; use --target cortex-m33 or generic"
#endif

#include "conv.h"
#include "mve_s16.h"

/* Window elements gathered on the stack for one pixel (im2col): windows up to this size whose
 * filter rows are short take one contiguous run (1 KB of stack). */
#define UTVM_CONV2D_S16_COL 504

/* The outputs of one pixel from its window as one run of n <= 504 elements (col: the input pixel
 * itself for a 1x1 filter, else the gathered window with zeros for the taps outside the image),
 * four channels at a time: int32 sums (exact, see mve_s16.h), requantized one by one. */
static UTVM_MVE_HOT void utvm_conv2d_s16_col(const utvm_conv_q_params* p, bool vec_rq, const int16_t* col,
                                             int32_t n, const int8_t* w, const int64_t* bias, const int32_t* mult,
                                             const int32_t* shift, int16_t* y) {
  const int32_t out_c = p->g.out_c;
  int32_t oc;
  for (oc = 0; oc < out_c; oc += 4) {
    const int8_t* const w0 = &w[oc * n];
    const int8_t* const w1 = &w[utvm_min_i32(oc + 1, out_c - 1) * n];
    const int8_t* const w2 = &w[utvm_min_i32(oc + 2, out_c - 1) * n];
    const int8_t* const w3 = &w[utvm_min_i32(oc + 3, out_c - 1) * n];
    const int32x4_t s = utvm_mve_dot4_s16_i32(col, w0, w1, w2, w3, n);
    int32_t k;
    if (vec_rq) {
      utvm_mve_s16_out4(s, p->acc32 != 0, bias, mult, shift, 1, oc, utvm_min_i32(4, out_c - oc), p->act_min,
                        p->act_max, &y[oc]);
    } else {
      int32_t s4[4];
      vst1q_s32(s4, s);
      for (k = 0; (k < 4) && ((oc + k) < out_c); ++k) {
        y[oc + k] = utvm_conv_s16_out(p, bias, mult, shift, oc + k, s4[k]);
      }
    }
  }
}

/* One pixel's window into col (taps ky0..ky1 x kx0..kx1 inside the image, the rest 0); iy0, ix0:
 * the top left tap; img: the batch's image. */
static void utvm_conv2d_s16_gather(const utvm_conv_geom* g, const int16_t* img, int32_t iy0, int32_t ix0,
                                   const int32_t* taps, int16_t* col) {
  const int32_t row = g->filter_w * g->in_c;
  const int32_t left = taps[2] * g->in_c;
  const int32_t len = (taps[3] - taps[2]) * g->in_c;
  int32_t ky;
  for (ky = 0; ky < g->filter_h; ++ky) {
    int8_t* const dst = (int8_t*)&col[ky * row];
    if ((ky < taps[0]) || (ky >= taps[1]) || (len == 0)) {
      utvm_mve_fill(dst, 0, row * 2);
    } else {
      const int32_t iy = iy0 + (ky * g->dilation_h);
      utvm_mve_fill(dst, 0, left * 2);
      utvm_mve_copy(&dst[left * 2], (const int8_t*)&img[((iy * g->in_w) + ix0 + taps[2]) * g->in_c], len * 2);
      utvm_mve_fill(&dst[(left + len) * 2], 0, (row - left - len) * 2);
    }
  }
}

/* One pixel of any layer: its window as runs of the image (see above); taps: ky0, ky1, kx0, kx1. */
static UTVM_MVE_HOT void utvm_conv2d_s16_runs(const utvm_conv_q_params* p, const int16_t* img, int32_t iy0,
                                              int32_t ix0, const int32_t* taps, const int8_t* w,
                                              const int64_t* bias, const int32_t* mult, const int32_t* shift,
                                              int16_t* y) {
  const utvm_conv_geom* g = &p->g;
  const int32_t fic = g->filter_in_c;
  const int32_t wstride = g->filter_h * g->filter_w * fic; /* one output channel's weights */
  const bool one_group = fic == g->in_c;
  const int32_t per_group = g->out_c / (g->in_c / fic);
  const int32_t block = one_group ? 4 : 1;
  const bool merged = one_group && (g->dilation_w == 1); /* a filter row's taps are one run */
  int32_t oc;
  for (oc = 0; oc < g->out_c; oc += block) {
    const int32_t last = one_group ? utvm_min_i32(oc + 3, g->out_c - 1) : oc;
    const int8_t* const w0 = &w[oc * wstride];
    const int8_t* const w1 = &w[utvm_min_i32(oc + 1, last) * wstride];
    const int8_t* const w2 = &w[utvm_min_i32(oc + 2, last) * wstride];
    const int8_t* const w3 = &w[last * wstride];
    const int32_t c0 = (oc / per_group) * fic; /* the group's first input channel */
    int64_t acc[4] = {0, 0, 0, 0};
    int32_t ky;
    int32_t kx;
    int32_t k;
    for (ky = taps[0]; ky < taps[1]; ++ky) {
      const int16_t* const row = &img[((iy0 + (ky * g->dilation_h)) * g->in_w) * g->in_c];
      if (merged) { /* the taps kx0..kx1 - 1: one run (none: no pointer formed) */
        const int32_t wo = ((ky * g->filter_w) + taps[2]) * fic;
        if (taps[3] > taps[2]) {
          utvm_mve_dot4_s16(&row[(ix0 + taps[2]) * g->in_c], &w0[wo], &w1[wo], &w2[wo], &w3[wo],
                            (taps[3] - taps[2]) * fic, acc);
        }
        continue;
      }
      for (kx = taps[2]; kx < taps[3]; ++kx) {
        const int32_t wo = ((ky * g->filter_w) + kx) * fic;
        const int16_t* const xp = &row[((ix0 + (kx * g->dilation_w)) * g->in_c) + c0];
        if (one_group) {
          utvm_mve_dot4_s16(xp, &w0[wo], &w1[wo], &w2[wo], &w3[wo], fic, acc);
        } else {
          acc[0] = utvm_mve_dot_s16(xp, &w0[wo], fic, acc[0]);
        }
      }
    }
    for (k = 0; (k < block) && ((oc + k) < g->out_c); ++k) {
      y[oc + k] = utvm_conv_s16_out(p, bias, mult, shift, oc + k, acc[k]);
    }
  }
}

/* bias: int64 (an int32 bias is widened at code generation), may be NULL. */
static void utvm_conv2d_s16(const utvm_conv_q_params* p, const int16_t* in, const int8_t* w, const int64_t* bias,
                            const int32_t* mult, const int32_t* shift, int16_t* out) {
  const utvm_conv_geom* g = &p->g;
  const int32_t n = g->filter_h * g->filter_w * g->in_c;
  const bool one_run = (g->filter_in_c == g->in_c) && (g->dilation_w == 1) && (n <= UTVM_CONV2D_S16_COL);
  const bool in_place = one_run && (g->filter_h == 1) && (g->filter_w == 1) && (g->pad_h == 0) && (g->pad_w == 0);
  const bool vec_rq = one_run && utvm_mve_s16_vec_rq(p->acc32 != 0, bias, shift, g->out_c, n);
  int16_t col[UTVM_CONV2D_S16_COL];
  int32_t taps[4]; /* the filter taps inside the image: rows [0], [1]), columns [2], [3]) */
  int32_t b;
  int32_t oy;
  int32_t ox;
  for (b = 0; b < g->batches; ++b) {
    const int16_t* const img = &in[b * g->in_h * g->in_w * g->in_c];
    for (oy = 0; oy < g->out_h; ++oy) {
      const int32_t iy0 = (oy * g->stride_h) - g->pad_h;
      utvm_conv_taps(iy0, g->dilation_h, g->filter_h, g->in_h, &taps[0], &taps[1]);
      for (ox = 0; ox < g->out_w; ++ox) {
        const int32_t ix0 = (ox * g->stride_w) - g->pad_w;
        int16_t* const y = &out[(((b * g->out_h) + oy) * g->out_w + ox) * g->out_c];
        utvm_conv_taps(ix0, g->dilation_w, g->filter_w, g->in_w, &taps[2], &taps[3]);
        if (in_place) {
          utvm_conv2d_s16_col(p, vec_rq, &img[((iy0 * g->in_w) + ix0) * g->in_c], n, w, bias, mult, shift, y);
        } else if (one_run) {
          utvm_conv2d_s16_gather(g, img, iy0, ix0, taps, col);
          utvm_conv2d_s16_col(p, vec_rq, col, n, w, bias, mult, shift, y);
        } else {
          utvm_conv2d_s16_runs(p, img, iy0, ix0, taps, w, bias, mult, shift, y);
        }
      }
    }
  }
}

#endif /* UTVM_KERNELS_CONV2D_S16_H_ */
