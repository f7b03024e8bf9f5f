/* utvm-build kernels, DSP extension: DEPTHWISE_CONV_2D, int8 (TFLite DepthwiseConvPerChannel);
 * replaces kernels/depthwise_conv2d_s8.h (same function, same arguments, same results).
 *
 * Loop order: blocks of 4 output channels, then output pixels, so that a block's bias and
 * requantization constants (dsp_s8.h utvm_dsp_rq_ch) are prepared once. In NHWC a block's 4
 * channels are one 32-bit word of the [1][KH][KW][OC] filter and, at depth multiplier 1, one word
 * of the input (input channels ic..ic+3); above it they share one input value (channels
 * ic*dm+m..+3 of input channel ic, m + 4 <= dm). Per tap: SXTB16 splits the words into the even
 * and odd channels' int16 lanes, SMLABB / SMLATT multiply-accumulate each channel separately.
 * Runs of interior pixels of a 3x3 filter (the common case) are unrolled, with the block's
 * weights split into int16 lanes once. Other pixels visit only the taps inside the image, adding
 * the input offset (-input zero point) to every input value (SXTAB16) and starting from the
 * model's own bias, recovered once per block as folded bias + input_zp * sum of the weights
 * (conv.h): the reference's sum itself. Channels left over by the blocks (and depth multiplier 1
 * dilated along the width) take a one-channel loop over every tap, reading the input zero point
 * for a tap outside the image (which then cancels its share of the folded bias). All sums are exact int32 sums, requantized
 * with utvm_dsp_rq (TFLite MultiplyByQuantizedMultiplier, bit-exact).
 */
#ifndef UTVM_KERNELS_DEPTHWISE_CONV2D_S8_H_
#define UTVM_KERNELS_DEPTHWISE_CONV2D_S8_H_

#if !defined(__ARM_FEATURE_DSP) || (__ARM_FEATURE_DSP != 1)
#error "utvm-build: these kernels were generated for a DSP target (--target cortex-m4/m7/m33/m55) but compiled without the DSP extension; use --target generic"
#endif

#include "conv.h"
#include "dsp_s8.h"

/* Four accumulators of one block. */
typedef struct {
  int32_t a0;
  int32_t a1;
  int32_t a2;
  int32_t a3;
} utvm_dw_dsp_acc;

/* A pixel with taps outside the image (depth multiplier 1: four contiguous input channels; the
 * shared version below: one input channel for four output channels, compiled at -O2 by GCC, where
 * it keeps its accumulators in registers): 4 channels oc..oc+3 whose tap (0, 0) is at input
 * (iy0, ix0); ic: their input channel (shared) or the first of four (contiguous). Only the taps
 * inside are visited, with the input offset -pad added to every input value, from the model's
 * own bias (acc on entry: bias_folded + pad * sum of the weights, see utvm_dw_dsp_block): the
 * reference's sum itself. */
static UTVM_DSP_NOINLINE void utvm_dw_dsp_window_contiguous(const utvm_conv_q_params* p, const int8_t* in_b,
                                                 const int8_t* w, int32_t iy0, int32_t ix0, int32_t ic,
                                                 int32_t oc, utvm_dw_dsp_acc* acc) {
  const utvm_conv_geom* g = &p->g;
  const uint32_t off16 = (uint32_t)(-p->pad_value) & 0xFFFFu;
  const int32_t offs = (int32_t)((off16 << 16u) | off16); /* -pad in both int16 lanes */
  const int32_t x_dx = g->dilation_w * g->in_c;
  utvm_dw_dsp_acc a = *acc;
  int32_t ky0;
  int32_t ky1;
  int32_t kx0;
  int32_t kx1;
  int32_t ky;
  utvm_conv_taps(iy0, g->dilation_h, g->filter_h, g->in_h, &ky0, &ky1);
  utvm_conv_taps(ix0, g->dilation_w, g->filter_w, g->in_w, &kx0, &kx1);
  for (ky = ky0; ky < ky1; ++ky) {
    const int8_t* px = &in_b[(((((iy0 + (ky * g->dilation_h)) * g->in_w) + ix0) + (kx0 * g->dilation_w)) * g->in_c) + ic];
    const int8_t* pw = &w[(((ky * g->filter_w) + kx0) * g->out_c) + oc];
    const int8_t* const end = &pw[(kx1 - kx0) * g->out_c];
    while (pw != end) {
      const int32_t wv = utvm_dsp_ld4(pw);
      const int32_t xv = utvm_dsp_ld4(px);
      const int32_t xe = __sxtab16(offs, xv);
      const int32_t xo = utvm_dsp_odd_add(offs, xv);
      const int32_t we = utvm_dsp_even(wv);
      const int32_t wo = utvm_dsp_odd(wv);
      a.a0 = __smlabb(xe, we, a.a0);
      a.a2 = __smlatt(xe, we, a.a2);
      a.a1 = __smlabb(xo, wo, a.a1);
      a.a3 = __smlatt(xo, wo, a.a3);
      px = &px[x_dx];
      pw = &pw[g->out_c];
    }
  }
  *acc = a;
}

static UTVM_DSP_HOT_SCHED void utvm_dw_dsp_window_shared(const utvm_conv_q_params* p, const int8_t* in_b,
                                                       const int8_t* w, int32_t iy0, int32_t ix0, int32_t ic,
                                                       int32_t oc, utvm_dw_dsp_acc* acc) {
  const utvm_conv_geom* g = &p->g;
  const int32_t x_dx = g->dilation_w * g->in_c;
  utvm_dw_dsp_acc a = *acc;
  int32_t ky0;
  int32_t ky1;
  int32_t kx0;
  int32_t kx1;
  int32_t ky;
  utvm_conv_taps(iy0, g->dilation_h, g->filter_h, g->in_h, &ky0, &ky1);
  utvm_conv_taps(ix0, g->dilation_w, g->filter_w, g->in_w, &kx0, &kx1);
  for (ky = ky0; ky < ky1; ++ky) {
    const int8_t* px = &in_b[(((((iy0 + (ky * g->dilation_h)) * g->in_w) + ix0) + (kx0 * g->dilation_w)) * g->in_c) + ic];
    const int8_t* pw = &w[(((ky * g->filter_w) + kx0) * g->out_c) + oc];
    const int8_t* const end = &pw[(kx1 - kx0) * g->out_c];
    const int32_t pad = p->pad_value;
    while (pw != end) {
      const int32_t wv = utvm_dsp_ld4(pw);
      const uint32_t v16 = (uint32_t)((int32_t)*px - pad) & 0xFFFFu;
      const int32_t xb = (int32_t)((v16 << 16u) | v16);
      const int32_t we = utvm_dsp_even(wv);
      const int32_t wo = utvm_dsp_odd(wv);
      a.a0 = __smlabb(xb, we, a.a0);
      a.a2 = __smlatt(xb, we, a.a2);
      a.a1 = __smlabb(xb, wo, a.a1);
      a.a3 = __smlatt(xb, wo, a.a3);
      px = &px[x_dx];
      pw = &pw[g->out_c];
    }
  }
  *acc = a;
}

/* What every pixel of a block of 4 channels needs: the weights of a 3x3 filter split into even
 * and odd channel lanes once (wx[2t], wx[2t + 1] for tap t), the requantization constants, the
 * bias and the output range. */
typedef struct {
  int32_t wx[18];
  utvm_dsp_rq_ch rq[4];
  utvm_dw_dsp_acc bias;
  utvm_dw_dsp_acc border_bias; /* the model's bias: bias + pad * sum of the channel's weights */
  int32_t zp;
  int32_t lo;
  int32_t hi;
} utvm_dw_dsp_blk;

/* Requantizes and stores a block's 4 accumulators. */
static UTVM_DSP_INLINE void utvm_dw_dsp_out4(const utvm_dw_dsp_blk* k, const utvm_dw_dsp_acc* a, int8_t* y) {
  y[0] = utvm_dsp_rq_out(&k->rq[0], a->a0, k->zp, k->lo, k->hi);
  y[1] = utvm_dsp_rq_out(&k->rq[1], a->a1, k->zp, k->lo, k->hi);
  y[2] = utvm_dsp_rq_out(&k->rq[2], a->a2, k->zp, k->lo, k->hi);
  y[3] = utvm_dsp_rq_out(&k->rq[3], a->a3, k->zp, k->lo, k->hi);
}

/* One tap of 4 channels with the weights already split (we: even lanes, wo: odd lanes). */
static UTVM_DSP_INLINE void utvm_dw_dsp_tap_split(utvm_dw_dsp_acc* a, int32_t xv, const int32_t* wx) {
  const int32_t xe = utvm_dsp_even(xv);
  const int32_t xo = utvm_dsp_odd(xv);
  a->a0 = __smlabb(xe, wx[0], a->a0);
  a->a2 = __smlatt(xe, wx[0], a->a2);
  a->a1 = __smlabb(xo, wx[1], a->a1);
  a->a3 = __smlatt(xo, wx[1], a->a3);
}

/* count >= 1 consecutive interior pixels of one output row, 3x3 filter, depth multiplier 1 (no
 * width dilation): x at tap (0, 0) of the first pixel, channel 0 of the block; s: the channel
 * count (step between taps); row: input step between filter rows; xstep: input step between
 * pixels; y: the first pixel's output (channel 0 of the block), ystep: output step. */
static UTVM_DSP_NOINLINE void utvm_dw_dsp_row3x3(const utvm_dw_dsp_blk* k, const int8_t* x, int32_t s, int32_t row,
                                                 int32_t xstep, int32_t count, int8_t* y, int32_t ystep) {
  const int8_t* px0 = x;
  int8_t* py = y;
  int32_t left = count;
  do {
    utvm_dw_dsp_acc a = k->bias;
    const int8_t* px = px0;
    const int32_t* pw = k->wx;
    int32_t r;
    for (r = 0; r < 3; ++r) {
      utvm_dw_dsp_tap_split(&a, utvm_dsp_ld4(px), pw);
      utvm_dw_dsp_tap_split(&a, utvm_dsp_ld4(&px[s]), &pw[2]);
      utvm_dw_dsp_tap_split(&a, utvm_dsp_ld4(&px[s + s]), &pw[4]);
      px = &px[row];
      pw = &pw[6];
    }
    utvm_dw_dsp_out4(k, &a, py);
    px0 = &px0[xstep];
    py = &py[ystep];
    --left;
  } while (left > 0);
}

/* Every pixel of n (4 or 1) output channels from oc (input channel ic: the block's first, or
 * the one they share). */
static UTVM_DSP_INLINE void utvm_dw_dsp_block(const utvm_conv_q_params* p, const int8_t* in, const int8_t* w,
                                                const int32_t* bias, const int32_t* mult, const int32_t* shift,
                                                int8_t* out, int32_t oc, int32_t ic, int32_t n, bool shared) {
  const utvm_conv_geom* g = &p->g;
  const int32_t in_row = g->in_w * g->in_c;
  const int32_t last_y = g->in_h - 1 - ((g->filter_h - 1) * g->dilation_h); /* window inside: iy0 <= last_y */
  const int32_t last_x = g->in_w - g->filter_w;                              /* (fast3: no width dilation) */
  const bool fast3 = (n == 4) && (!shared) && (g->filter_h == 3) && (g->filter_w == 3) && (g->dilation_w == 1);
  /* interior pixels of a row: ox in [ox_lo, ox_hi) */
  int32_t ox_lo = g->out_w;
  int32_t ox_hi = g->out_w;
  utvm_dw_dsp_blk k;
  int32_t j;
  int32_t b;
  int32_t oy;
  int32_t ox;
  int8_t* y = &out[oc];
  for (j = 0; j < n; ++j) {
    utvm_dsp_rq_setup(&k.rq[j], mult[oc + j], shift[oc + j]);
  }
  k.zp = p->output_offset;
  k.lo = p->act_min;
  k.hi = p->act_max;
  k.bias.a0 = bias[oc];
  k.bias.a1 = (n == 4) ? bias[oc + 1] : 0;
  k.bias.a2 = (n == 4) ? bias[oc + 2] : 0;
  k.bias.a3 = (n == 4) ? bias[oc + 3] : 0;
  k.border_bias = k.bias;
  if (n == 4) {
    utvm_dw_dsp_acc sum = {0, 0, 0, 0};
    const int32_t taps = g->filter_h * g->filter_w;
    for (j = 0; j < taps; ++j) {
      const int8_t* wt = &w[(j * g->out_c) + oc];
      sum.a0 += (int32_t)wt[0];
      sum.a1 += (int32_t)wt[1];
      sum.a2 += (int32_t)wt[2];
      sum.a3 += (int32_t)wt[3];
    }
    k.border_bias.a0 += sum.a0 * p->pad_value;
    k.border_bias.a1 += sum.a1 * p->pad_value;
    k.border_bias.a2 += sum.a2 * p->pad_value;
    k.border_bias.a3 += sum.a3 * p->pad_value;
  }
  if (fast3 && ((last_x + g->pad_w) >= 0)) {
    for (j = 0; j < 9; ++j) {
      const int32_t wv = utvm_dsp_ld4(&w[(j * g->out_c) + oc]);
      k.wx[2 * j] = utvm_dsp_even(wv);
      k.wx[(2 * j) + 1] = utvm_dsp_odd(wv);
    }
    ox_lo = (g->pad_w + g->stride_w - 1) / g->stride_w;
    ox_hi = utvm_min_i32(((last_x + g->pad_w) / g->stride_w) + 1, g->out_w);
    ox_lo = utvm_min_i32(ox_lo, ox_hi);
  }
  for (b = 0; b < g->batches; ++b) {
    const int8_t* in_b = &in[b * g->in_h * in_row];
    for (oy = 0; oy < g->out_h; ++oy) {
      const int32_t iy0 = (oy * g->stride_h) - g->pad_h;
      const bool rows_in = (iy0 >= 0) && (iy0 <= last_y);
      ox = 0;
      while (ox < g->out_w) {
        const int32_t ix0 = (ox * g->stride_w) - g->pad_w;
        if (rows_in && (ox == ox_lo) && (ox_hi > ox_lo)) {
          const int32_t count = ox_hi - ox_lo;
          utvm_dw_dsp_row3x3(&k, &in_b[(iy0 * in_row) + (ix0 * g->in_c) + ic], g->out_c, g->dilation_h * in_row,
                             g->stride_w * g->in_c, count, y, g->out_c);
          y = &y[count * g->out_c];
          ox += count;
        } else {
          if (n == 4) {
            utvm_dw_dsp_acc a = k.border_bias;
            if (shared) {
              utvm_dw_dsp_window_shared(p, in_b, w, iy0, ix0, ic, oc, &a);
            } else {
              utvm_dw_dsp_window_contiguous(p, in_b, w, iy0, ix0, ic, oc, &a);
            }
            utvm_dw_dsp_out4(&k, &a, y);
          } else {
            const int32_t acc = utvm_conv_dw_s8_one(p, in_b, w, iy0, ix0, ic, oc, k.bias.a0);
            y[0] = utvm_dsp_rq_out(&k.rq[0], acc, k.zp, k.lo, k.hi);
          }
          y = &y[g->out_c];
          ++ox;
        }
      }
    }
  }
}

/* bias: folded bias (bias - input_zp * sum of the channel's weights), never NULL. */
static void utvm_depthwise_conv2d_s8(const utvm_conv_q_params* p, const int8_t* in, const int8_t* w,
                                     const int32_t* bias, const int32_t* mult, const int32_t* shift,
                                     int8_t* out) {
  const utvm_conv_geom* g = &p->g;
  const int32_t dm = g->depth_multiplier;
  const bool contiguous = (dm == 1) && (g->dilation_w == 1); /* blocks of 4 input channels */
  int32_t oc = 0;
  while (oc < g->out_c) {
    const int32_t ic = oc / dm;
    const int32_t m = oc - (ic * dm);
    int32_t n = 1;
    if (contiguous ? ((oc + 4) <= g->out_c) : ((dm > 1) && ((m + 4) <= dm))) {
      n = 4;
    }
    utvm_dw_dsp_block(p, in, w, bias, mult, shift, out, oc, ic, n, !contiguous);
    oc += n;
  }
}

#endif /* UTVM_KERNELS_DEPTHWISE_CONV2D_S8_H_ */
