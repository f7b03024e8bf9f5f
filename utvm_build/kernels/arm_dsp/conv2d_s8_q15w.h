/* utvm-build kernels, DSP extension: CONV_2D, int8 (TFLite ConvPerChannel), one group, with the
 * weights pre-widened to int16 at compile time (--optimize speed, and balanced for the layers
 * where it pays: ops/conv.py). The same windows and requantization as conv2d_s8_q15.h
 * (conv2d_q15_window.h); the inner loop loads weight lanes instead of extending weight bytes:
 * per 4 window bytes, two output channels and two pixels, 4 LDRD and 8 SMLAD (conv2d_s8_q15.h:
 * 3 LDRD, 4 SXTB16, 8 SMLAD), with post-indexed loads (inline assembly under GCC and Clang: GCC
 * adds the pointers separately; other compilers get the C loop).
 *
 * Data the generator prepares (ops/conv.py, conv_q15_call):
 * - w: int32 words; per pair of output channels (c, c + 1), per 4 window bytes k..k+3: channel c's
 *   (w[k], w[k+2]) and (w[k+1], w[k+3]) as int16 lanes (low lane first), then channel c + 1's; the
 *   window zero-padded to depth4 bytes, an odd last channel paired with a copy of itself;
 * - bias, rq: as conv2d_s8_q15.h.
 * Scratch (kernel_table.py rule): as conv2d_s8_q15.h.
 */
#ifndef UTVM_KERNELS_ARM_DSP_CONV2D_S8_Q15W_H_
#define UTVM_KERNELS_ARM_DSP_CONV2D_S8_Q15W_H_

#if !defined(__ARM_FEATURE_DSP) || (__ARM_FEATURE_DSP != 1)
#error "utvm-build: these kernels were generated for a DSP target (--target cortex-m4/m7/m33/m55) but compiled without the DSP extension; use --target generic"
#endif

#include "conv2d_q15_window.h"

/* The C form of UTVM_CONV2D_Q15W_STEP: returns the next step's weights. */
static UTVM_DSP_INLINE const int32_t* utvm_conv2d_q15w_cstep(const int32_t* px, const int32_t* pw, int32_t* a0,
                                                             int32_t* a1, int32_t* b0, int32_t* b1) {
  *a0 = __smlad(px[1], pw[1], __smlad(px[0], pw[0], *a0));
  *b0 = __smlad(px[3], pw[1], __smlad(px[2], pw[0], *b0));
  *a1 = __smlad(px[1], pw[3], __smlad(px[0], pw[2], *a1));
  *b1 = __smlad(px[3], pw[3], __smlad(px[2], pw[2], *b1));
  return &pw[4];
}

/* One step (conv2d_q15_window.h UTVM_CONV2D_Q15_SUMS): 4 window bytes of both pixels (t0, t1:
 * pixel a's two words; t2, t3: pixel b's) and both channels (t4, t5: channel 0's two lane words,
 * then channel 1's), 16 multiply-accumulates in 12 instructions, 26 per 32 unrolled; three
 * instructions a line. */
#define UTVM_CONV2D_Q15W_STEP                                                                                      \
  "ldrd %[t0], %[t1], [%[px]], #8\n\tldrd %[t4], %[t5], [%[pw]], #8\n\tsmlad %[a0], %[t0], %[t4], %[a0]\n\t"      \
  "smlad %[a0], %[t1], %[t5], %[a0]\n\tldrd %[t2], %[t3], [%[px]], #8\n\tsmlad %[b0], %[t2], %[t4], %[b0]\n\t"    \
  "smlad %[b0], %[t3], %[t5], %[b0]\n\tldrd %[t4], %[t5], [%[pw]], #8\n\tsmlad %[a1], %[t0], %[t4], %[a1]\n\t"    \
  "smlad %[a1], %[t1], %[t5], %[a1]\n\tsmlad %[b1], %[t2], %[t4], %[b1]\n\tsmlad %[b1], %[t3], %[t5], %[b1]\n\t"

/* The channel-pair sums, the pixel pair's outputs, a copy per requantization mode (GCC: -O2 for
 * the fast ones): utvm_conv2d_q15w_pair_full / _fast / _any (conv2d_q15_window.h). */
UTVM_CONV2D_Q15_KERNEL(utvm_conv2d_q15w, UTVM_CONV2D_Q15W_STEP, utvm_conv2d_q15w_cstep)

/* 1x1 filters with 8 input channels, stride 1, no padding (MobileNet's second pointwise layer):
 * per pixel its 8 inputs as four int16 lane words with the offset added, kept in registers, then
 * every channel pair from its 8 weight lane words, 8 SMLAD and the two requantizations (25
 * instructions per output on VWW, half of them the requantization; conv2d_s8_q15.h's path, which
 * extends its weights once per channel and the input once per output, 28). UTVM_DSP_RQ_FULL only,
 * as there. */
static UTVM_DSP_HOT void utvm_conv2d_q15w_1x1c8_full(const utvm_conv2d_q15_params* p, const int8_t* in,
                                                     const int32_t* w, const int32_t* bias, const int32_t* rq,
                                                     int8_t* out) {
  const utvm_conv_geom* g = &p->g;
  const int32_t n = g->batches * g->out_h * g->out_w;
  const int32_t out_c = g->out_c;
  const int32_t pairs = out_c >> 1;
  const uint32_t off16 = (uint32_t)p->input_offset & 0xFFFFu;
  const int32_t offs = (int32_t)((off16 << 16u) | off16);
  const int8_t* px = in;
  int8_t* py = out;
  int32_t i;
  for (i = 0; i < n; ++i) {
    const int32_t v0 = utvm_dsp_ld4(px);
    const int32_t v1 = utvm_dsp_ld4(&px[4]);
    const int32_t xe0 = __sxtab16(offs, v0);
    const int32_t xo0 = utvm_dsp_odd_add(offs, v0);
    const int32_t xe1 = __sxtab16(offs, v1);
    const int32_t xo1 = utvm_dsp_odd_add(offs, v1);
    const int32_t* pw = w;
    const int32_t* pb = bias;
    const int32_t* pr = rq;
    int32_t k;
    for (k = 0; k < pairs; ++k) {
      int32_t a0 = __smlad(xe0, pw[0], pb[0]);
      int32_t a1 = __smlad(xe0, pw[2], pb[1]);
      a0 = __smlad(xo0, pw[1], a0);
      a1 = __smlad(xo0, pw[3], a1);
      a0 = __smlad(xe1, pw[4], a0);
      a1 = __smlad(xe1, pw[6], a1);
      a0 = __smlad(xo1, pw[5], a0);
      a1 = __smlad(xo1, pw[7], a1);
      py[2 * k] = utvm_dsp_rq3(a0, UTVM_DSP_RQ_FULL, pr[0], pr[1], pr[2], 0, -128, 127);
      py[(2 * k) + 1] = utvm_dsp_rq3(a1, UTVM_DSP_RQ_FULL, pr[3], pr[4], pr[5], 0, -128, 127);
      pw = &pw[8];
      pb = &pb[2];
      pr = &pr[6];
    }
    if ((out_c & 1) != 0) { /* the last channel: its pair's second channel is a copy */
      int32_t a0 = __smlad(xe0, pw[0], pb[0]);
      a0 = __smlad(xo0, pw[1], a0);
      a0 = __smlad(xe1, pw[4], a0);
      a0 = __smlad(xo1, pw[5], a0);
      py[out_c - 1] = utvm_dsp_rq3(a0, UTVM_DSP_RQ_FULL, pr[0], pr[1], pr[2], 0, -128, 127);
    }
    px = &px[8];
    py = &py[out_c];
  }
}

/* scratch and rq: as utvm_conv2d_s8_q15. */
static void utvm_conv2d_s8_q15w(const utvm_conv2d_q15_params* p, const int8_t* in, const int32_t* w,
                                const int32_t* bias, const int32_t* rq, void* scratch, int8_t* out) {
  const utvm_conv_geom* g = &p->g;
  int32_t pix = 0;
  if (utvm_conv2d_q15_is_1x1c8(p)) {
    utvm_conv2d_q15w_1x1c8_full(p, in, w, bias, rq, out);
    pix = g->batches * g->out_h * g->out_w; /* done */
  }
  UTVM_CONV2D_Q15_RUN(utvm_conv2d_q15w_pair, p, in, w, bias, rq, scratch, out, pix);
}

#endif /* UTVM_KERNELS_ARM_DSP_CONV2D_S8_Q15W_H_ */
