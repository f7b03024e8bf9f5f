/* utvm-build kernels, DSP extension: CONV_2D, int8 (TFLite ConvPerChannel), one group, any
 * strides, dilations and padding. A kernel only the DSP targets have: the generator calls it
 * instead of utvm_conv2d_s8 / utvm_conv2d_s8_generic when the target's kernel table provides it
 * (ops/conv.py), with the weights re-laid out for it at compile time.
 *
 * Two output pixels at a time: both windows are copied once into the operator's scratch memory
 * as int16 lanes with the input offset added (q15, CMSIS-NN's im2col), taps outside the image as
 * 0 -- exactly the reference's sum, which skips them -- so interior and border pixels are the same
 * code and the accumulators start from the model's own bias. Then, two output channels at a time,
 * per 4 window bytes: one LDRD of two weight words, SXTB16 of their even and odd bytes, four words
 * of input (LDM) and 8 SMLAD: 16 multiply-accumulates in about 16 instructions.
 *
 * Data the generator prepares (ops/conv.py, conv_q15_weights):
 * - w: int32 words; per pair of output channels (c, c + 1), per 4 window bytes k..k+3, the word
 *   of channel c then the word of channel c + 1 (little-endian bytes of the [OC][KH][KW][IC]
 *   weights), the window zero-padded to depth4 bytes; an odd last channel is paired with a copy
 *   of itself (its outputs are written twice, equal);
 * - bias: the model's bias (zeros without one), one per output channel (an odd count: the last
 *   one twice);
 * - mult/shift: TFLite QuantizeMultiplier per channel; rq_fast = 1 when every shift is in
 *   -31..-1 (dsp_s8.h's SMLAL form for every output, no per-output branch), else every output
 *   takes common.h's arithmetic.
 * Scratch (kernel_table.py rule): 5 * depth4 + 4 bytes (the q15 windows, a byte staging window
 * for in_c not a multiple of 4, 4 to align).
 *
 * An odd last pixel is computed as a pair with the pixel before it (or itself): the repeated
 * outputs are written twice with equal values.
 */
#ifndef UTVM_KERNELS_ARM_DSP_CONV2D_S8_Q15_H_
#define UTVM_KERNELS_ARM_DSP_CONV2D_S8_Q15_H_

#if !defined(__ARM_FEATURE_DSP) || (__ARM_FEATURE_DSP != 1)
#error "utvm-build: these kernels were generated for a DSP target (--target cortex-m4/m7/m33/m55) but compiled without the DSP extension; use --target generic"
#endif

#include "conv2d_q15_1x1.h" /* (and conv2d_q15_window.h) */

/* One step of the pair loop (conv2d_q15_window.h UTVM_CONV2D_Q15_SUMS): both weight words (t1:
 * channel 1's, t0: channel 0's) and both pixels' even-lane input words (t3: pixel b's, t2: pixel
 * a's) by four single LDR (the Cortex-M4 pipelines neighbouring loads: 5 cycles, against 6 for
 * two LDRD), the pointers advanced by the post-indexed one of each pair; the weights' even lanes
 * (t4, t5), 4 SMLAD; the odd-lane input words into t2, t3, the weights' odd lanes in place, 4
 * SMLAD: 20 cycles per 16 multiply-accumulates (three LDRD: 21). */
#define UTVM_CONV2D_Q15_STEP                   \
  "ldr %[t1], [%[pw], #4]\n\t"                 \
  "ldr %[t0], [%[pw]], #8\n\t"                 \
  "ldr %[t3], [%[px], #8]\n\t"                 \
  "ldr %[t2], [%[px]], #16\n\t"                \
  "sxtb16 %[t4], %[t0]\n\t"                    \
  "sxtb16 %[t5], %[t1]\n\t"                    \
  "smlad %[a0], %[t2], %[t4], %[a0]\n\t"       \
  "smlad %[a1], %[t2], %[t5], %[a1]\n\t"       \
  "smlad %[b0], %[t3], %[t4], %[b0]\n\t"       \
  "smlad %[b1], %[t3], %[t5], %[b1]\n\t"       \
  "ldr %[t2], [%[px], #-12]\n\t"               \
  "ldr %[t3], [%[px], #-4]\n\t"                \
  "sxtb16 %[t0], %[t0], ror #8\n\t"            \
  "sxtb16 %[t1], %[t1], ror #8\n\t"            \
  "smlad %[a0], %[t2], %[t0], %[a0]\n\t"       \
  "smlad %[a1], %[t2], %[t1], %[a1]\n\t"       \
  "smlad %[b0], %[t3], %[t0], %[b0]\n\t"       \
  "smlad %[b1], %[t3], %[t1], %[b1]\n\t"

/* 4 window bytes of two channels (weight words pw[0], pw[1]) and two pixels (q15 words px[0..1],
 * px[2..3]): 8 SMLAD; returns the next step's weights (the C form of UTVM_CONV2D_Q15_STEP). */
static UTVM_DSP_INLINE const int32_t* utvm_conv2d_q15_step(const int32_t* q, const int32_t* qb, int32_t k,
                                                           const int32_t* pw, int32_t* a0, int32_t* a1, int32_t* b0,
                                                           int32_t* b1) {
  const int32_t* const px = &q[4 * k];
  (void)qb; /* pixel b's words follow pixel a's */
  const int32_t xa_e = px[0];
  const int32_t xa_o = px[1];
  const int32_t xb_e = px[2];
  const int32_t xb_o = px[3];
  int32_t v = pw[0];
  int32_t u = pw[1];
  int32_t ve = utvm_dsp_even(v);
  v = utvm_dsp_odd(v);
  *a0 = __smlad(ve, xa_e, *a0);
  *b0 = __smlad(ve, xb_e, *b0);
  *a0 = __smlad(v, xa_o, *a0);
  *b0 = __smlad(v, xb_o, *b0);
  ve = utvm_dsp_even(u);
  u = utvm_dsp_odd(u);
  *a1 = __smlad(ve, xa_e, *a1);
  *b1 = __smlad(ve, xb_e, *b1);
  *a1 = __smlad(u, xa_o, *a1);
  *b1 = __smlad(u, xb_o, *b1);
  return &pw[2];
}

/* The channel-pair sums, the pixel pair's outputs, a copy per requantization mode (GCC: -O2 for
 * the fast ones): utvm_conv2d_q15_pair_full / _fast / _any (conv2d_q15_window.h). */
UTVM_CONV2D_Q15_KERNEL(utvm_conv2d_q15, UTVM_CONV2D_Q15_SUMS, UTVM_CONV2D_Q15_ASM, UTVM_CONV2D_Q15_STEP, utvm_conv2d_q15_step)

/* 1x1 layers (ops/conv.py conv_q15_1x1_layer): w, the channel pairs' data with int8 weights
 * (conv2d_q15_1x1.h); scratch: 6 * in_c + 4 bytes. UTVM_DSP_ENTRY: a model may use only one of this
 * file's two entry points. */
static UTVM_DSP_HOT_ENTRY void utvm_conv2d_s8_q15_1x1(const utvm_conv2d_q15_params* p, const int8_t* in,
                                                      const int32_t* w, void* scratch, int8_t* out) {
  utvm_conv2d_q15_1x1_run(p, in, w, scratch, out, false);
}

/* scratch: at least 5 * depth4 + 8 * out_c + 12 bytes (any alignment); rq: 3 int32 per channel
 * (dsp_s8.h utvm_dsp_rq3). */
static UTVM_DSP_ENTRY void utvm_conv2d_s8_q15(const utvm_conv2d_q15_params* p, const int8_t* in, const int32_t* w,
                                              const int32_t* bias, const int32_t* rq, void* scratch, int8_t* out) {
  utvm_conv2d_q15_run(UTVM_CONV2D_Q15_PICK(utvm_conv2d_q15_pair, p), 4, p, in, w, bias, rq, scratch, out, 0);
}

#endif /* UTVM_KERNELS_ARM_DSP_CONV2D_S8_Q15_H_ */
