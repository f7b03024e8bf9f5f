/* utvm-build kernels, Helium (MVE): DEPTHWISE_CONV_2D int8 (TFLite DepthwiseConvPerChannel),
 * depth multiplier 1, any filter, stride, dilation, padding and channel count. A kernel only the
 * MVE targets have: the generator calls it instead of the DSP / generic depthwise kernels when
 * the target's kernel table provides it (ops/conv_mve.py).
 *
 * Channels in the vector lanes: blocks of 4 channels (one int32 lane each), outside the pixel
 * loop; per tap one widening load of the 4 channels' input bytes (VLDRB.S32), the block's weight
 * vector of that tap (VLDRB.S32 at a constant offset: the weights re-laid out per block), VMUL and
 * VADD (MVE has no lane-by-lane multiply-accumulate). Pixels whose window lies inside the image start from the folded bias (bias - zp * sum of
 * the weights) and multiply the raw input; border pixels start from the model's bias and visit
 * only the taps inside, with the input offset added (VADD), as the reference. A 3x3 interior
 * window is unrolled. Requantization vectorised (mve_s8.h utvm_mve_rq), 4 bytes stored at once;
 * the last block of fewer than 4 channels predicated (no byte outside the tensors is read).
 *
 * Data the generator prepares (ops/conv_mve.py):
 * - w: per block of 4 channels, per tap (row-major), the 4 channels' weights (zero-padded);
 * - rq: per block 16 int32: the folded bias, the model's bias (zeros without one), the multiplier
 *   and the shift of each channel (zeros for the padding channels).
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
  int32_t input_offset;  /* -input zero point */
  int32_t output_offset; /* output zero point */
  int32_t act_min;
  int32_t act_max;
} utvm_dw_mve_params;

/* The block's 4 input bytes at s, widened (predicated: only the block's real channels). */
static UTVM_MVE_INLINE int32x4_t utvm_dw_mve_ld(const int8_t* s, mve_pred16_t pr, bool tail) {
  return tail ? vldrbq_z_s32(s, pr) : vldrbq_s32(s);
}

/* acc + x * w per lane (MVE has no vector-by-vector multiply-accumulate: VMUL, VADD). */
static UTVM_MVE_INLINE int32x4_t utvm_dw_mve_mla(int32x4_t acc, int32x4_t x, int32x4_t w) {
  return vaddq_s32(acc, vmulq_s32(x, w));
}

/* One block of channels (c0: its first channel; tail: fewer than 4) over every output pixel. */
static UTVM_MVE_INLINE void utvm_dw_mve_block(const utvm_dw_mve_params* p, const int8_t* in, const int8_t* wb,
                                              const int32_t* rq, int8_t* out, int32_t c0, bool tail) {
  const utvm_conv_geom* g = &p->g;
  const int32_t ch = g->in_c;
  const int32_t row = g->in_w * ch;
  const int32_t fw = g->filter_w;
  const mve_pred16_t pr = vctp32q((uint32_t)(ch - c0));
  const int32x4_t folded = vldrwq_s32(rq);
  const int32x4_t bias = vldrwq_s32(&rq[4]);
  const int32x4_t mult = vldrwq_s32(&rq[8]);
  const int32x4_t shift = vldrwq_s32(&rq[12]);
  const int32_t off = p->input_offset;
  const int32_t zp = p->output_offset;
  const int32_t lo = p->act_min;
  const int32_t hi = p->act_max;
  const bool k3 = (g->filter_h == 3) && (fw == 3) && (g->dilation_h == 1) && (g->dilation_w == 1);
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
        int32x4_t acc;
        if (rows_in && (ix0 >= 0) && ((ix0 + ix_span) < g->in_w)) {
          const int8_t* s = &in_b[(iy0 * row) + (ix0 * ch)];
          acc = folded;
          if (k3) {
            const int8_t* s1 = &s[row];
            const int8_t* s2 = &s1[row];
            acc = utvm_dw_mve_mla(acc, utvm_dw_mve_ld(s, pr, tail), vldrbq_s32(wb));
            acc = utvm_dw_mve_mla(acc, utvm_dw_mve_ld(&s[ch], pr, tail), vldrbq_s32(&wb[4]));
            acc = utvm_dw_mve_mla(acc, utvm_dw_mve_ld(&s[2 * ch], pr, tail), vldrbq_s32(&wb[8]));
            acc = utvm_dw_mve_mla(acc, utvm_dw_mve_ld(s1, pr, tail), vldrbq_s32(&wb[12]));
            acc = utvm_dw_mve_mla(acc, utvm_dw_mve_ld(&s1[ch], pr, tail), vldrbq_s32(&wb[16]));
            acc = utvm_dw_mve_mla(acc, utvm_dw_mve_ld(&s1[2 * ch], pr, tail), vldrbq_s32(&wb[20]));
            acc = utvm_dw_mve_mla(acc, utvm_dw_mve_ld(s2, pr, tail), vldrbq_s32(&wb[24]));
            acc = utvm_dw_mve_mla(acc, utvm_dw_mve_ld(&s2[ch], pr, tail), vldrbq_s32(&wb[28]));
            acc = utvm_dw_mve_mla(acc, utvm_dw_mve_ld(&s2[2 * ch], pr, tail), vldrbq_s32(&wb[32]));
          } else {
            const int8_t* pw = wb;
            for (ky = 0; ky < g->filter_h; ++ky) {
              const int8_t* sr = &s[ky * g->dilation_h * row];
              for (kx = 0; kx < fw; ++kx) {
                acc = utvm_dw_mve_mla(acc, utvm_dw_mve_ld(&sr[kx * g->dilation_w * ch], pr, tail), vldrbq_s32(pw));
                pw = &pw[4];
              }
            }
          }
        } else {
          /* a border pixel: the taps inside, with the input offset, from the model's bias */
          acc = bias;
          for (ky = 0; ky < g->filter_h; ++ky) {
            const int32_t iy = iy0 + (ky * g->dilation_h);
            if ((iy >= 0) && (iy < g->in_h)) {
              for (kx = 0; kx < fw; ++kx) {
                const int32_t ix = ix0 + (kx * g->dilation_w);
                if ((ix >= 0) && (ix < g->in_w)) {
                  const int32x4_t xv = vaddq_n_s32(utvm_dw_mve_ld(&in_b[(iy * row) + (ix * ch)], pr, tail), off);
                  acc = utvm_dw_mve_mla(acc, xv, vldrbq_s32(&wb[((ky * fw) + kx) * 4]));
                }
              }
            }
          }
        }
        acc = utvm_mve_rq(acc, mult, shift, zp, lo, hi);
        if (tail) {
          vstrbq_p_s32(&out[yo], acc, pr);
        } else {
          vstrbq_s32(&out[yo], acc);
        }
        yo += ch;
      }
    }
  }
}

static UTVM_MVE_HOT void utvm_dw_mve_full(const utvm_dw_mve_params* p, const int8_t* in, const int8_t* wb,
                                          const int32_t* rq, int8_t* out, int32_t c0) {
  utvm_dw_mve_block(p, in, wb, rq, out, c0, false);
}

static UTVM_MVE_NOINLINE void utvm_dw_mve_tail(const utvm_dw_mve_params* p, const int8_t* in, const int8_t* wb,
                                               const int32_t* rq, int8_t* out, int32_t c0) {
  utvm_dw_mve_block(p, in, wb, rq, out, c0, true);
}

/* w: per block of 4 channels filter_h * filter_w * 4 bytes; rq: 16 int32 per block (above). */
static void utvm_depthwise_conv2d_s8_mve(const utvm_dw_mve_params* p, const int8_t* in, const int8_t* w,
                                         const int32_t* rq, int8_t* out) {
  const utvm_conv_geom* g = &p->g;
  const int32_t taps4 = g->filter_h * g->filter_w * 4;
  int32_t c0;
  int32_t k = 0;
  for (c0 = 0; c0 < g->out_c; c0 += 4) {
    if ((g->out_c - c0) >= 4) {
      utvm_dw_mve_full(p, in, &w[k * taps4], &rq[k * 16], out, c0);
    } else {
      utvm_dw_mve_tail(p, in, &w[k * taps4], &rq[k * 16], out, c0);
    }
    ++k;
  }
}

#endif /* UTVM_KERNELS_ARM_MVE_DEPTHWISE_CONV2D_S8_MVE_H_ */
