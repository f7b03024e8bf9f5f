/* utvm-build kernels, Helium (MVE): DEPTHWISE_CONV_2D int8 (TFLite DepthwiseConvPerChannel),
 * depth multiplier 1, any filter, stride, dilation, padding and channel count. A kernel only the
 * MVE targets have: the generator calls it instead of the DSP / generic depthwise kernels when
 * the target's kernel table provides it (ops/conv_mve.py).
 *
 * Channels in the vector lanes: blocks of 8 channels (int16 lanes), outside the pixel loop; per
 * tap one widening load of the 8 channels' input bytes (VLDRB.S16), the block's weights of that
 * tap (VLDRB.S16 at a constant offset: the weights re-laid out per block), VMULLB and VMULLT (the
 * int32 products of the even and of the odd channels) and two VADD into the even and odd
 * accumulators: 6 instructions per 8 multiply-accumulates (MVE has no lane-by-lane
 * multiply-accumulate). Every pixel starts from the folded bias (bias - zp * sum of the weights)
 * and multiplies the raw input; a border pixel's taps outside the image take the input zero
 * point (adding exactly 0 with the folded bias, as the reference skips them). A 3x3 window is
 * unrolled. Requantization vectorised (mve_s8.h utvm_mve_rq) on both halves, narrowed back into
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
}

/* The block's 8 input bytes at s, widened (predicated: only the block's real channels). */
static UTVM_MVE_INLINE int16x8_t utvm_dw_mve_ld(const int8_t* s, mve_pred16_t pr, bool tail) {
  return tail ? vldrbq_z_s16(s, pr) : vldrbq_s16(s);
}

/* Requantizes the block's sums and stores its 8 (or, tail, the predicated) bytes at y. */
static UTVM_MVE_INLINE void utvm_dw_mve_out(const utvm_dw_mve_params* p, utvm_dw_mve_acc a, const int32_t* rq,
                                            int8_t* y, mve_pred16_t pr, bool tail) {
  const int32x4_t e = utvm_mve_rq(a.e, vldrwq_s32(&rq[8]), vldrwq_s32(&rq[16]), p->output_offset, p->act_min,
                                  p->act_max);
  const int32x4_t o = utvm_mve_rq(a.o, vldrwq_s32(&rq[12]), vldrwq_s32(&rq[20]), p->output_offset, p->act_min,
                                  p->act_max);
  const int16x8_t v = vmovntq_s32(vmovnbq_s32(vdupq_n_s16(0), e), o);
  if (tail) {
    vstrbq_p_s16(y, v, pr);
  } else {
    vstrbq_s16(y, v);
  }
}

/* One block of channels (c0: its first channel; tail: fewer than 8) over every output pixel. */
static UTVM_MVE_INLINE void utvm_dw_mve_block(const utvm_dw_mve_params* p, const int8_t* in, const int8_t* wb,
                                              const int32_t* rq, int8_t* out, int32_t c0, bool tail) {
  const utvm_conv_geom* g = &p->g;
  const int32_t ch = g->in_c;
  const int32_t row = g->in_w * ch;
  const int32_t fw = g->filter_w;
  const int32_t cs = g->dilation_w * ch;  /* tap to tap in a filter row */
  const int32_t rs = g->dilation_h * row; /* filter row to filter row */
  const mve_pred16_t pr = vctp16q((uint32_t)(ch - c0));
  const int16x8_t zpv = vdupq_n_s16((int16_t)p->input_zp);
  const bool k3 = (g->filter_h == 3) && (fw == 3);
  const int32_t iy_span = (g->filter_h - 1) * g->dilation_h;
  const int32_t ix_span = (fw - 1) * g->dilation_w;
  int32_t b;
  int32_t oy;
  int32_t ox;
  int32_t ky;
  int32_t kx;
  int32_t yo = c0; /* output offset of the pixel's block */
  for (b = 0; b < g->batches; ++b) {
    const int8_t* const in_b = &in[(b * g->in_h * row) + c0];
    for (oy = 0; oy < g->out_h; ++oy) {
      const int32_t iy0 = (oy * g->stride_h) - g->pad_h;
      const bool rows_in = (iy0 >= 0) && ((iy0 + iy_span) < g->in_h);
      for (ox = 0; ox < g->out_w; ++ox) {
        const int32_t ix0 = (ox * g->stride_w) - g->pad_w;
        utvm_dw_mve_acc a;
        a.e = vldrwq_s32(rq);
        a.o = vldrwq_s32(&rq[4]);
        if (rows_in && (ix0 >= 0) && ((ix0 + ix_span) < g->in_w)) {
          const int8_t* s = &in_b[(iy0 * row) + (ix0 * ch)];
          if (k3) {
            const int8_t* s1 = &s[rs];
            const int8_t* s2 = &s1[rs];
            utvm_dw_mve_mac(&a, utvm_dw_mve_ld(s, pr, tail), wb);
            utvm_dw_mve_mac(&a, utvm_dw_mve_ld(&s[cs], pr, tail), &wb[8]);
            utvm_dw_mve_mac(&a, utvm_dw_mve_ld(&s[2 * cs], pr, tail), &wb[16]);
            utvm_dw_mve_mac(&a, utvm_dw_mve_ld(s1, pr, tail), &wb[24]);
            utvm_dw_mve_mac(&a, utvm_dw_mve_ld(&s1[cs], pr, tail), &wb[32]);
            utvm_dw_mve_mac(&a, utvm_dw_mve_ld(&s1[2 * cs], pr, tail), &wb[40]);
            utvm_dw_mve_mac(&a, utvm_dw_mve_ld(s2, pr, tail), &wb[48]);
            utvm_dw_mve_mac(&a, utvm_dw_mve_ld(&s2[cs], pr, tail), &wb[56]);
            utvm_dw_mve_mac(&a, utvm_dw_mve_ld(&s2[2 * cs], pr, tail), &wb[64]);
          } else {
            const int8_t* pw = wb;
            for (ky = 0; ky < g->filter_h; ++ky) {
              const int8_t* sr = &s[ky * rs];
              for (kx = 0; kx < fw; ++kx) {
                utvm_dw_mve_mac(&a, utvm_dw_mve_ld(&sr[kx * cs], pr, tail), pw);
                pw = &pw[8];
              }
            }
          }
        } else {
          /* a border pixel: the input zero point for the taps outside the image */
          const int8_t* pw = wb;
          for (ky = 0; ky < g->filter_h; ++ky) {
            const int32_t iy = iy0 + (ky * g->dilation_h);
            for (kx = 0; kx < fw; ++kx) {
              const int32_t ix = ix0 + (kx * g->dilation_w);
              int16x8_t x = zpv;
              if ((iy >= 0) && (iy < g->in_h) && (ix >= 0) && (ix < g->in_w)) {
                x = utvm_dw_mve_ld(&in_b[(iy * row) + (ix * ch)], pr, tail);
              }
              utvm_dw_mve_mac(&a, x, pw);
              pw = &pw[8];
            }
          }
        }
        utvm_dw_mve_out(p, a, rq, &out[yo], pr, tail);
        yo += ch;
      }
    }
  }
}

static UTVM_MVE_HOT_NOSCHED void utvm_dw_mve_full(const utvm_dw_mve_params* p, const int8_t* in, const int8_t* wb,
                                                  const int32_t* rq, int8_t* out, int32_t c0) {
  utvm_dw_mve_block(p, in, wb, rq, out, c0, false);
}

static UTVM_MVE_NOINLINE void utvm_dw_mve_tail(const utvm_dw_mve_params* p, const int8_t* in, const int8_t* wb,
                                               const int32_t* rq, int8_t* out, int32_t c0) {
  utvm_dw_mve_block(p, in, wb, rq, out, c0, true);
}

/* w: per block of 8 channels filter_h * filter_w * 8 bytes; rq: 24 int32 per block (above). */
static void utvm_depthwise_conv2d_s8_mve(const utvm_dw_mve_params* p, const int8_t* in, const int8_t* w,
                                         const int32_t* rq, int8_t* out) {
  const utvm_conv_geom* g = &p->g;
  const int32_t taps8 = g->filter_h * g->filter_w * 8;
  int32_t c0;
  int32_t k = 0;
  for (c0 = 0; c0 < g->out_c; c0 += 8) {
    if ((g->out_c - c0) >= 8) {
      utvm_dw_mve_full(p, in, &w[k * taps8], &rq[k * 24], out, c0);
    } else {
      utvm_dw_mve_tail(p, in, &w[k * taps8], &rq[k * 24], out, c0);
    }
    ++k;
  }
}

#endif /* UTVM_KERNELS_ARM_MVE_DEPTHWISE_CONV2D_S8_MVE_H_ */
