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

/* One step (conv2d_q15_window.h UTVM_CONV2D_Q15_SUMS through UTVM_CONV2D_Q15_ASM_LDM): the 4
 * input words of both pixels by one LDM (t2, t3: pixel a's even and odd lanes, t4, t5: pixel
 * b's; 5 cycles on the Cortex-M4, two LDRD: 6), then per channel its two lane words by a
 * post-indexed LDRD (t0, t1) and 4 SMLAD: 16 multiply-accumulates in 11 instructions and 19
 * cycles (four LDRD: 12 instructions, 20 cycles). Three instructions a line. */
#define UTVM_CONV2D_Q15W_STEP                                                                                    \
  "ldmia %[px]!, {%[t2], %[t3], %[t4], %[t5]}\n\tldrd %[t0], %[t1], [%[pw]], #8\n\t"                            \
  "smlad %[a0], %[t2], %[t0], %[a0]\n\tsmlad %[a0], %[t3], %[t1], %[a0]\n\tsmlad %[b0], %[t4], %[t0], %[b0]\n\t" \
  "smlad %[b0], %[t5], %[t1], %[b0]\n\tldrd %[t0], %[t1], [%[pw]], #8\n\tsmlad %[a1], %[t2], %[t0], %[a1]\n\t"   \
  "smlad %[a1], %[t3], %[t1], %[a1]\n\tsmlad %[b1], %[t4], %[t0], %[b1]\n\tsmlad %[b1], %[t5], %[t1], %[b1]\n\t"

/* The same step for the general windows (filters larger than 1x1, conv2d_s8_q15w below; through
 * UTVM_CONV2D_Q15_ASM): the words loaded four at a time by single LDR, which the Cortex-M4
 * pipelines (one cycle each after the first: 5 for four words), the pointers advanced by the
 * post-indexed one of each group: the even lanes (t0, t1: channel 0's and 1's weight words; t2,
 * t3: pixel a's and b's input words), 4 SMLAD, then the odd lanes the same way: 16 instructions
 * and 18 cycles per 16 multiply-accumulates. The 1x1 layers keep the LDM form (11 instructions, 19
 * cycles). Three instructions a line. */
#define UTVM_CONV2D_Q15WR_STEP                                                                                  \
  "ldr %[t1], [%[pw], #8]\n\tldr %[t0], [%[pw]], #16\n\tldr %[t3], [%[px], #8]\n\t"                         \
  "ldr %[t2], [%[px]], #16\n\tsmlad %[a0], %[t2], %[t0], %[a0]\n\tsmlad %[a1], %[t2], %[t1], %[a1]\n\t"       \
  "smlad %[b0], %[t3], %[t0], %[b0]\n\tsmlad %[b1], %[t3], %[t1], %[b1]\n\tldr %[t0], [%[pw], #-12]\n\t"      \
  "ldr %[t1], [%[pw], #-4]\n\tldr %[t2], [%[px], #-12]\n\tldr %[t3], [%[px], #-4]\n\t"                       \
  "smlad %[a0], %[t2], %[t0], %[a0]\n\tsmlad %[a1], %[t2], %[t1], %[a1]\n\tsmlad %[b0], %[t3], %[t0], %[b0]\n\t" \
  "smlad %[b1], %[t3], %[t1], %[b1]\n\t"

/* The channel-pair sums, the pixel pair's outputs, a copy per requantization mode (GCC: -O2 for
 * the fast ones): utvm_conv2d_q15w_pair_full / _fast / _any (conv2d_q15_window.h). */
UTVM_CONV2D_Q15_KERNEL(utvm_conv2d_q15w, UTVM_CONV2D_Q15_ASM_LDM, UTVM_CONV2D_Q15W_STEP, utvm_conv2d_q15w_cstep)
UTVM_CONV2D_Q15_KERNEL(utvm_conv2d_q15wr, UTVM_CONV2D_Q15_ASM, UTVM_CONV2D_Q15WR_STEP, utvm_conv2d_q15w_cstep)

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
  if ((g->filter_h * g->filter_w) == 1) {
    utvm_conv2d_q15_run(UTVM_CONV2D_Q15_PICK(utvm_conv2d_q15w_pair, p), p, in, w, bias, rq, scratch, out, pix);
  } else {
    utvm_conv2d_q15_run(UTVM_CONV2D_Q15_PICK(utvm_conv2d_q15wr_pair, p), p, in, w, bias, rq, scratch, out, pix);
  }
}

#endif /* UTVM_KERNELS_ARM_DSP_CONV2D_S8_Q15W_H_ */
