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

#include "conv2d_q15_1x1.h" /* (and conv2d_q15_window.h) */

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

/* scratch and rq: as utvm_conv2d_s8_q15. */
static UTVM_DSP_ENTRY void utvm_conv2d_s8_q15w(const utvm_conv2d_q15_params* p, const int8_t* in, const int32_t* w,
                                               const int32_t* bias, const int32_t* rq, void* scratch, int8_t* out) {
  UTVM_CONV2D_Q15_RUN(utvm_conv2d_q15w_pair, p, in, w, bias, rq, scratch, out, 0);
}

/* 1x1 layers (ops/conv.py conv_q15_1x1_layer): w, the channel pairs' data with int16 lane weights
 * (conv2d_q15_1x1.h); scratch: 4 * in_c + 4 bytes. UTVM_DSP_ENTRY: a model may use only one of this
 * file's two entry points. */
static UTVM_DSP_HOT_ENTRY void utvm_conv2d_s8_q15w_1x1(const utvm_conv2d_q15_params* p, const int8_t* in,
                                                       const int32_t* w, void* scratch, int8_t* out) {
  utvm_conv2d_q15_1x1_run(p, in, w, scratch, out, true);
}

#endif /* UTVM_KERNELS_ARM_DSP_CONV2D_S8_Q15W_H_ */
