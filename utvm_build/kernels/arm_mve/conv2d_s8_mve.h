/* utvm-build kernels, Helium (MVE): CONV_2D int8 (TFLite ConvPerChannel), one group, any filter,
 * stride, dilation and padding. A kernel only the MVE targets have: the generator calls it instead
 * of utvm_conv2d_s8 / utvm_conv2d_s8_q15 when the target's kernel table provides it
 * (ops/conv_mve.py), with the weights re-laid out for it at compile time.
 *
 * One output pixel at a time, four output channels at a time: per 16 window bytes one input
 * vector and the four channels' weight vectors (one pointer, 64 bytes per step), four VMLADAVA
 * (64 int8 multiply-accumulates in 9 instructions). The window is the input pixel itself for a
 * 1x1 filter (no copy), else it is gathered into scratch (im2col, 16-byte vector copies) with the
 * input zero point for the taps outside the image: with the input offset folded into the bias
 * (bias - zp * sum of the channel's weights, at compile time) those taps add exactly 0, as the
 * reference skips them. The four sums go into one vector, the requantization is vectorised
 * (mve_s8.h utvm_mve_rq) and four bytes are stored at once (predicated for the last block).
 *
 * Data the generator prepares (ops/conv_mve.py):
 * - w: per block of 4 output channels, per 16 window bytes, 16 bytes of each channel (the window
 *   zero-padded to depth16, a last block of fewer than 4 channels zero-padded);
 * - rq: per block of 4 channels 12 int32: the folded bias, the multiplier and the shift (TFLite
 *   QuantizeMultiplier) of each channel (zeros for the padding channels).
 * Scratch (kernel_table.py rule): depth bytes (the gathered window), none for direct 1x1.
 */
#ifndef UTVM_KERNELS_ARM_MVE_CONV2D_S8_MVE_H_
#define UTVM_KERNELS_ARM_MVE_CONV2D_S8_MVE_H_

#if !defined(__ARM_FEATURE_MVE) || ((__ARM_FEATURE_MVE & 1) == 0)
#error "utvm-build: these kernels were generated for a Helium target (--target cortex-m55/m85/m52) but compiled without MVE; use --target cortex-m33 or generic"
#endif

#include "conv.h"
#include "mve_s8.h"

typedef struct {
  utvm_conv_geom g;
  int32_t input_zp;      /* input zero point: the value of taps outside the image */
  int32_t output_offset; /* output zero point */
  int32_t act_min;
  int32_t act_max;
  int32_t depth;   /* filter_h * filter_w * in_c */
  int32_t depth16; /* depth rounded up to a multiple of 16 */
} utvm_conv2d_mve_params;

/* Every output channel of the pixel whose window (depth bytes) is at x, into y. */
static UTVM_MVE_HOT void utvm_conv2d_mve_pixel(const utvm_conv2d_mve_params* p, const int8_t* x, const int8_t* w,
                                               const int32_t* rq, int8_t* y) {
  const int32_t out_c = p->g.out_c;
  const int32_t depth = p->depth;
  const int32_t zp = p->output_offset;
  const int32_t lo = p->act_min;
  const int32_t hi = p->act_max;
  const int8_t* pw = w;
  const int32_t* pr = rq;
  int32_t c;
  for (c = 0; c < out_c; c += 4) {
    int32_t a0 = 0;
    int32_t a1 = 0;
    int32_t a2 = 0;
    int32_t a3 = 0;
    const int8_t* px = x;
    int32_t n = depth;
    while (n > 16) {
      const int8x16_t xv = vldrbq_s8(px);
      a0 = vmladavaq_s8(a0, xv, vldrbq_s8(pw));
      a1 = vmladavaq_s8(a1, xv, vldrbq_s8(&pw[16]));
      a2 = vmladavaq_s8(a2, xv, vldrbq_s8(&pw[32]));
      a3 = vmladavaq_s8(a3, xv, vldrbq_s8(&pw[48]));
      px = &px[16];
      pw = &pw[64];
      n -= 16;
    }
    {
      /* the last 1..16 bytes: the window predicated (no read past it), the weights zero-padded */
      const int8x16_t xv = vldrbq_z_s8(px, vctp8q((uint32_t)n));
      a0 = vmladavaq_s8(a0, xv, vldrbq_s8(pw));
      a1 = vmladavaq_s8(a1, xv, vldrbq_s8(&pw[16]));
      a2 = vmladavaq_s8(a2, xv, vldrbq_s8(&pw[32]));
      a3 = vmladavaq_s8(a3, xv, vldrbq_s8(&pw[48]));
      pw = &pw[64];
    }
    {
      int32x4_t acc = vdupq_n_s32(a0);
      acc = vsetq_lane_s32(a1, acc, 1);
      acc = vsetq_lane_s32(a2, acc, 2);
      acc = vsetq_lane_s32(a3, acc, 3);
      acc = vaddq_s32(acc, vldrwq_s32(pr));
      acc = utvm_mve_rq(acc, vldrwq_s32(&pr[4]), vldrwq_s32(&pr[8]), zp, lo, hi);
      vstrbq_p_s32(&y[c], acc, vctp32q((uint32_t)(out_c - c)));
      pr = &pr[12];
    }
  }
}

/* The window of the output pixel whose top left tap is (iy0, ix0) in image in_b, into col. */
static UTVM_MVE_NOINLINE void utvm_conv2d_mve_window(const utvm_conv2d_mve_params* p, const int8_t* in_b, int32_t iy0,
                                                     int32_t ix0, int8_t* col) {
  const utvm_conv_geom* g = &p->g;
  const int32_t in_c = g->in_c;
  const int32_t seg = g->filter_w * in_c;
  const int8_t zp = (int8_t)p->input_zp;
  const bool cols_in = (g->dilation_w == 1) && (ix0 >= 0) && ((ix0 + g->filter_w) <= g->in_w);
  int32_t o = 0; /* an offset into col: no pointer past it is formed */
  int32_t ky;
  int32_t kx;
  for (ky = 0; ky < g->filter_h; ++ky) {
    const int32_t iy = iy0 + (ky * g->dilation_h);
    if ((iy < 0) || (iy >= g->in_h)) {
      utvm_mve_fill(&col[o], zp, seg);
    } else if (cols_in) {
      utvm_mve_copy(&col[o], &in_b[((iy * g->in_w) + ix0) * in_c], seg);
    } else {
      for (kx = 0; kx < g->filter_w; ++kx) {
        const int32_t ix = ix0 + (kx * g->dilation_w);
        if ((ix >= 0) && (ix < g->in_w)) {
          utvm_mve_copy(&col[o + (kx * in_c)], &in_b[((iy * g->in_w) + ix) * in_c], in_c);
        } else {
          utvm_mve_fill(&col[o + (kx * in_c)], zp, in_c);
        }
      }
    }
    o += seg;
  }
}

/* rq: 12 int32 per block of 4 output channels (above); scratch: depth bytes (any alignment). */
static void utvm_conv2d_s8_mve(const utvm_conv2d_mve_params* p, const int8_t* in, const int8_t* w,
                               const int32_t* rq, void* scratch, int8_t* out) {
  const utvm_conv_geom* g = &p->g;
  int8_t* const col = (int8_t*)scratch;
  const bool one = (g->filter_h == 1) && (g->filter_w == 1);
  int32_t b;
  int32_t oy;
  int32_t ox;
  int32_t pix = 0;
  for (b = 0; b < g->batches; ++b) {
    const int8_t* const in_b = &in[b * g->in_h * g->in_w * g->in_c];
    for (oy = 0; oy < g->out_h; ++oy) {
      const int32_t iy0 = (oy * g->stride_h) - g->pad_h;
      for (ox = 0; ox < g->out_w; ++ox) {
        const int32_t ix0 = (ox * g->stride_w) - g->pad_w;
        const int8_t* x = col;
        if (one && utvm_conv_inside(g, iy0, ix0)) {
          x = &in_b[((iy0 * g->in_w) + ix0) * g->in_c]; /* 1x1: the window is the input pixel */
        } else {
          utvm_conv2d_mve_window(p, in_b, iy0, ix0, col);
        }
        utvm_conv2d_mve_pixel(p, x, w, rq, &out[pix * g->out_c]);
        ++pix;
      }
    }
  }
}

#endif /* UTVM_KERNELS_ARM_MVE_CONV2D_S8_MVE_H_ */
