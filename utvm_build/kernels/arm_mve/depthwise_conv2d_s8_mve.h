/* utvm-build kernels, Helium (MVE): DEPTHWISE_CONV_2D int8 (TFLite DepthwiseConvPerChannel),
 * any depth multiplier, filter, stride, dilation, padding and channel count. A kernel only the
 * MVE targets have: the generator calls it instead of the DSP / generic depthwise kernels when
 * the target's kernel table provides it (ops/conv_mve.py).
 *
 * Channels in the vector lanes: blocks of 8 output channels (int16 lanes), outside the pixel
 * loop; per tap one widening load of the 8 channels' input bytes (VLDRB.S16; with a depth
 * multiplier above 1 a gather load, lane i from input channel (c0 + i) / depth_multiplier), the block's weights of that
 * tap (VLDRB.S16 at a constant offset: the weights re-laid out per block), VMULLB and VMULLT (the
 * int32 products of the even and of the odd channels) and two VADD into the even and odd
 * accumulators: 6 instructions per 8 multiply-accumulates (MVE has no lane-by-lane
 * multiply-accumulate). Every pixel starts from the folded bias (bias - zp * sum of the weights)
 * and multiplies the raw input; a border pixel's taps outside the image take the input zero
 * point (adding exactly 0 with the folded bias, as the reference skips them). A 3x3 window is
 * unrolled; per output row the pixels whose windows are inside the image are one run with
 * stepped offsets, the border pixels are computed one by one (3x3 unrolled too, a load or the
 * zero point per tap). Requantization vectorised (mve_s8.h utvm_mve_rq) on both halves, narrowed back into
 * channel order (VMOVNB / VMOVNT) and stored as 8 bytes; the last block of fewer than 8 channels
 * predicated (no byte outside the tensors is read or written).
 *
 * Data the generator prepares (ops/conv_mve.py):
 * - w: per block of 8 channels, per tap (row-major), the 8 channels' weights (zero-padded);
 * - rq: per block 24 int32: the folded bias, the multiplier and the shift, each as the 4 even
 *   channels then the 4 odd channels of the block (zeros for the padding channels).
 */
#ifndef UTVM_KERNELS_ARM_MVE_DEPTHWISE_CONV2D_S8_MVE_H_
#define UTVM_KERNELS_ARM_MVE_DEPTHWISE_CONV2D_S8_MVE_H_

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
} utvm_dw_mve_params;

/* The even / odd channel accumulators of a block. */
typedef struct {
  int32x4_t e;
  int32x4_t o;
} utvm_dw_mve_acc;

/* acc += x * w per int16 lane, in the even and odd int32 halves. */
static UTVM_MVE_INLINE void utvm_dw_mve_mac(utvm_dw_mve_acc* a, int16x8_t x, const int8_t* w) {
  const int16x8_t wv = vldrbq_s16(w);
  a->e = vaddq_s32(a->e, vmullbq_int_s16(x, wv));
  a->o = vaddq_s32(a->o, vmulltq_int_s16(x, wv));
  UTVM_MVE_ORDER(a->e, a->o);
}

/* The block's 8 input bytes of one tap at s, widened: contiguous (depth multiplier 1) or
 * gathered by the block's offsets (lane i: input channel (c0 + i) / depth_multiplier), predicated
 * for a last block of fewer than 8 channels. */
static UTVM_MVE_INLINE int16x8_t utvm_dw_mve_ld(const int8_t* s, uint16x8_t offv, mve_pred16_t pr, bool gather,
                                               bool tail) {
  int16x8_t x;
  if (gather) {
    x = tail ? vldrbq_gather_offset_z_s16(s, offv, pr) : vldrbq_gather_offset_s16(s, offv);
  } else {
    x = tail ? vldrbq_z_s16(s, pr) : vldrbq_s16(s);
  }
  return x;
}

/* Requantizes the block's sums and stores its 8 (or, tail, the predicated) bytes at y. shl: some
 * channel of the block shifts left (else utvm_mve_rq_right). */
static UTVM_MVE_INLINE void utvm_dw_mve_out(const utvm_dw_mve_params* p, utvm_dw_mve_acc a, const int32_t* rq,
                                            int8_t* y, mve_pred16_t pr, bool tail, bool shl) {
  const int32x4_t e = shl ? utvm_mve_rq(a.e, vldrwq_s32(&rq[8]), vldrwq_s32(&rq[16]), p->output_offset, p->act_min,
                                        p->act_max)
                          : utvm_mve_rq_right(a.e, vldrwq_s32(&rq[8]), vldrwq_s32(&rq[16]), p->output_offset,
                                              p->act_min, p->act_max);
  const int32x4_t o = shl ? utvm_mve_rq(a.o, vldrwq_s32(&rq[12]), vldrwq_s32(&rq[20]), p->output_offset, p->act_min,
                                        p->act_max)
                          : utvm_mve_rq_right(a.o, vldrwq_s32(&rq[12]), vldrwq_s32(&rq[20]), p->output_offset,
                                              p->act_min, p->act_max);
  const int16x8_t v = vmovntq_s32(vmovnbq_s32(vdupq_n_s16(0), e), o);
  if (tail) {
    vstrbq_p_s16(y, v, pr);
  } else {
    vstrbq_s16(y, v);
  }
}

/* What a block of channels needs in its pixel loops. */
typedef struct {
  const int8_t* wb;  /* the block's weights: 8 per tap */
  const int32_t* rq; /* the block's 24 constants */
  uint16x8_t offv;   /* gather offsets */
  mve_pred16_t pr;   /* its channels (tail) */
  int32_t cs;        /* input bytes from tap to tap in a filter row */
  int32_t rs;        /* input bytes from filter row to filter row */
} utvm_dw_mve_blk;

/* One output pixel whose window's top left tap is at s (taps cs apart in a filter row, rows rs
 * apart): its sums, requantized into y. ld_gather / ld_tail: how the taps are loaded; tail: the
 * store predicated. */
static UTVM_MVE_INLINE void utvm_dw_mve_pixel(const utvm_dw_mve_params* p, const utvm_dw_mve_blk* k, const int8_t* s,
                                              int32_t cs, int32_t rs, int8_t* y, bool ld_gather, bool ld_tail,
                                              bool tail, bool shl) {
  const utvm_conv_geom* g = &p->g;
  const int8_t* const wb = k->wb;
  int32_t ky;
  int32_t kx;
  utvm_dw_mve_acc a;
  a.e = vldrwq_s32(k->rq);
  a.o = vldrwq_s32(&k->rq[4]);
  if ((g->filter_h == 3) && (g->filter_w == 3)) {
    const int8_t* s1 = &s[rs];
    const int8_t* s2 = &s1[rs];
    utvm_dw_mve_mac(&a, utvm_dw_mve_ld(s, k->offv, k->pr, ld_gather, ld_tail), wb);
    utvm_dw_mve_mac(&a, utvm_dw_mve_ld(&s[cs], k->offv, k->pr, ld_gather, ld_tail), &wb[8]);
    utvm_dw_mve_mac(&a, utvm_dw_mve_ld(&s[2 * cs], k->offv, k->pr, ld_gather, ld_tail), &wb[16]);
    utvm_dw_mve_mac(&a, utvm_dw_mve_ld(s1, k->offv, k->pr, ld_gather, ld_tail), &wb[24]);
    utvm_dw_mve_mac(&a, utvm_dw_mve_ld(&s1[cs], k->offv, k->pr, ld_gather, ld_tail), &wb[32]);
    utvm_dw_mve_mac(&a, utvm_dw_mve_ld(&s1[2 * cs], k->offv, k->pr, ld_gather, ld_tail), &wb[40]);
    utvm_dw_mve_mac(&a, utvm_dw_mve_ld(s2, k->offv, k->pr, ld_gather, ld_tail), &wb[48]);
    utvm_dw_mve_mac(&a, utvm_dw_mve_ld(&s2[cs], k->offv, k->pr, ld_gather, ld_tail), &wb[56]);
    utvm_dw_mve_mac(&a, utvm_dw_mve_ld(&s2[2 * cs], k->offv, k->pr, ld_gather, ld_tail), &wb[64]);
  } else {
    const int8_t* pw = wb;
    for (ky = 0; ky < g->filter_h; ++ky) {
      const int8_t* sr = &s[ky * rs];
      for (kx = 0; kx < g->filter_w; ++kx) {
        utvm_dw_mve_mac(&a, utvm_dw_mve_ld(&sr[kx * cs], k->offv, k->pr, ld_gather, ld_tail), pw);
        pw = &pw[8];
      }
    }
  }
  utvm_dw_mve_out(p, a, k->rq, y, k->pr, tail, shl);
}

/* n output pixels of one row whose windows are inside the image: the first window's top left
 * tap at in_b[so], the next ones sstep bytes further; outputs from out[yo], ystep apart. */
static UTVM_MVE_INLINE void utvm_dw_mve_run(const utvm_dw_mve_params* p, const utvm_dw_mve_blk* k, const int8_t* in_b,
                                            int32_t so, int32_t sstep, int32_t n, int8_t* out, int32_t yo,
                                            int32_t ystep, bool gather, bool tail, bool shl) {
  int32_t i;
  int32_t o = so;
  int32_t y = yo;
  for (i = 0; i < n; ++i) {
    utvm_dw_mve_pixel(p, k, &in_b[o], k->cs, k->rs, &out[y], gather, tail, tail, shl);
    o += sstep;
    y += ystep;
  }
}

/* One output pixel whose window crosses the border: the input zero point for the taps outside
 * the image (they add 0 with the folded bias). (Copying such a window into an 8-lane buffer on
 * the stack and running the interior code on it was slower: KWS 2.03 M -> 2.14 M instructions.) */
static UTVM_MVE_INLINE void utvm_dw_mve_edge(const utvm_dw_mve_params* p, const utvm_dw_mve_blk* k, const int8_t* in_b,
                                             int32_t iy0, int32_t ix0, int8_t* y, bool gather, bool tail,
                                             bool shl) {
  const utvm_conv_geom* g = &p->g;
  const int16x8_t zpv = vdupq_n_s16((int16_t)p->input_zp);
  const int8_t* pw = k->wb;
  int32_t ky;
  int32_t kx;
  utvm_dw_mve_acc a;
  a.e = vldrwq_s32(k->rq);
  a.o = vldrwq_s32(&k->rq[4]);
  if ((g->filter_h == 3) && (g->filter_w == 3)) {
    /* unrolled: which filter rows and columns are inside, then per tap a load or the zero point
     * (the tap loop below costs about twice as much per tap) */
    const int32_t ix1 = ix0 + g->dilation_w;
    const int32_t ix2 = ix1 + g->dilation_w;
    const bool c0 = (ix0 >= 0) && (ix0 < g->in_w);
    const bool c1 = (ix1 >= 0) && (ix1 < g->in_w);
    const bool c2 = (ix2 >= 0) && (ix2 < g->in_w);
    const int8_t* const wb = k->wb;
    for (ky = 0; ky < 3; ++ky) {
      const int32_t iy = iy0 + (ky * g->dilation_h);
      const int8_t* const w3 = &wb[ky * 24];
      if ((iy >= 0) && (iy < g->in_h)) {
        const int8_t* const r = &in_b[iy * g->in_w * g->in_c];
        utvm_dw_mve_mac(&a, c0 ? utvm_dw_mve_ld(&r[ix0 * g->in_c], k->offv, k->pr, gather, tail) : zpv, w3);
        utvm_dw_mve_mac(&a, c1 ? utvm_dw_mve_ld(&r[ix1 * g->in_c], k->offv, k->pr, gather, tail) : zpv, &w3[8]);
        utvm_dw_mve_mac(&a, c2 ? utvm_dw_mve_ld(&r[ix2 * g->in_c], k->offv, k->pr, gather, tail) : zpv, &w3[16]);
      } else {
        utvm_dw_mve_mac(&a, zpv, w3);
        utvm_dw_mve_mac(&a, zpv, &w3[8]);
        utvm_dw_mve_mac(&a, zpv, &w3[16]);
      }
    }
  } else {
    for (ky = 0; ky < g->filter_h; ++ky) {
      const int32_t iy = iy0 + (ky * g->dilation_h);
      for (kx = 0; kx < g->filter_w; ++kx) {
        const int32_t ix = ix0 + (kx * g->dilation_w);
        int16x8_t x = zpv;
        if (utvm_conv_inside(g, iy, ix)) {
          x = utvm_dw_mve_ld(&in_b[((iy * g->in_w) + ix) * g->in_c], k->offv, k->pr, gather, tail);
        }
        utvm_dw_mve_mac(&a, x, pw);
        pw = &pw[8];
      }
    }
  }
  utvm_dw_mve_out(p, a, k->rq, y, k->pr, tail, shl);
}

/* One block of channels (c0: its first channel) over every output pixel: per output row the run
 * of pixels whose windows are inside (utvm_dw_mve_run), the others one by one. */
static UTVM_MVE_INLINE void utvm_dw_mve_block(const utvm_dw_mve_params* p, const int8_t* in, const utvm_dw_mve_blk* k,
                                              int8_t* out, int32_t c0, bool gather, bool tail, bool shl) {
  const utvm_conv_geom* g = &p->g;
  const int32_t row = g->in_w * g->in_c;
  const int32_t iy_span = (g->filter_h - 1) * g->dilation_h;
  const int32_t ix_span = (g->filter_w - 1) * g->dilation_w;
  const int32_t och = g->out_c;
  /* output columns lo..hi-1 have windows inside the image horizontally */
  int32_t lo = 0;
  int32_t hi = g->out_w;
  int32_t b;
  int32_t oy;
  int32_t ox;
  while ((lo < hi) && (((lo * g->stride_w) - g->pad_w) < 0)) {
    ++lo;
  }
  while ((hi > lo) && ((((hi - 1) * g->stride_w) - g->pad_w + ix_span) >= g->in_w)) {
    --hi;
  }
  for (b = 0; b < g->batches; ++b) {
    const int8_t* const in_b = &in[(b * g->in_h * row) + (c0 / g->depth_multiplier)];
    for (oy = 0; oy < g->out_h; ++oy) {
      const int32_t iy0 = (oy * g->stride_h) - g->pad_h;
      const int32_t yrow = (((b * g->out_h) + oy) * g->out_w * och) + c0;
      if ((iy0 >= 0) && ((iy0 + iy_span) < g->in_h) && (lo < hi)) {
        for (ox = 0; ox < lo; ++ox) {
          utvm_dw_mve_edge(p, k, in_b, iy0, (ox * g->stride_w) - g->pad_w, &out[yrow + (ox * och)], gather, tail,
                           shl);
        }
        utvm_dw_mve_run(p, k, in_b, (iy0 * row) + (((lo * g->stride_w) - g->pad_w) * g->in_c),
                        g->stride_w * g->in_c, hi - lo, out, yrow + (lo * och), och, gather, tail, shl);
        for (ox = hi; ox < g->out_w; ++ox) {
          utvm_dw_mve_edge(p, k, in_b, iy0, (ox * g->stride_w) - g->pad_w, &out[yrow + (ox * och)], gather, tail,
                           shl);
        }
      } else {
        for (ox = 0; ox < g->out_w; ++ox) {
          utvm_dw_mve_edge(p, k, in_b, iy0, (ox * g->stride_w) - g->pad_w, &out[yrow + (ox * och)], gather, tail,
                           shl);
        }
      }
    }
  }
}

static UTVM_MVE_HOT_NOSCHED void utvm_dw_mve_full(const utvm_dw_mve_params* p, const int8_t* in,
                                                  const utvm_dw_mve_blk* k, int8_t* out, int32_t c0) {
  utvm_dw_mve_block(p, in, k, out, c0, false, false, true);
}

/* the same when no channel of the block shifts left (the usual case) */
static UTVM_MVE_HOT_NOSCHED void utvm_dw_mve_full_r(const utvm_dw_mve_params* p, const int8_t* in,
                                                    const utvm_dw_mve_blk* k, int8_t* out, int32_t c0) {
  utvm_dw_mve_block(p, in, k, out, c0, false, false, false);
}

static UTVM_MVE_NOINLINE void utvm_dw_mve_tail(const utvm_dw_mve_params* p, const int8_t* in,
                                               const utvm_dw_mve_blk* k, int8_t* out, int32_t c0) {
  utvm_dw_mve_block(p, in, k, out, c0, false, true, true);
}

/* depth multiplier > 1: the input channels gathered (one copy of the loops for every block) */
static UTVM_MVE_HOT_NOSCHED void utvm_dw_mve_gather(const utvm_dw_mve_params* p, const int8_t* in,
                                                    const utvm_dw_mve_blk* k, int8_t* out, int32_t c0) {
  utvm_dw_mve_block(p, in, k, out, c0, true, true, true);
}

/* w: per block of 8 channels filter_h * filter_w * 8 bytes; rq: 24 int32 per block (above). */
static void utvm_depthwise_conv2d_s8_mve(const utvm_dw_mve_params* p, const int8_t* in, const int8_t* w,
                                         const int32_t* rq, int8_t* out) {
  const utvm_conv_geom* g = &p->g;
  const int32_t taps8 = g->filter_h * g->filter_w * 8;
  const int32_t dm = g->depth_multiplier;
  int32_t c0;
  int32_t n = 0;
  utvm_dw_mve_blk k;
  k.cs = g->dilation_w * g->in_c;
  k.rs = g->dilation_h * g->in_w * g->in_c;
  for (c0 = 0; c0 < g->out_c; c0 += 8) {
    uint16_t offs[8];
    int32_t i;
    for (i = 0; i < 8; ++i) {
      offs[i] = (uint16_t)(((c0 + i) / dm) - (c0 / dm));
    }
    k.offv = vld1q_u16(offs);
    k.wb = &w[n * taps8];
    k.rq = &rq[n * 24];
    k.pr = vctp16q((uint32_t)(g->out_c - c0));
    if (dm != 1) {
      utvm_dw_mve_gather(p, in, &k, out, c0);
    } else if (((g->out_c - c0) >= 8) && !utvm_mve_any_left(&k.rq[16], 8, 1)) {
      utvm_dw_mve_full_r(p, in, &k, out, c0);
    } else if ((g->out_c - c0) >= 8) {
      utvm_dw_mve_full(p, in, &k, out, c0);
    } else {
      utvm_dw_mve_tail(p, in, &k, out, c0);
    }
    ++n;
  }
}

#endif /* UTVM_KERNELS_ARM_MVE_DEPTHWISE_CONV2D_S8_MVE_H_ */
