/* utvm-build kernels, DSP extension: CONV_2D int8 with 1x1 filters (pointwise layers), tuned for
 * the Cortex-M4's estimated cycles (benchmarks/cycles.py: a single load 2 cycles, 1 right after
 * another single load or store, LDRD 3, LDM 1 + N, a taken branch 3, SMLAD 1): the layer's loops
 * behind utvm_conv2d_s8_q15w_1x1 (conv2d_s8_q15w.h: int16 pre-widened weights, --optimize) and
 * utvm_conv2d_s8_q15_1x1 (conv2d_s8_q15.h: int8 weights).
 *
 * ops/conv.py calls them instead of utvm_conv2d_s8_q15w / utvm_conv2d_s8_q15 for a 1x1 filter
 * without padding (any stride), input channels a multiple of 16 or 8 and the full int8 output
 * range (UTVM_DSP_RQ_FULL); conv_q15_1x1_layer there says the same. Per pixel pair: both pixels'
 * inputs as int16 lanes with the offset added into scratch (conv2d_q15_window.h's layout of a
 * pair: per 4 input bytes pixel a's two lane words, then pixel b's); then the pairs of output
 * channels, under GCC with optimization in one inline assembly block (UTVM_CONV2D_Q15_1X1_PAIRS_ASM):
 * - the biases by a run of loads from the channel pair's data;
 * - the sums, per 4 input bytes: the 4 input words and channel c's weights by one run of single
 *   post-indexed loads, then channel c + 1's; widened (UTVM_CONV2D_Q15W_1X1_STEP): 6 loads (7
 *   cycles), 4 SMLAD, one LDRD, 4 SMLAD, 18 cycles per 16 multiply-accumulates (4 LDRD: 20); int8
 *   (UTVM_CONV2D_Q15_1X1_STEP): 6 loads (7 cycles), 2 x (2 SXTB16, 4 SMLAD), 19 cycles (3 LDRD:
 *   21); 16 (widened), 8 or 4 steps per loop iteration;
 * - the four sums requantized from the registers (no sums in scratch): each channel's triplet by
 *   one LDM, UTVM_CONV2D_Q15_1X1_RQ1 per sum; the 4 output bytes by a run of 4 stores.
 * 13 registers: r8-r11 named (the input words, then the triplet: LDM wants ascending registers),
 * nine GCC's (r7 may stay the frame pointer); the pixel pair's scratch, the loop and pair counts
 * and the output pointer are memory operands. Other compilers and -O0: the same arithmetic in C.
 * An odd last pixel is paired with itself (its outputs written twice, equal); an odd last channel
 * is its pair's first (the generator pairs it with a copy), computed in C. Widened weights with 8,
 * 16 or 32 input channels at stride 1 and an even out_c: the pixel-pair loop in the block too
 * (UTVM_CONV2D_Q15W_1X1S_ASM, the steps unrolled).
 *
 * Data the generator prepares (ops/conv.py conv_q15_call): per pair of output channels (c, c + 1),
 * int32 words: the two biases, then per 4 input bytes channel c's weights and channel c + 1's
 * (widened: two int16 lane words each, bytes 0 and 2, bytes 1 and 3; int8: one word each), then
 * channel c's requantization triplet and channel c + 1's (dsp_s8.h utvm_dsp_rq3).
 * Scratch (kernel_table.py): 4 * in_c + 4 bytes.
 */
#ifndef UTVM_KERNELS_ARM_DSP_CONV2D_Q15_1X1_H_
#define UTVM_KERNELS_ARM_DSP_CONV2D_Q15_1X1_H_

#if !defined(__ARM_FEATURE_DSP) || (__ARM_FEATURE_DSP != 1)
#error "utvm-build: these kernels were generated for a DSP target (--target cortex-m4/m7/m33/m55) but compiled without the DSP extension; use --target generic"
#endif

#include "conv2d_q15_window.h"

/* The input pixel of output pixel i (a 1x1 filter without padding). */
static UTVM_DSP_INLINE const int8_t* utvm_conv2d_q15_1x1_src(const utvm_conv_geom* g, const int8_t* in, int32_t i) {
  const int32_t per_image = g->out_h * g->out_w;
  const int32_t b = i / per_image;
  const int32_t r = i - (b * per_image);
  const int32_t oy = r / g->out_w;
  const int32_t ox = r - (oy * g->out_w);
  return &in[(((((b * g->in_h) + (oy * g->stride_h)) * g->in_w) + (ox * g->stride_w)) * g->in_c)];
}

/* The lane words of pixels xa and xb (steps of 4 input bytes, an even count) into q, the pair's
 * layout; two steps at a time, the loads, then the extensions, then the stores (runs of loads and
 * of stores: the estimate counts the ones after the first 1 cycle). */
static UTVM_DSP_INLINE void utvm_conv2d_q15_1x1_inputs(const int8_t* xa, const int8_t* xb, int32_t steps, int32_t offs,
                                                       int32_t* q) {
  const int8_t* sa = xa;
  const int8_t* sb = xb;
  int32_t* o = q;
  int32_t k;
  for (k = 0; k < steps; k += 2) {
    const int32_t va0 = utvm_dsp_ld4(sa);
    const int32_t va1 = utvm_dsp_ld4(&sa[4]);
    const int32_t vb0 = utvm_dsp_ld4(sb);
    const int32_t vb1 = utvm_dsp_ld4(&sb[4]);
    const int32_t ea0 = __sxtab16(offs, va0);
    const int32_t oa0 = utvm_dsp_odd_add(offs, va0);
    const int32_t eb0 = __sxtab16(offs, vb0);
    const int32_t ob0 = utvm_dsp_odd_add(offs, vb0);
    const int32_t ea1 = __sxtab16(offs, va1);
    const int32_t oa1 = utvm_dsp_odd_add(offs, va1);
    const int32_t eb1 = __sxtab16(offs, vb1);
    const int32_t ob1 = utvm_dsp_odd_add(offs, vb1);
    o[0] = ea0;
    o[1] = oa0;
    o[2] = eb0;
    o[3] = ob0;
    o[4] = ea1;
    o[5] = oa1;
    o[6] = eb1;
    o[7] = ob1;
    sa = &sa[8];
    sb = &sb[8];
    o = &o[8];
  }
}

#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__) && !defined(UTVM_NO_INLINE_ASM)
#define UTVM_CONV2D_Q15_1X1_ASM 1

/* The lane words of pixels xa, xb and xc (steps of 4 input bytes) into q, the layout of a pixel
 * triple: per 4 input bytes the three pixels' even lane words (bytes 0 and 2), then their odd ones. */
static UTVM_DSP_INLINE void utvm_conv2d_q15_1x1_inputs3(const int8_t* xa, const int8_t* xb, const int8_t* xc,
                                                        int32_t steps, int32_t offs, int32_t* q) {
  int32_t* o = q;
  int32_t k;
  for (k = 0; k < steps; ++k) {
    const int32_t va = utvm_dsp_ld4(&xa[4 * k]);
    const int32_t vb = utvm_dsp_ld4(&xb[4 * k]);
    const int32_t vc = utvm_dsp_ld4(&xc[4 * k]);
    const int32_t ea = __sxtab16(offs, va);
    const int32_t eb = __sxtab16(offs, vb);
    const int32_t ec = __sxtab16(offs, vc);
    const int32_t oa = utvm_dsp_odd_add(offs, va);
    const int32_t ob = utvm_dsp_odd_add(offs, vb);
    const int32_t oc = utvm_dsp_odd_add(offs, vc);
    o[0] = ea;
    o[1] = eb;
    o[2] = ec;
    o[3] = oa;
    o[4] = ob;
    o[5] = oc;
    o = &o[6];
  }
}

/* The 4 input words of a step: x0, x1 pixel a's lane words, x2, x3 pixel b's. */
#define UTVM_CONV2D_Q15_1X1_X \
  "ldr %[x0], [%[px]], #4\n\tldr %[x1], [%[px]], #4\n\tldr %[x2], [%[px]], #4\n\tldr %[x3], [%[px]], #4\n\t"
/* Both pixels' sums of channel A (A0: pixel a, B0: pixel b) with the lane words E (bytes 0 and 2)
 * and O (bytes 1 and 3). */
#define UTVM_CONV2D_Q15_1X1_MAC(A0, B0, E, O)                                                          \
  "smlad %[" A0 "], %[x0], %[" E "], %[" A0 "]\n\tsmlad %[" A0 "], %[x1], %[" O "], %[" A0 "]\n\t"     \
  "smlad %[" B0 "], %[x2], %[" E "], %[" B0 "]\n\tsmlad %[" B0 "], %[x3], %[" O "], %[" B0 "]\n\t"

/* int8 weights: t4, t5 the words of channel c and c + 1, extended into t6 (even bytes) and
 * themselves (odd bytes). */
#define UTVM_CONV2D_Q15_1X1_STEP                                                                        \
  UTVM_CONV2D_Q15_1X1_X "ldr %[t4], [%[pw]], #4\n\tldr %[t5], [%[pw]], #4\n\t"                          \
                        "sxtb16 %[t6], %[t4]\n\tsxtb16 %[t4], %[t4], ror #8\n\t" UTVM_CONV2D_Q15_1X1_MAC( \
                            "a0", "b0", "t6", "t4") "sxtb16 %[t6], %[t5]\n\tsxtb16 %[t5], %[t5], ror #8\n\t" \
                            UTVM_CONV2D_Q15_1X1_MAC("a1", "b1", "t6", "t5")

/* One sum X requantized in place (utvm_dsp_rq3, UTVM_DSP_RQ_FULL) with the channel's triplet in
 * x0 (m), x1 (k), x2 (s): the SMLAL start value (k - [X < 0] : 2^30 + [X < 0] 2^31), the high
 * word shifted right by s, SSAT to 8 bits. */
#define UTVM_CONV2D_Q15_1X1_RQ1(X)                                                                \
  "and %[t4], %[" X "], #0x80000000\n\torr %[t4], %[t4], #0x40000000\n\t"                         \
  "add %[t5], %[x1], %[" X "], asr #31\n\tsmlal %[t4], %[t5], %[" X "], %[x0]\n\t"                 \
  "asr %[t5], %[t5], %[x2]\n\tssat %[" X "], #8, %[t5]\n\t"

/* Every channel pair of a pixel pair (PAIRS of them, a memory operand counted down): its bias,
 * its sums (SUMS: assembly text; the loop count in t6), requantization and 4 output bytes (pixel
 * a at *ya, advanced by 2; pixel b ys bytes after it). The loads of a pair's start are one run
 * (the scratch, the loop count, both biases), and so are the stores of its end with the count. */
#define UTVM_CONV2D_Q15_1X1_PAIRS_TEXT(PRE, SUMS)                                                             \
  "0:\n\tldr %[px], %[q]\n\t" PRE "ldr %[a0], [%[pw]], #4\n\tldr %[a1], [%[pw]], #4\n\t"                         \
  "mov %[b0], %[a0]\n\tmov %[b1], %[a1]\n\t" SUMS "ldmia %[pw]!, {%[x0], %[x1], %[x2]}\n\t"                   \
  UTVM_CONV2D_Q15_1X1_RQ1("a0") UTVM_CONV2D_Q15_1X1_RQ1("b0") "ldmia %[pw]!, {%[x0], %[x1], %[x2]}\n\t"        \
  UTVM_CONV2D_Q15_1X1_RQ1("a1") UTVM_CONV2D_Q15_1X1_RQ1("b1")                                                  \
  "ldr %[px], %[ya]\n\tldr %[t4], %[ys]\n\tstrb %[b0], [%[px], %[t4]]\n\tstrb %[a0], [%[px]], #1\n\t"           \
  "strb %[b1], [%[px], %[t4]]\n\tstrb %[a1], [%[px]], #1\n\t"                                                  \
  "str %[px], %[ya]\n\tldr %[t4], %[k]\n\tsubs %[t4], %[t4], #1\n\tstr %[t4], %[k]\n\tbne 0b\n\t"
/* The block's registers (x0..x3: r8-r11, UTVM_DSP_R8_R11). */
#define UTVM_CONV2D_Q15_1X1_REGS \
  UTVM_DSP_R8_R11(x0_, x1_, x2_, x3_); \
  const int32_t* px_;                 \
  int32_t a0_;                        \
  int32_t a1_;                        \
  int32_t b0_;                        \
  int32_t b1_;                        \
  int32_t t4_;                        \
  int32_t t5_;                        \
  int32_t t6_
#define UTVM_CONV2D_Q15_1X1_REG_OPS(PW)                                                                       \
  [a0] "=&r"(a0_), [a1] "=&r"(a1_), [b0] "=&r"(b0_), [b1] "=&r"(b1_), [px] "=&r"(px_), [t4] "=&r"(t4_),     \
      [t5] "=&r"(t5_), [t6] "=&r"(t6_), [pw] "+r"(PW), [x0] "=&r"(x0_), [x1] "=&r"(x1_), [x2] "=&r"(x2_),   \
      [x3] "=&r"(x3_)
#define UTVM_CONV2D_Q15_1X1_PAIRS_ASM(PRE, SUMS, PAIRS, PW, Q, QEND, YA, YS)                               \
  do {                                                                                                     \
    UTVM_CONV2D_Q15_1X1_REGS;                                                                              \
    __asm__ volatile(UTVM_CONV2D_Q15_1X1_PAIRS_TEXT(PRE, SUMS)                                             \
                     : UTVM_CONV2D_Q15_1X1_REG_OPS(PW), [ya] "+m"(YA), [k] "+m"(PAIRS)                     \
                     : [q] "m"(Q), [qend] "m"(QEND), [ys] "m"(YS)                                          \
                     : "cc", "memory");                                                                    \
  } while (0)

#define UTVM_CONV2D_Q15_1X1_STEP4 \
  UTVM_CONV2D_Q15_1X1_STEP UTVM_CONV2D_Q15_1X1_STEP UTVM_CONV2D_Q15_1X1_STEP UTVM_CONV2D_Q15_1X1_STEP

/* A loop over the steps N (int8 weights: t6 is a lane word there) until px is at the end of the
 * pair's scratch (a memory operand). */
#define UTVM_CONV2D_Q15_1X1_LOOP(N) "1:\n\t" N "ldr %[t4], %[qend]\n\tcmp %[px], %[t4]\n\tbne 1b\n\t"

/* One pixel's step of int8 weights (pixel a's two lane words, pixel b's skipped: px advances 16
 * bytes), both channels: 13 estimated cycles per 8 multiply-accumulates (the pair's step: 19 per 16). */
#define UTVM_CONV2D_Q15_1X1_STEP1                                                                         \
  "ldr %[x0], [%[px]], #4\n\tldr %[x1], [%[px]], #12\n\tldr %[t4], [%[pw]], #4\n\tldr %[t5], [%[pw]], #4\n\t" \
  "sxtb16 %[t6], %[t4]\n\tsxtb16 %[t4], %[t4], ror #8\n\t"                                                 \
  "smlad %[a0], %[x0], %[t6], %[a0]\n\tsmlad %[a0], %[x1], %[t4], %[a0]\n\t"                               \
  "sxtb16 %[t6], %[t5]\n\tsxtb16 %[t5], %[t5], ror #8\n\t"                                                 \
  "smlad %[a1], %[x0], %[t6], %[a1]\n\tsmlad %[a1], %[x1], %[t5], %[a1]\n\t"

/* Every channel pair of one pixel (an odd last pixel; in_c a multiple of 16): the pair's block with
 * pixel a's sums only (SUMS: a loop of 4 one-pixel steps), 2 output bytes per pair, instead of the
 * pixel paired with itself (twice the multiply-accumulates). */
#define UTVM_CONV2D_Q15_1X1_ONE_ASM(PRE, SUMS, PAIRS, PW, Q, QEND, YA)                                        \
  do {                                                                                                      \
    UTVM_CONV2D_Q15_1X1_REGS;                                                                               \
    __asm__ volatile("0:\n\tldr %[px], %[q]\n\t" PRE "ldr %[a0], [%[pw]], #4\n\tldr %[a1], [%[pw]], #4\n\t" SUMS \
                     "ldmia %[pw]!, {%[x0], %[x1], %[x2]}\n\t" UTVM_CONV2D_Q15_1X1_RQ1("a0")                  \
                     "ldmia %[pw]!, {%[x0], %[x1], %[x2]}\n\t" UTVM_CONV2D_Q15_1X1_RQ1("a1")                  \
                     "ldr %[px], %[ya]\n\tstrb %[a0], [%[px]], #1\n\tstrb %[a1], [%[px]], #1\n\t"             \
                     "str %[px], %[ya]\n\tldr %[t4], %[k]\n\tsubs %[t4], %[t4], #1\n\tstr %[t4], %[k]\n\tbne 0b" \
                     : UTVM_CONV2D_Q15_1X1_REG_OPS(PW), [ya] "+m"(YA), [k] "+m"(PAIRS)                     \
                     : [q] "m"(Q), [qend] "m"(QEND)                                                        \
                     : "cc", "memory");                                                                    \
    (void)b0_;                                                                                              \
    (void)b1_;                                                                                              \
  } while (0)

/* Every channel pair of a pixel pair (int8 weights) with the steps' text N4 (4 steps) and the two
 * steps' text N2: loops of 8 or 4 steps, or two steps (in_c = 8). */
#define UTVM_CONV2D_Q15_1X1_PAIRS(N4, N2, PAIRS, PW, Q, STEPS, QEND, YA, YS)                                 \
  do {                                                                                                   \
    int32_t k_ = (PAIRS);                                                                                \
    if (((STEPS) & 7) == 0) {                                                                            \
      UTVM_CONV2D_Q15_1X1_PAIRS_ASM("", UTVM_CONV2D_Q15_1X1_LOOP(N4 N4), k_, PW, Q, QEND, YA, YS);          \
    } else if (((STEPS) & 3) == 0) {                                                                     \
      UTVM_CONV2D_Q15_1X1_PAIRS_ASM("", UTVM_CONV2D_Q15_1X1_LOOP(N4), k_, PW, Q, QEND, YA, YS);             \
    } else {                                                                                             \
      UTVM_CONV2D_Q15_1X1_PAIRS_ASM("", N2, k_, PW, Q, QEND, YA, YS);                                      \
    }                                                                                                    \
  } while (0)

/* Pixel triples (widened weights, in_c a multiple of 16): 3 pixels x 2 channels per step of 2 input
 * channels (one lane word), 6 sums. Half a step of 4 input bytes: the three pixels' lane words
 * (x0..x2, utvm_conv2d_q15_1x1_inputs3's layout) and both channels' weight words (t4, t5) by one
 * run of 5 single loads (6 cycles), 6 SMLAD: 12 cycles per 12 multiply-accumulates (the pair's
 * step: 18 per 16). The weights keep the pair's layout (channel c's even and odd word, then channel
 * c + 1's): the post-indexed loads walk it +8, -4, +8, +4. */
#define UTVM_CONV2D_Q15W_1X1_HALF3                                                              \
  "ldr %[x0], [%[px]], #4\n\tldr %[x1], [%[px]], #4\n\tldr %[x2], [%[px]], #4\n\t"             \
  "ldr %[t4], [%[pw]], #8\n\t"
#define UTVM_CONV2D_Q15W_1X1_MAC3                                                                   \
  "smlad %[a0], %[x0], %[t4], %[a0]\n\tsmlad %[b0], %[x1], %[t4], %[b0]\n\tsmlad %[c0], %[x2], %[t4], %[c0]\n\t" \
  "smlad %[a1], %[x0], %[t5], %[a1]\n\tsmlad %[b1], %[x1], %[t5], %[b1]\n\tsmlad %[c1], %[x2], %[t5], %[c1]\n\t"
#define UTVM_CONV2D_Q15W_1X1_STEP3                                                                         \
  UTVM_CONV2D_Q15W_1X1_HALF3 "ldr %[t5], [%[pw]], #-4\n\t" UTVM_CONV2D_Q15W_1X1_MAC3 UTVM_CONV2D_Q15W_1X1_HALF3 \
  "ldr %[t5], [%[pw]], #4\n\t" UTVM_CONV2D_Q15W_1X1_MAC3
#define UTVM_CONV2D_Q15W_1X1_STEP3X4 \
  UTVM_CONV2D_Q15W_1X1_STEP3 UTVM_CONV2D_Q15W_1X1_STEP3 UTVM_CONV2D_Q15W_1X1_STEP3 UTVM_CONV2D_Q15W_1X1_STEP3

/* The sums of a pixel triple: loops of 8 steps until px is at QEND (loaded into the weight register
 * t5, dead there; when ODD4 is not 0, steps an odd multiple of 4, the first iteration enters at its
 * second half: ODD4 loaded into t5 before the biases' moves); in_c = 8: two steps. */
#define UTVM_CONV2D_Q15W_1X1_LOOP3                                                                            \
  "cmp %[t5], #0\n\tbne 2f\n\t1:\n\t" UTVM_CONV2D_Q15W_1X1_STEP3X4 "2:\n\t"               \
      UTVM_CONV2D_Q15W_1X1_STEP3X4 "ldr %[t5], %[qend]\n\tcmp %[px], %[t5]\n\tbne 1b\n\t"
#define UTVM_CONV2D_Q15W_1X1_TWO3 UTVM_CONV2D_Q15W_1X1_STEP3 UTVM_CONV2D_Q15W_1X1_STEP3

/* Every channel pair of a pixel triple (PAIRS of them, a memory operand counted down): the biases,
 * the sums (SUMS), the six
 * sums requantized from the registers (UTVM_CONV2D_Q15_1X1_RQ1, each channel's triplet by one LDM),
 * 6 output bytes (pixel a at *YA, advanced by 2; pixel b YS bytes after it, pixel c YS2). 13
 * registers: the triplet / input words r8-r10, t4 r11, nine GCC's. */
#define UTVM_CONV2D_Q15W_1X1_TRI_ASM(PRE, SUMS, PAIRS, PW, Q, QEND, ODD4, YA, YS, YS2)                                       \
  do {                                                                                                         \
    UTVM_DSP_R8_R11(x0_, x1_, x2_, t4_);                                                                       \
    const int32_t* px_;                                                                                        \
    int32_t a0_;                                                                                               \
    int32_t b0_;                                                                                               \
    int32_t c0_;                                                                                               \
    int32_t a1_;                                                                                               \
    int32_t b1_;                                                                                               \
    int32_t c1_;                                                                                               \
    int32_t t5_;                                                                                               \
    __asm__ volatile(                                                                                          \
        "0:\n\tldr %[px], %[q]\n\tldr %[a0], [%[pw]], #4\n\tldr %[a1], [%[pw]], #4\n\t" PRE                      \
        "mov %[b0], %[a0]\n\tmov %[c0], %[a0]\n\tmov %[b1], %[a1]\n\tmov %[c1], %[a1]\n\t" SUMS                  \
        "ldmia %[pw]!, {%[x0], %[x1], %[x2]}\n\t" UTVM_CONV2D_Q15_1X1_RQ1("a0") UTVM_CONV2D_Q15_1X1_RQ1("b0")   \
        UTVM_CONV2D_Q15_1X1_RQ1("c0") "ldmia %[pw]!, {%[x0], %[x1], %[x2]}\n\t" UTVM_CONV2D_Q15_1X1_RQ1("a1")  \
        UTVM_CONV2D_Q15_1X1_RQ1("b1") UTVM_CONV2D_Q15_1X1_RQ1("c1")                                            \
        "ldr %[px], %[ya]\n\tldr %[t4], %[ys]\n\tldr %[t5], %[ys2]\n\t"                                          \
        "strb %[b0], [%[px], %[t4]]\n\tstrb %[c0], [%[px], %[t5]]\n\tstrb %[a0], [%[px]], #1\n\t"               \
        "strb %[b1], [%[px], %[t4]]\n\tstrb %[c1], [%[px], %[t5]]\n\tstrb %[a1], [%[px]], #1\n\t"               \
        "str %[px], %[ya]\n\tldr %[t4], %[k]\n\tsubs %[t4], %[t4], #1\n\tstr %[t4], %[k]\n\tbne 0b"              \
        : [a0] "=&r"(a0_), [b0] "=&r"(b0_), [c0] "=&r"(c0_), [a1] "=&r"(a1_), [b1] "=&r"(b1_), [c1] "=&r"(c1_), \
          [px] "=&r"(px_), [t4] "=&r"(t4_), [t5] "=&r"(t5_), [pw] "+r"(PW), [x0] "=&r"(x0_), [x1] "=&r"(x1_),   \
          [x2] "=&r"(x2_), [ya] "+m"(YA), [k] "+m"(PAIRS)                                                      \
        : [q] "m"(Q), [qend] "m"(QEND), [odd4] "m"(ODD4), [ys] "m"(YS), [ys2] "m"(YS2)                         \
        : "cc", "memory");                                                                                     \
  } while (0)

/* The last channel of an odd out_c (its pair's second channel is a copy) for a pixel triple, in C:
 * the pair's data at w (biases, the widened weights, the triplets), outputs at y, y + ys, y + ys2. */
static UTVM_DSP_INLINE void utvm_conv2d_q15_1x1_last3(const int32_t* q, const int32_t* w, int32_t steps, int8_t* y,
                                                      int32_t ys, int32_t ys2) {
  const int32_t* pw = &w[2];
  const int32_t* px = q;
  int32_t s0 = w[0];
  int32_t s1 = w[0];
  int32_t s2 = w[0];
  int32_t k;
  for (k = 0; k < steps; ++k) {
    s0 = __smlad(px[3], pw[1], __smlad(px[0], pw[0], s0));
    s1 = __smlad(px[4], pw[1], __smlad(px[1], pw[0], s1));
    s2 = __smlad(px[5], pw[1], __smlad(px[2], pw[0], s2));
    px = &px[6];
    pw = &pw[4];
  }
  y[ys] = utvm_dsp_rq3(s1, UTVM_DSP_RQ_FULL, pw[0], pw[1], pw[2], 0, -128, 127);
  y[ys2] = utvm_dsp_rq3(s2, UTVM_DSP_RQ_FULL, pw[0], pw[1], pw[2], 0, -128, 127);
  y[0] = utvm_dsp_rq3(s0, UTVM_DSP_RQ_FULL, pw[0], pw[1], pw[2], 0, -128, 127);
}
#endif

/* One channel pair of a pixel pair in C (other compilers, -O0; an odd last channel, n_out = 1):
 * the same data and arithmetic; returns the next pair's data. */
static UTVM_DSP_INLINE const int32_t* utvm_conv2d_q15_1x1_pair_c(const int32_t* q, const int32_t* w, int32_t steps,
                                                                 bool widened, int32_t n_out, int8_t* ya, int8_t* yb) {
  const int32_t* pw = &w[2];
  const int32_t* px = q;
  int32_t a0 = w[0];
  int32_t a1 = w[1];
  int32_t b0 = a0;
  int32_t b1 = a1;
  int32_t k;
  for (k = 0; k < steps; ++k) {
    int32_t lanes[4];
    if (widened) {
      lanes[0] = pw[0];
      lanes[1] = pw[1];
      lanes[2] = pw[2];
      lanes[3] = pw[3];
      pw = &pw[4];
    } else {
      lanes[0] = utvm_dsp_even(pw[0]);
      lanes[1] = utvm_dsp_odd(pw[0]);
      lanes[2] = utvm_dsp_even(pw[1]);
      lanes[3] = utvm_dsp_odd(pw[1]);
      pw = &pw[2];
    }
    a0 = __smlad(px[1], lanes[1], __smlad(px[0], lanes[0], a0));
    b0 = __smlad(px[3], lanes[1], __smlad(px[2], lanes[0], b0));
    a1 = __smlad(px[1], lanes[3], __smlad(px[0], lanes[2], a1));
    b1 = __smlad(px[3], lanes[3], __smlad(px[2], lanes[2], b1));
    px = &px[4];
  }
  ya[0] = utvm_dsp_rq3(a0, UTVM_DSP_RQ_FULL, pw[0], pw[1], pw[2], 0, -128, 127);
  yb[0] = utvm_dsp_rq3(b0, UTVM_DSP_RQ_FULL, pw[0], pw[1], pw[2], 0, -128, 127);
  if (n_out == 2) {
    ya[1] = utvm_dsp_rq3(a1, UTVM_DSP_RQ_FULL, pw[3], pw[4], pw[5], 0, -128, 127);
    yb[1] = utvm_dsp_rq3(b1, UTVM_DSP_RQ_FULL, pw[3], pw[4], pw[5], 0, -128, 127);
  }
  return &pw[6];
}

/* Every output of the layer (widened: the weights' layout; scratch: 4 * in_c + 4 bytes). */
static UTVM_DSP_INLINE void utvm_conv2d_q15_1x1_run(const utvm_conv2d_q15_params* p, const int8_t* in, const int32_t* w,
                                                    void* scratch, int8_t* out, bool widened) {
  const utvm_conv_geom* g = &p->g;
  const int32_t total = g->batches * g->out_h * g->out_w;
  const int32_t out_c = g->out_c;
  const int32_t steps = g->in_c >> 2;
  const int32_t pairs = out_c >> 1;
  const uint32_t off16 = (uint32_t)p->input_offset & 0xFFFFu;
  const int32_t offs = (int32_t)((off16 << 16u) | off16);
  uint8_t* const raw = (uint8_t*)scratch;
  int32_t* const q = (int32_t*)(void*)&raw[(4u - ((uintptr_t)raw & 3u)) & 3u];
  /* stride 1 (the input's pixels are the output's): no division per pixel */
  const bool dense = (g->stride_h == 1) && (g->stride_w == 1) && (g->in_h == g->out_h) && (g->in_w == g->out_w);
  int32_t pix = 0;
#if defined(UTVM_CONV2D_Q15_1X1_ASM)
  if (widened) { /* pixel triples (the last one's missing pixels: the one before) */
    for (; pix < total; pix += 3) {
      const int32_t pix_b = ((pix + 1) < total) ? (pix + 1) : pix;
      const int32_t pix_c = ((pix + 2) < total) ? (pix + 2) : pix_b;
      const int32_t* pw = w;
      int32_t* qm = q;
      const int32_t* qend = &q[6 * steps];
      int8_t* ya = &out[pix * out_c];
      const int32_t ys = (pix_b - pix) * out_c;
      const int32_t ys2 = (pix_c - pix) * out_c;
      int32_t k = pairs;
      const int32_t odd4 = steps & 4;
      if (dense) {
        utvm_conv2d_q15_1x1_inputs3(&in[pix * g->in_c], &in[pix_b * g->in_c], &in[pix_c * g->in_c], steps, offs, q);
      } else {
        utvm_conv2d_q15_1x1_inputs3(utvm_conv2d_q15_1x1_src(g, in, pix), utvm_conv2d_q15_1x1_src(g, in, pix_b),
                                    utvm_conv2d_q15_1x1_src(g, in, pix_c), steps, offs, q);
      }
      if (pairs == 0) {
        /* one output channel: below */
      } else if (steps == 2) {
        UTVM_CONV2D_Q15W_1X1_TRI_ASM("", UTVM_CONV2D_Q15W_1X1_TWO3, k, pw, qm, qend, odd4, ya, ys, ys2);
      } else {
        UTVM_CONV2D_Q15W_1X1_TRI_ASM("ldr %[t5], %[odd4]\n\t", UTVM_CONV2D_Q15W_1X1_LOOP3, k, pw, qm, qend, odd4, ya, ys, ys2);
      }
      if ((out_c & 1) != 0) {
        utvm_conv2d_q15_1x1_last3(q, pw, steps, ya, ys, ys2);
      }
    }
  }
#endif
  for (; pix < total; pix += 2) {
    const int32_t pix_b = ((pix + 1) < total) ? (pix + 1) : pix; /* an odd last pixel: itself */
    const int32_t* pw = w;
    int8_t* ya = &out[pix * out_c];
    if (dense) {
      utvm_conv2d_q15_1x1_inputs(&in[pix * g->in_c], &in[pix_b * g->in_c], steps, offs, q);
    } else {
      utvm_conv2d_q15_1x1_inputs(utvm_conv2d_q15_1x1_src(g, in, pix), utvm_conv2d_q15_1x1_src(g, in, pix_b), steps,
                                 offs, q);
    }
#if defined(UTVM_CONV2D_Q15_1X1_ASM)
    {
      int32_t* qm = q;
      const int32_t* qend = &q[4 * steps];
      const int32_t ys = (pix_b - pix) * out_c;
      if (pairs == 0) {
        /* one output channel: below */
      } else if ((pix_b == pix) && ((steps & 3) == 0)) { /* an odd last pixel alone */
        int32_t k = pairs;
        UTVM_CONV2D_Q15_1X1_ONE_ASM("", UTVM_CONV2D_Q15_1X1_LOOP(UTVM_CONV2D_Q15_1X1_STEP1 UTVM_CONV2D_Q15_1X1_STEP1
                                            UTVM_CONV2D_Q15_1X1_STEP1 UTVM_CONV2D_Q15_1X1_STEP1),
                                    k, pw, qm, qend, ya);
      } else {
        UTVM_CONV2D_Q15_1X1_PAIRS(UTVM_CONV2D_Q15_1X1_STEP4, UTVM_CONV2D_Q15_1X1_STEP UTVM_CONV2D_Q15_1X1_STEP, pairs,
                                  pw, qm, steps, qend, ya, ys);
      }
    }
#else
    {
      int32_t k;
      for (k = 0; k < pairs; ++k) {
        pw = utvm_conv2d_q15_1x1_pair_c(q, pw, steps, widened, 2, ya, &ya[(pix_b - pix) * out_c]);
        ya = &ya[2];
      }
    }
#endif
    if ((out_c & 1) != 0) { /* the last channel: its pair's second channel is a copy */
      (void)utvm_conv2d_q15_1x1_pair_c(q, pw, steps, widened, 1, ya, &ya[(pix_b - pix) * out_c]);
    }
  }
}

#endif /* UTVM_KERNELS_ARM_DSP_CONV2D_Q15_1X1_H_ */
