/* utvm-build kernels, DSP extension: CONV_2D, int8 (TFLite ConvPerChannel), one group and
 * dilation_w 1; replaces kernels/conv2d_s8.h (same function, same arguments, same results).
 *
 * The generic kernel's structure (below), with the DSP dot products of arm_dsp/dot_s8.h and two
 * changes: requantization by dsp_s8.h's utvm_dsp_rq (one SMLAL and a few simple instructions,
 * each channel's constants derived once for both pixels of a pair), and shallow filters (a
 * whole window of at most UTVM_CONV2D_DSP_GATHER bytes in rows shorter than 16 bytes, e.g. a
 * 10x4x1 or 3x3x3 first layer) gathered into one contiguous buffer per pixel on the stack, so
 * that a window is one long dot product instead of one short call per filter row.
 *
 * Generic description:
 *
 * The taps of one filter row are contiguous in the input and in the weights (NHWC,
 * [OC][KH][KW][C]), so a window is one dot product per filter row (dot_s8.h: every loaded byte
 * feeds two or four multiply-accumulates).
 * - Interior pixels (every tap inside the image) are taken in pairs, in output order across rows
 *   (a 1x1 convolution is a matrix product), two output channels at a time; a last unpaired one
 *   four channels at a time. They start from the folded bias (bias - input_zp * sum of the
 *   channel's weights).
 * - Border pixels (some taps outside) visit only the taps inside, rows [ky0, ky1) and columns
 *   [kx0, kx1), four channels at a time, adding the input offset (-input_zp) to every input value
 *   and starting from the model's own bias (border_bias): the reference's sum itself, so the
 *   skipped taps need no correction.
 */
#ifndef UTVM_KERNELS_CONV2D_S8_H_
#define UTVM_KERNELS_CONV2D_S8_H_

#if !defined(__ARM_FEATURE_DSP) || (__ARM_FEATURE_DSP != 1)
#error "utvm-build: these kernels were generated for a DSP target (--target cortex-m4/m7/m33/m55) but compiled without the DSP extension; use --target generic"
#endif

#include "conv.h"
#include "conv2d_s8_pairs.h"
#include "dot_s8.h"
#include "dsp_s8.h"

/* Largest window (filter_h * filter_w * in_c bytes) gathered into a stack buffer per pixel. */
#define UTVM_CONV2D_DSP_GATHER 48

/* Requantizes acc_a[0..n) into output channels oc..oc+n-1 of pixel ya and, when yb is not NULL,
 * acc_b[0..n) into those of pixel yb (utvm_dsp_rq: TFLite MultiplyByQuantizedMultiplier). */
static UTVM_DSP_INLINE void utvm_conv2d_s8_out(const utvm_conv2d_s8_args* a, int8_t* ya, int8_t* yb, int32_t oc,
                                               int32_t n, const int32_t* acc_a, const int32_t* acc_b) {
  /* locals: for the compiler, the int8 stores could alias the parameters */
  const int32_t zp = a->p->output_offset;
  const int32_t lo = a->p->act_min;
  const int32_t hi = a->p->act_max;
  int32_t j;
  for (j = 0; j < n; ++j) {
    const int32_t c = oc + j;
    utvm_dsp_rq_ch rq;
    utvm_dsp_rq_setup(&rq, a->mult[c], a->shift[c]);
    ya[c] = utvm_dsp_rq_out(&rq, acc_a[j], zp, lo, hi);
    if (yb != NULL) {
      yb[c] = utvm_dsp_rq_out(&rq, acc_b[j], zp, lo, hi);
    }
  }
}

/* Copies the window of an interior pixel (filter_h rows of seg bytes, x_step apart) into buf. */
static void utvm_conv2d_s8_gather(const utvm_conv_geom* g, const int8_t* x, int8_t* buf) {
  const int32_t seg = g->filter_w * g->in_c;
  const int32_t x_step = g->dilation_h * g->in_w * g->in_c;
  int32_t r;
  for (r = 0; r < g->filter_h; ++r) {
    (void)memcpy(&buf[r * seg], &x[r * x_step], (size_t)seg);
  }
}

/* Every output channel of one pixel, four channels at a time (channels left over one at a time,
 * as four copies of one weight row). in_b: the pixel's image; (iy0, ix0): its window's top left
 * tap, possibly outside the image. */
static UTVM_DOT_S8_NOINLINE void utvm_conv2d_s8_one(const utvm_conv2d_s8_args* a, const int8_t* in_b,
                                                    int32_t iy0, int32_t ix0, int8_t* y) {
  const utvm_conv_geom* g = &a->p->g;
  const int32_t seg = g->filter_w * g->in_c;
  const int32_t fsize = g->filter_h * seg;
  int32_t x_step = g->dilation_h * g->in_w * g->in_c;
  const int32_t* bias = a->bias;
  const int8_t* x = in_b; /* first tap inside the image (none: not read) */
  int8_t buf[UTVM_CONV2D_DSP_GATHER];
  int32_t row_n;
  int32_t off = 0;
  int32_t ky0;
  int32_t ky1;
  int32_t kx0;
  int32_t kx1;
  int32_t rows = 0;
  int32_t w_off = 0;
  int32_t oc = 0;
  utvm_conv2d_s8_range(iy0, g->dilation_h, g->filter_h, g->in_h, &ky0, &ky1);
  utvm_conv2d_s8_range(ix0, 1, g->filter_w, g->in_w, &kx0, &kx1);
  row_n = (kx1 - kx0) * g->in_c;
  if ((ky0 != 0) || (ky1 != g->filter_h) || (kx0 != 0) || (kx1 != g->filter_w)) {
    bias = a->border_bias;
    off = -a->p->pad_value;
  }
  if ((kx1 > kx0) && (ky1 > ky0)) {
    rows = ky1 - ky0;
    w_off = (ky0 * seg) + (kx0 * g->in_c);
    x = &in_b[((((iy0 + (ky0 * g->dilation_h)) * g->in_w) + ix0) + kx0) * g->in_c];
  }
  if ((g->filter_h > 1) && (seg < 16) && (fsize <= UTVM_CONV2D_DSP_GATHER)) {
    /* the whole window, the input zero point in place of the taps outside the image (each then
     * cancels its share of the folded bias, conv.h): one dot product of fsize bytes */
    int32_t ky;
    int32_t kx;
    for (ky = 0; ky < g->filter_h; ++ky) {
      const int32_t iy = iy0 + (ky * g->dilation_h);
      for (kx = 0; kx < g->filter_w; ++kx) {
        int8_t* dst = &buf[((ky * g->filter_w) + kx) * g->in_c];
        if (utvm_conv_inside(g, iy, ix0 + kx)) {
          (void)memcpy(dst, &in_b[((iy * g->in_w) + ix0 + kx) * g->in_c], (size_t)g->in_c);
        } else {
          (void)memset(dst, (int)a->p->pad_value, (size_t)g->in_c);
        }
      }
    }
    bias = a->bias;
    off = 0;
    rows = 1;
    w_off = 0;
    x = buf;
    row_n = fsize;
    x_step = 0;
  }
  while (oc < g->out_c) {
    const int8_t* wc = &a->w[(oc * fsize) + w_off];
    int32_t n = 1;
    int32_t ws = 0;
    int32_t acc[4];
    int32_t j;
    int32_t r;
    if ((g->out_c - oc) >= 4) {
      n = 4;
      ws = fsize;
    }
    for (j = 0; j < 4; ++j) {
      acc[j] = bias[oc + utvm_min_i32(j, n - 1)];
    }
    for (r = 0; r < rows; ++r) {
      utvm_dot_s8_4x1(&wc[r * seg], ws, &x[r * x_step], off, row_n, &acc[0], &acc[2]);
    }
    utvm_conv2d_s8_out(a, y, NULL, oc, n, acc, acc);
    oc += n;
  }
}

/* Every output channel of two interior pixels (windows starting at xa and xb), two channels at a
 * time (an odd last channel is computed as a pair with itself and stored once). */
static UTVM_DOT_S8_NOINLINE void utvm_conv2d_s8_two(const utvm_conv2d_s8_args* a, const int8_t* xa,
                                                    int8_t* ya, const int8_t* xb, int8_t* yb) {
  const utvm_conv_geom* g = &a->p->g;
  int32_t seg = g->filter_w * g->in_c;
  const int32_t fsize = g->filter_h * seg;
  int32_t x_step = g->dilation_h * g->in_w * g->in_c;
  int32_t rows = g->filter_h;
  int8_t buf_a[UTVM_CONV2D_DSP_GATHER];
  int8_t buf_b[UTVM_CONV2D_DSP_GATHER];
  int32_t oc;
  if ((rows > 1) && (seg < 16) && (fsize <= UTVM_CONV2D_DSP_GATHER)) {
    utvm_conv2d_s8_gather(g, xa, buf_a);
    utvm_conv2d_s8_gather(g, xb, buf_b);
    xa = buf_a;
    xb = buf_b;
    seg = fsize;
    rows = 1;
    x_step = 0;
  }
  for (oc = 0; oc < g->out_c; oc += 2) {
    const int32_t n = utvm_min_i32(2, g->out_c - oc);
    const int8_t* w0 = &a->w[oc * fsize];
    const int8_t* w1 = &a->w[(oc + n - 1) * fsize];
    int32_t acc_a[2];
    int32_t acc_b[2];
    int32_t r;
    acc_a[0] = a->bias[oc];
    acc_a[1] = a->bias[oc + n - 1];
    acc_b[0] = acc_a[0];
    acc_b[1] = acc_a[1];
    for (r = 0; r < rows; ++r) {
      const int32_t xs = r * x_step;
      utvm_dot_s8_2x2(&w0[r * seg], &w1[r * seg], &xa[xs], &xb[xs], seg, acc_a, acc_b);
    }
    utvm_conv2d_s8_out(a, ya, yb, oc, n, acc_a, acc_b);
  }
}

UTVM_CONV2D_S8_KERNEL(utvm_conv2d_s8, utvm_conv2d_s8_one, utvm_conv2d_s8_two)

#endif /* UTVM_KERNELS_CONV2D_S8_H_ */
