/* utvm-build kernels, Helium (MVE): DEPTHWISE_CONV_2D 16x8 (int16 activations, int8 weights, int64
 * bias); replaces kernels/depthwise_conv2d_s16.h (same function, same arguments, same results).
 *
 * Depth multiplier 1 and at most 256 taps: blocks of 8 channels, the block outer and the output
 * pixels inner (its requantization constants made once): per tap inside the image VLDRH of the
 * input, VLDRB.S16 of the weights, VMULLB / VMULLT and two VADD into the even / odd channels'
 * int32 sums (MVE has no lane-by-lane multiply-accumulate; the last block predicated). A product
 * is at most 2^22 in magnitude (-32768 * -128), so 256 taps sum to at most 2^30: the int32 lanes
 * hold the reference's int64 sum exactly. Requantization on 4 lanes per half (mve_s16.h
 * utvm_mve_rq64: VADD of the bias, VRMULH, the clamp; the halves narrowed back into channel order
 * by VMOVNB / VMOVNT, one predicated store) when utvm_mve_s16_vec_rq allows it (every shift in
 * -17..-1, every bias within 2^31 - 1 - taps * 2^22: the sum with the bias fits int32), else per
 * lane with conv.h's utvm_conv_s16_out. Other layers (depth multiplier above 1, larger windows)
 * take the generic loop.
 *
 * Generic description: DEPTHWISE_CONV_2D, int16 activations with int8 weights (16x8; TFLite
 * DepthwiseConvPerChannel with an int64 accumulator). Zero points of input and output are 0.
 */
#ifndef UTVM_KERNELS_DEPTHWISE_CONV2D_S16_H_
#define UTVM_KERNELS_DEPTHWISE_CONV2D_S16_H_

#if !defined(__ARM_FEATURE_MVE) || ((__ARM_FEATURE_MVE & 1) == 0)
#error "utvm-build: these kernels were generated for a Helium target (--target cortex-m55/m85/m52) but compiled without MVE; use --target cortex-m33 or generic"
#endif

#include "conv.h"
#include "mve_s16.h"

/* Depth multiplier 1, at most 256 taps: see above. */
static UTVM_MVE_HOT void utvm_depthwise_conv2d_s16_mve(const utvm_conv_q_params* p, const int16_t* in,
                                                       const int8_t* w, const int64_t* bias, const int32_t* mult,
                                                       const int32_t* shift, int16_t* out) {
  const utvm_conv_geom* g = &p->g;
  const int32_t ch = g->out_c;
  const bool vec_rq = utvm_mve_s16_vec_rq(false, bias, shift, ch, g->filter_h * g->filter_w);
  const int32_t xstep = g->dilation_w * g->in_c;     /* input elements from one tap to the next */
  const int32_t xrow = g->dilation_h * g->in_w * g->in_c; /* ... from one filter row to the next */
  const int32_t wrow = g->filter_w * ch;
  int32_t c;
  int32_t b;
  int32_t oy;
  int32_t ox;
  int32_t ky;
  int32_t kx;
  int32_t k;
  for (c = 0; c < ch; c += 8) {
    const int32_t left = utvm_min_i32(8, ch - c);
    const mve_pred16_t pc = vctp16q((uint32_t)left);
    /* the block's bias and VRMULH operands, [0]: its even channels, [1]: its odd ones */
    int32x4_t bv[2];
    int32x4_t rq[2];
    int32_t half;
    for (half = 0; half < 2; ++half) {
      int32_t b4[4] = {0, 0, 0, 0};
      int32_t m4[4] = {0, 0, 0, 0};
      int32_t s4[4] = {-1, -1, -1, -1};
      for (k = half; vec_rq && (k < left); k += 2) {
        b4[k / 2] = (bias != NULL) ? (int32_t)bias[c + k] : 0; /* fits int32: checked */
        m4[k / 2] = mult[c + k];
        s4[k / 2] = shift[c + k];
      }
      bv[half] = vld1q_s32(b4);
      rq[half] = utvm_mve_rq64_mult(vld1q_s32(m4), vld1q_s32(s4));
    }
    for (b = 0; b < g->batches; ++b) {
      for (oy = 0; oy < g->out_h; ++oy) {
        const int32_t iy0 = (oy * g->stride_h) - g->pad_h;
        int32_t ky0;
        int32_t ky1;
        utvm_conv_taps(iy0, g->dilation_h, g->filter_h, g->in_h, &ky0, &ky1);
        for (ox = 0; ox < g->out_w; ++ox) {
          const int32_t ix0 = (ox * g->stride_w) - g->pad_w;
          int16_t* const y = &out[((((b * g->out_h) + oy) * g->out_w + ox) * ch) + c];
          int32x4_t even = vdupq_n_s32(0);
          int32x4_t odd = vdupq_n_s32(0);
          int32_t kx0 = 0;
          int32_t kx1 = g->filter_w;
          int32_t xo;
          int32_t wo;
          if ((ix0 < 0) || ((ix0 + ((g->filter_w - 1) * g->dilation_w)) >= g->in_w)) {
            utvm_conv_taps(ix0, g->dilation_w, g->filter_w, g->in_w, &kx0, &kx1);
          }
          /* the first tap inside the image: input and weight offsets (no pointer outside the arrays) */
          xo = (((((b * g->in_h) + iy0 + (ky0 * g->dilation_h)) * g->in_w) + ix0 + (kx0 * g->dilation_w)) * g->in_c) +
               c;
          wo = (((ky0 * g->filter_w) + kx0) * ch) + c;
          for (ky = ky0; (ky < ky1) && (kx1 > kx0); ++ky) { /* no pointer formed without a tap */
            const int16_t* const xr = &in[xo];
            const int8_t* const wr = &w[wo];
            if (left == 8) { /* a whole block: no predicated loads (a VPST each) */
              for (kx = 0; kx < (kx1 - kx0); ++kx) {
                const int16x8_t xv = vldrhq_s16(&xr[kx * xstep]);
                const int16x8_t wv = vldrbq_s16(&wr[kx * ch]);
                even = vaddq_s32(even, vmullbq_int_s16(xv, wv));
                odd = vaddq_s32(odd, vmulltq_int_s16(xv, wv));
                UTVM_MVE_ORDER(even, odd);
              }
            } else {
              for (kx = 0; kx < (kx1 - kx0); ++kx) {
                const int16x8_t xv = vldrhq_z_s16(&xr[kx * xstep], pc);
                const int16x8_t wv = vldrbq_z_s16(&wr[kx * ch], pc);
                even = vaddq_s32(even, vmullbq_int_s16(xv, wv));
                odd = vaddq_s32(odd, vmulltq_int_s16(xv, wv));
                UTVM_MVE_ORDER(even, odd);
              }
            }
            xo += xrow;
            wo += wrow;
          }
          if (vec_rq) {
            const int32x4_t re = utvm_mve_rq64(vaddq_s32(even, bv[0]), rq[0], p->act_min, p->act_max);
            const int32x4_t ro = utvm_mve_rq64(vaddq_s32(odd, bv[1]), rq[1], p->act_min, p->act_max);
            vstrhq_p_s16(y, vmovntq_s32(vmovnbq_s32(vdupq_n_s16(0), re), ro), pc);
          } else {
            int32_t s[2][4];
            vst1q_s32(s[0], even);
            vst1q_s32(s[1], odd);
            for (k = 0; k < left; ++k) {
              y[k] = utvm_conv_s16_out(p, bias, mult, shift, c + k, (int64_t)s[k % 2][k / 2]);
            }
          }
        }
      }
    }
  }
}

/* bias: int64, may be NULL. */
static void utvm_depthwise_conv2d_s16(const utvm_conv_q_params* p, const int16_t* in,
                                      const int8_t* w, const int64_t* bias, const int32_t* mult,
                                      const int32_t* shift, int16_t* out) {
  if ((p->g.depth_multiplier == 1) && ((p->g.filter_h * p->g.filter_w) <= 256)) {
    utvm_depthwise_conv2d_s16_mve(p, in, w, bias, mult, shift, out);
  } else {
    UTVM_DW_WALK(p, in, w, bias, mult, shift, out, int64_t, 0, utvm_conv_s16_mac, utvm_conv_s16_out);
  }
}

#endif /* UTVM_KERNELS_DEPTHWISE_CONV2D_S16_H_ */
