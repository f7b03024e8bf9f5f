/* utvm-build kernels, DSP extension: DEPTHWISE_CONV_2D, int8 (TFLite DepthwiseConvPerChannel), depth
 * multiplier 1, channels a multiple of 4, on tiny output maps (ops/conv.py depthwise_tiny_call: at most
 * DW_TINY_MAX_PIXELS output pixels, e.g. VWW's and person_detect's 3x3x256 and 6x6 -> 3x3 layers),
 * where depthwise_conv2d_s8_q15.h's per-channel band fill and set-up outweigh the multiply-accumulates.
 *
 * Direct: per output pixel and block of 4 channels, 4 int32 sums from the model's biases; for every
 * tap inside the image (the reference skips the others) one word of the 4 channels' input bytes
 * (NHWC: adjacent), SXTAB16 with the input offset pair into lanes (c0, c2) and (c1, c3), the tap's 4
 * int8 weights ([KH][KW][C]: adjacent too) widened the same way by SXTB16, and SMLABB / SMLATT into
 * the 4 sums; then dsp_s8.h utvm_dsp_rq3 with the generator's triplets (ops/conv.py _rq_triplets),
 * the 4 bytes stored one by one (STRB: fewer instructions than packing a word). No scratch, the model's own int8 weights.
 */
#ifndef UTVM_KERNELS_ARM_DSP_DEPTHWISE_CONV2D_S8_TINY_H_
#define UTVM_KERNELS_ARM_DSP_DEPTHWISE_CONV2D_S8_TINY_H_

#if !defined(__ARM_FEATURE_DSP) || (__ARM_FEATURE_DSP != 1)
#error "utvm-build: these kernels were generated for a DSP target (--target cortex-m4/m7/m33/m55) but compiled without the DSP extension; use --target generic"
#endif

#include "conv.h"
#include "dsp_s8.h"

typedef struct {
  utvm_conv_geom g;
  int32_t rq_mode;      /* UTVM_DSP_RQ_ANY / _FAST / _FULL (dsp_s8.h utvm_dsp_rq3) */
  int32_t input_offset; /* -input zero point */
  int32_t output_offset;
  int32_t act_min;
  int32_t act_max;
} utvm_dw_tiny_params;

/* At most this many filter taps (ops/conv.py depthwise_tiny_call: 3x3 filters and smaller). */
#define UTVM_DW_TINY_MAX_TAPS 9

/* One output pixel's 4-channel blocks over its n taps inside the image: off[2t], off[2t + 1] the
 * input and weight byte offsets of tap t from x and w (channel 0), every pointer then stepping by
 * whole words of 4 channels. The mode a constant in each inlined copy (utvm_dw_tiny_pixel_full:
 * UTVM_DSP_RQ_FULL's one SSAT). */
static UTVM_DSP_INLINE void utvm_dw_tiny_pixel(const utvm_dw_tiny_params* p, const int8_t* x, const int8_t* w,
                                               const int32_t* off, int32_t n, const int32_t* bias, const int32_t* rq,
                                               int8_t* y, int32_t mode) {
  const int32_t c4 = p->g.in_c;
  /* (input offset, input offset) as two int16 lanes for SXTAB16 */
  const int32_t off2 = (int32_t)(((uint32_t)p->input_offset & 0xFFFFu) | ((uint32_t)p->input_offset << 16u));
  int32_t c;
  for (c = 0; c < c4; c += 4) {
    int32_t s0 = bias[c];
    int32_t s1 = bias[c + 1];
    int32_t s2 = bias[c + 2];
    int32_t s3 = bias[c + 3];
    const int32_t* t = &rq[3 * c];
    const int8_t* xc = &x[c];
    const int8_t* wc = &w[c];
    const int32_t* o;
    for (o = off; o != &off[2 * n]; o = &o[2]) {
      const int32_t xv = utvm_dsp_ld4(&xc[o[0]]);
      const int32_t wv = utvm_dsp_ld4(&wc[o[1]]);
      const int32_t xe = __sxtab16(off2, xv);
      const int32_t xo = utvm_dsp_odd_add(off2, xv);
      const int32_t we = utvm_dsp_even(wv);
      const int32_t wo = utvm_dsp_odd(wv);
      s0 = __smlabb(xe, we, s0);
      s2 = __smlatt(xe, we, s2);
      s1 = __smlabb(xo, wo, s1);
      s3 = __smlatt(xo, wo, s3);
    }
    y[c] = utvm_dsp_rq3(s0, mode, t[0], t[1], t[2], p->output_offset, p->act_min, p->act_max);
    y[c + 1] = utvm_dsp_rq3(s1, mode, t[3], t[4], t[5], p->output_offset, p->act_min, p->act_max);
    y[c + 2] = utvm_dsp_rq3(s2, mode, t[6], t[7], t[8], p->output_offset, p->act_min, p->act_max);
    y[c + 3] = utvm_dsp_rq3(s3, mode, t[9], t[10], t[11], p->output_offset, p->act_min, p->act_max);
  }
}

static UTVM_DSP_HOT void utvm_dw_tiny_pixel_full(const utvm_dw_tiny_params* p, const int8_t* x, const int8_t* w,
                                                 const int32_t* off, int32_t n, const int32_t* bias,
                                                 const int32_t* rq, int8_t* y) {
  utvm_dw_tiny_pixel(p, x, w, off, n, bias, rq, y, UTVM_DSP_RQ_FULL);
}

static UTVM_DSP_NOINLINE void utvm_dw_tiny_pixel_any(const utvm_dw_tiny_params* p, const int8_t* x, const int8_t* w,
                                                     const int32_t* off, int32_t n, const int32_t* bias,
                                                     const int32_t* rq, int8_t* y) {
  utvm_dw_tiny_pixel(p, x, w, off, n, bias, rq, y, p->rq_mode);
}

static void utvm_depthwise_conv2d_s8_tiny(const utvm_dw_tiny_params* p, const int8_t* in, const int8_t* w,
                                          const int32_t* bias, const int32_t* rq, int8_t* out) {
  const utvm_conv_geom* g = &p->g;
  const int32_t c4 = g->in_c;
  int32_t b;
  int32_t oy;
  int32_t ox;
  for (b = 0; b < g->batches; ++b) {
    const int8_t* in_b = &in[b * g->in_h * g->in_w * c4];
    for (oy = 0; oy < g->out_h; ++oy) {
      int32_t ky0;
      int32_t ky1;
      const int32_t iy = (oy * g->stride_h) - g->pad_h;
      utvm_conv_taps(iy, g->dilation_h, g->filter_h, g->in_h, &ky0, &ky1); /* conv.h */
      for (ox = 0; ox < g->out_w; ++ox) {
        int32_t kx0;
        int32_t kx1;
        const int32_t ix = (ox * g->stride_w) - g->pad_w;
        int8_t* y = &out[(((b * g->out_h) + oy) * g->out_w + ox) * c4];
        utvm_conv_taps(ix, g->dilation_w, g->filter_w, g->in_w, &kx0, &kx1);
        {
          int32_t off[2 * UTVM_DW_TINY_MAX_TAPS];
          int32_t n = 0;
          int32_t ky;
          int32_t kx;
          for (ky = ky0; ky < ky1; ++ky) {
            for (kx = kx0; kx < kx1; ++kx) {
              off[2 * n] = ((((iy + (ky * g->dilation_h)) * g->in_w) + ix + (kx * g->dilation_w)) * c4);
              off[(2 * n) + 1] = ((ky * g->filter_w) + kx) * c4;
              ++n;
            }
          }
          if (p->rq_mode == UTVM_DSP_RQ_FULL) {
            utvm_dw_tiny_pixel_full(p, in_b, w, off, n, bias, rq, y);
          } else {
            utvm_dw_tiny_pixel_any(p, in_b, w, off, n, bias, rq, y);
          }
        }
      }
    }
  }
}

#endif /* UTVM_KERNELS_ARM_DSP_DEPTHWISE_CONV2D_S8_TINY_H_ */
