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

#include "conv2d_q15_window.h"

/* The unrolled loop of utvm_conv2d_q15_pair in inline assembly (GCC and Clang; 13 registers, so a
 * frame pointer may keep r7): post-indexed loads, so no pointer adds; 32 instructions per 32
 * multiply-accumulates (GCC's C loop: 34). One step: both weight words, their four lanes, then
 * pixel a's two words and pixel b's into the same two registers. */
#if defined(__GNUC__) || defined(__clang__)
#define UTVM_CONV2D_Q15_ASM 1
#define UTVM_CONV2D_Q15_STEP                       \
  "ldrd %[v], %[u], [%[pw]], #8\n\t"               \
  "sxtb16 %[ve], %[v]\n\t"                         \
  "sxtb16 %[v], %[v], ror #8\n\t"                  \
  "sxtb16 %[ue], %[u]\n\t"                         \
  "sxtb16 %[u], %[u], ror #8\n\t"                  \
  "ldrd %[x0], %[x1], [%[px]], #8\n\t"             \
  "smlad %[a0], %[ve], %[x0], %[a0]\n\t"           \
  "smlad %[a0], %[v], %[x1], %[a0]\n\t"            \
  "smlad %[a1], %[ue], %[x0], %[a1]\n\t"           \
  "smlad %[a1], %[u], %[x1], %[a1]\n\t"            \
  "ldrd %[x0], %[x1], [%[px]], #8\n\t"             \
  "smlad %[b0], %[ve], %[x0], %[b0]\n\t"           \
  "smlad %[b0], %[v], %[x1], %[b0]\n\t"            \
  "smlad %[b1], %[ue], %[x0], %[b1]\n\t"           \
  "smlad %[b1], %[u], %[x1], %[b1]\n\t"
#else
#define UTVM_CONV2D_Q15_ASM 0
#endif

/* 4 window bytes of two channels (weight words pw[0], pw[1]) and two pixels (q15 words px[0..1],
 * px[2..3]): 8 SMLAD. */
static UTVM_DSP_INLINE void utvm_conv2d_q15_step(const int32_t* px, const int32_t* pw, int32_t* a0, int32_t* a1,
                                                 int32_t* b0, int32_t* b1) {
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
}

/* The sums of a channel pair over the window pair in q (steps of 4 window bytes) into a0..b1;
 * returns the next channel pair's weights. */
static UTVM_DSP_INLINE const int32_t* utvm_conv2d_q15_sums(const int32_t* q, const int32_t* w, int32_t steps,
                                                           int32_t* a0, int32_t* a1, int32_t* b0, int32_t* b1) {
  const int32_t* px = q;
  const int32_t* pw = w;
  int32_t n = steps >> 1;
  if ((steps & 1) != 0) {
    utvm_conv2d_q15_step(px, pw, a0, a1, b0, b1);
    pw = &pw[2];
    px = &px[4];
  }
#if UTVM_CONV2D_Q15_ASM
  if (n != 0) {
    int32_t s0 = *a0;
    int32_t s1 = *a1;
    int32_t t0 = *b0;
    int32_t t1 = *b1;
    int32_t v;
    int32_t u;
    int32_t ve;
    int32_t ue;
    int32_t x0;
    int32_t x1;
    __asm__("1:\n\t" UTVM_CONV2D_Q15_STEP UTVM_CONV2D_Q15_STEP
            "subs %[n], %[n], #1\n\t"
            "bne 1b"
            : [a0] "+r"(s0), [a1] "+r"(s1), [b0] "+r"(t0), [b1] "+r"(t1), [px] "+r"(px), [pw] "+r"(pw),
              [n] "+r"(n), [v] "=&r"(v), [u] "=&r"(u), [ve] "=&r"(ve), [ue] "=&r"(ue), [x0] "=&r"(x0),
              [x1] "=&r"(x1)
            :
            : "cc", "memory");
    *a0 = s0;
    *a1 = s1;
    *b0 = t0;
    *b1 = t1;
  }
#else
  while (n != 0) {
    utvm_conv2d_q15_step(px, pw, a0, a1, b0, b1);
    utvm_conv2d_q15_step(&px[4], &pw[2], a0, a1, b0, b1);
    pw = &pw[4];
    px = &px[8];
    --n;
  }
#endif
  return pw;
}

static UTVM_DSP_INLINE void utvm_conv2d_q15_pair(const utvm_conv2d_q15_params* p, const int32_t* q,
                                                 const int32_t* w, const int32_t* bias, const int32_t* rq,
                                                 int32_t* acc, int8_t* ya, int8_t* yb, int32_t mode) {
  UTVM_CONV2D_Q15_PAIR(utvm_conv2d_q15_sums, p, q, w, bias, rq, acc, ya, yb, mode);
}

/* The loop specialized for each requantization mode (GCC: -O2 for the fast ones). */
UTVM_CONV2D_Q15_MODES(utvm_conv2d_q15_pair)

/* 1x1 filters with 8 input channels, stride 1, no padding (e.g. MobileNet's second pointwise
 * layer): few multiply-accumulates per output, so one output channel at a time over every pixel,
 * its 8 weights as four int16 lane words in registers, the input converted on the fly (two words
 * per pixel, SXTAB16 with the offset): about 20 instructions per output instead of the pair
 * loop's per-channel-pair and per-window overhead. Taken with UTVM_DSP_RQ_FULL only (one copy
 * of the loop: flash). */
static UTVM_DSP_INLINE void utvm_conv2d_q15_1x1c8(const utvm_conv2d_q15_params* p, const int8_t* in,
                                                  const int32_t* w, const int32_t* bias, const int32_t* rq,
                                                  int8_t* out, int32_t mode) {
  const utvm_conv_geom* g = &p->g;
  const int32_t n = g->batches * g->out_h * g->out_w;
  const int32_t out_c = g->out_c;
  const uint32_t off16 = (uint32_t)p->input_offset & 0xFFFFu;
  const int32_t offs = (int32_t)((off16 << 16u) | off16);
  const int32_t zp = p->output_offset;
  const int32_t lo = p->act_min;
  const int32_t hi = p->act_max;
  int32_t c;
  int32_t i;
  for (c = 0; c < out_c; ++c) {
    /* channel c's two weight words: per channel pair, per 4 bytes, the word of each channel */
    const int32_t* pw = &w[((c / 2) * 4) + (c & 1)];
    const int32_t we0 = utvm_dsp_even(pw[0]);
    const int32_t wo0 = utvm_dsp_odd(pw[0]);
    const int32_t we1 = utvm_dsp_even(pw[2]);
    const int32_t wo1 = utvm_dsp_odd(pw[2]);
    const int32_t b = bias[c];
    const int32_t m = rq[3 * c];
    const int32_t k = rq[(3 * c) + 1];
    const int32_t sh = rq[(3 * c) + 2];
    const int8_t* px = in;
    int8_t* const py = &out[c];
    int32_t yo = 0; /* an offset: no pointer past the output is formed */
    for (i = 0; i < n; ++i) {
      const int32_t v0 = utvm_dsp_ld4(px);
      const int32_t v1 = utvm_dsp_ld4(&px[4]);
      int32_t acc = __smlad(__sxtab16(offs, v0), we0, b);
      acc = __smlad(utvm_dsp_odd_add(offs, v0), wo0, acc);
      acc = __smlad(__sxtab16(offs, v1), we1, acc);
      acc = __smlad(utvm_dsp_odd_add(offs, v1), wo1, acc);
      py[yo] = utvm_dsp_rq3(acc, mode, m, k, sh, zp, lo, hi);
      yo += out_c;
      if ((i + 1) < n) {
        px = &px[8];
      }
    }
  }
}

static UTVM_DSP_HOT void utvm_conv2d_q15_1x1c8_full(const utvm_conv2d_q15_params* p, const int8_t* in,
    const int32_t* w, const int32_t* bias, const int32_t* rq, int8_t* out) {
  utvm_conv2d_q15_1x1c8(p, in, w, bias, rq, out, UTVM_DSP_RQ_FULL);
}

/* scratch: at least 5 * depth4 + 8 * out_c + 12 bytes (any alignment); rq: 3 int32 per channel
 * (dsp_s8.h utvm_dsp_rq3). */
static void utvm_conv2d_s8_q15(const utvm_conv2d_q15_params* p, const int8_t* in, const int32_t* w,
                               const int32_t* bias, const int32_t* rq, void* scratch, int8_t* out) {
  const utvm_conv_geom* g = &p->g;
  int32_t pix = 0;
  if (utvm_conv2d_q15_is_1x1c8(p)) { /* (the other requantization modes: the pair loop below) */
    utvm_conv2d_q15_1x1c8_full(p, in, w, bias, rq, out);
    pix = g->batches * g->out_h * g->out_w; /* done */
  }
  UTVM_CONV2D_Q15_RUN(utvm_conv2d_q15_pair, p, in, w, bias, rq, scratch, out, pix);
}

#endif /* UTVM_KERNELS_ARM_DSP_CONV2D_S8_Q15_H_ */
