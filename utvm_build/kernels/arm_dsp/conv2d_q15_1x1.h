/* utvm-build kernels, DSP extension: CONV_2D int8 with 1x1 filters (pointwise layers), tuned for
 * the Cortex-M4's estimated cycles (benchmarks/cycles.py: a single load 2 cycles, 1 right after
 * another single load or store, LDRD 3, LDM 1 + N, a taken branch 3, SMLAD 1): the layer's loops
 * behind utvm_conv2d_s8_q15w_1x1 (conv2d_s8_q15w.h: int16 pre-widened weights, --optimize) and
 * utvm_conv2d_s8_q15_1x1 (conv2d_s8_q15.h: int8 weights).
 *
 * ops/conv.py calls them instead of utvm_conv2d_s8_q15w / utvm_conv2d_s8_q15 for a 1x1 filter
 * without padding (any stride), input channels a multiple of 16 or 8 and the full int8 output
 * range (UTVM_DSP_RQ_FULL); conv_q15_1x1_layer there says the same. Per pixel triple: the three
 * pixels' inputs as int16 lanes with the offset added into scratch (utvm_conv2d_q15_1x1_inputs3_c:
 * per 4 input bytes the three even lane words, bytes 0 and 2, then the three odd ones); then the
 * pairs of output channels, under GCC with optimization in one inline assembly block
 * (UTVM_CONV2D_Q15_1X1_TRI_ASM; widened weights: UTVM_CONV2D_Q15W_1X1_TRIN_ASM, the inputs'
 * conversion and, at stride 1 with an even out_c, the loop over every triple in the block too):
 * - the biases by a run of loads from the channel pair's data;
 * - the sums, 3 pixels x 2 channels, per half step (one lane word of each pixel: 2 input channels)
 *   the three input words and both channels' weights by one run of single post-indexed loads, then
 *   6 SMLAD: widened 5 loads (6 cycles), 12 cycles per 12 multiply-accumulates (the pixel pairs'
 *   step before: 18 per 16); int8 4 loads and 2 SXTB16, 13 cycles (before: 19 per 16); widened
 *   in_c 8, 16 and 32 unrolled, the first half step starting the sums from the biases, more input
 *   channels 8 unrolled steps then loops of 8 (an odd multiple of 4 enters the first at its second
 *   half); int8 in_c 8 two steps, else loops of 8;
 * - the six sums requantized from the registers (no sums in scratch, UTVM_CONV2D_Q15_1X1_RQ6):
 *   SMMLAR on twice the sum, 4 instructions per sum with each channel's triplet by one LDM; in a
 *   file whose layers have the output zero point -128, 3 instructions and both triplets by one LDM;
 *   the 6 output bytes by a run of 6 stores.
 * 13 registers: r8-r11 named (the input words, then the triplet: LDM wants ascending registers;
 * r11 a weight word), r12 and lr too without the sign term (t5 and px: the second triplet), the
 * others GCC's (r7 may stay the frame pointer); the scratch and its end, the output pointer and
 * offsets are memory operands. Widened weights with in_c = 8 at
 * stride 1 and out_c a multiple of 4: two channel pairs per iteration (UTVM_CONV2D_Q15W_1X1_TRIS_ASM).
 * Other compilers and -O0: the same arithmetic in C (utvm_conv2d_q15_1x1_tri_c). A last triple of
 * fewer than 3 pixels starts at total - 3 (outputs written twice, equal); an odd last channel is
 * its pair's first (the generator pairs it with a copy), computed in C.
 *
 * Data the generator prepares (ops/conv.py conv_q15_call): per pair of output channels (c, c + 1),
 * int32 words: twice the two biases, then per 4 input bytes the weights (widened: channel c's two
 * int16 lane words of twice the weights, bytes 0 and 2, bytes 1 and 3, then channel c + 1's; int8
 * (the kernel doubles the inputs instead): two words of bytes
 * interleaved by channel, c's byte 0, c + 1's byte 0, c's byte 2, c + 1's byte 2, then the same of
 * bytes 1 and 3, so that SXTB16 and SXTB16 ROR 8 of one word are both channels' lane words of one
 * input lane pair), then channel c's requantization triplet and channel c + 1's (dsp_s8.h
 * utvm_dsp_rq3's (m, k, s) as (m, 2k, s + 1): utvm_dsp_rq2); the last whole pair's channel c + 1 has
 * bit 8 of s + 1 set (ops/conv.py conv_q15_1x1_stream: the pair loops' end, UTVM_CONV2D_Q15_1X1_LASTPAIR). Scratch (kernel_table.py):
 * 6 * in_c + 4 bytes.
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

/* The lane words of pixels xa, xb and xc (steps of 4 input bytes) into q, the layout of a pixel
 * triple: per 4 input bytes the three pixels' even lane words (bytes 0 and 2), then their odd ones;
 * twice the lanes when twice (int8 weights: the sums are twice the layer's, utvm_dsp_rq2). */
static UTVM_DSP_INLINE void utvm_conv2d_q15_1x1_inputs3_c(const int8_t* xa, const int8_t* xb, const int8_t* xc,
                                                          int32_t steps, int32_t offs, bool twice, int32_t* q) {
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
    if (twice) {
      o[0] = __sadd16(ea, ea);
      o[1] = __sadd16(eb, eb);
      o[2] = __sadd16(ec, ec);
      o[3] = __sadd16(oa, oa);
      o[4] = __sadd16(ob, ob);
      o[5] = __sadd16(oc, oc);
    } else {
      o[0] = ea;
      o[1] = eb;
      o[2] = ec;
      o[3] = oa;
      o[4] = ob;
      o[5] = oc;
    }
    o = &o[6];
  }
}

#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__) && !defined(UTVM_NO_INLINE_ASM)
#define UTVM_CONV2D_Q15_1X1_ASM 1

/* Half a step: the three pixels' lane words of one input lane pair into x0..x2. */
#define UTVM_CONV2D_Q15_1X1_X3 "ldr %[x0], [%[px]], #4\n\tldr %[x1], [%[px]], #4\n\tldr %[x2], [%[px]], #4\n\t"
/* The six sums with channel c's lane word in t4 and channel c + 1's in t5. */
#define UTVM_CONV2D_Q15_1X1_MAC3                                                                                  \
  "smlad %[a0], %[x0], %[t4], %[a0]\n\tsmlad %[b0], %[x1], %[t4], %[b0]\n\tsmlad %[c0], %[x2], %[t4], %[c0]\n\t" \
  "smlad %[a1], %[x0], %[t5], %[a1]\n\tsmlad %[b1], %[x1], %[t5], %[b1]\n\tsmlad %[c1], %[x2], %[t5], %[c1]\n\t"
/* The first half step: the sums of pixels b and c start from pixel a's register, the bias (no moves). */
#define UTVM_CONV2D_Q15_1X1_MAC3F                                                                                 \
  "smlad %[b0], %[x1], %[t4], %[a0]\n\tsmlad %[c0], %[x2], %[t4], %[a0]\n\tsmlad %[a0], %[x0], %[t4], %[a0]\n\t" \
  "smlad %[b1], %[x1], %[t5], %[a1]\n\tsmlad %[c1], %[x2], %[t5], %[a1]\n\tsmlad %[a1], %[x0], %[t5], %[a1]\n\t"
/* Widened weights (the layout walked +8, -4, +8, +4: channel c's even word, c + 1's, c's odd word,
 * c + 1's). */
#define UTVM_CONV2D_Q15W_1X1_STEP3_(MAC)                                                             \
  UTVM_CONV2D_Q15_1X1_X3 "ldr %[t4], [%[pw]], #8\n\tldr %[t5], [%[pw]], #-4\n\t" MAC UTVM_CONV2D_Q15_1X1_X3 \
      "ldr %[t4], [%[pw]], #8\n\tldr %[t5], [%[pw]], #4\n\t" UTVM_CONV2D_Q15_1X1_MAC3
#define UTVM_CONV2D_Q15W_1X1_STEP3 UTVM_CONV2D_Q15W_1X1_STEP3_(UTVM_CONV2D_Q15_1X1_MAC3)
/* int8 weights: one word per half step, both channels' lane words by SXTB16 (c) and SXTB16 ROR 8
 * (c + 1). */
#define UTVM_CONV2D_Q15_1X1_HALF3(MAC) \
  UTVM_CONV2D_Q15_1X1_X3 "ldr %[t5], [%[pw]], #4\n\tsxtb16 %[t4], %[t5]\n\tsxtb16 %[t5], %[t5], ror #8\n\t" MAC
#define UTVM_CONV2D_Q15_1X1_STEP3 UTVM_CONV2D_Q15_1X1_HALF3(UTVM_CONV2D_Q15_1X1_MAC3) UTVM_CONV2D_Q15_1X1_HALF3(UTVM_CONV2D_Q15_1X1_MAC3)

/* The forms the including file's layers take, bit v for a layer of value v = odd4 + 2 sign
 * (defined by the generated operator file, ops/conv.py conv_q15_1x1_odd4 and conv_q15_1x1_sign,
 * Params.selects_values; all when not defined). odd4 (bits 1, 3 and 5, UTVM_CONV2D_Q15_1X1_ODD4_ANY):
 * loops of 8 steps entered at their second half (a widened layer of more than 8 steps, or an int8 one of more than 2, whose
 * steps are an odd multiple of 4); without them the loops have no entry test (3-4 cycles per
 * channel pair of a triple less). sign 1 (bits 2 and 3, UTVM_CONV2D_Q15_1X1_SIGN_ANY): an output zero
 * point other than -128; without them the requantization drops its sign term (below); sign 2 (bits
 * 4 and 5): the same in a layer of few MACs, which takes the C form rather than keep the term. A
 * layer needing a form its file left out takes the C form. */
#ifndef UTVM_CONV2D_Q15_1X1_ODD4
#define UTVM_CONV2D_Q15_1X1_ODD4 0x3Fu
#endif
#define UTVM_CONV2D_Q15_1X1_ODD4_ANY ((UTVM_CONV2D_Q15_1X1_ODD4 & 0x2Au) != 0u)
#define UTVM_CONV2D_Q15_1X1_SIGN_ANY ((UTVM_CONV2D_Q15_1X1_ODD4 & 0xCu) != 0u)
#if (UTVM_CONV2D_Q15_1X1_ODD4 & 0x2Au) != 0u
#define UTVM_CONV2D_Q15_1X1_ODD4_LD "ldr %[t5], %[odd4]\n\t"
#define UTVM_CONV2D_Q15_1X1_ENTRY8 "cmp %[t5], #0\n\tbne 2f\n\t"
#else
#define UTVM_CONV2D_Q15_1X1_ODD4_LD ""
#define UTVM_CONV2D_Q15_1X1_ENTRY8 ""
#endif
/* The block forms the including file's layers take, bit f for form f (ops/conv.py
 * conv_q15_1x1_form; all when not defined): int8 weights 0 (2 steps) and 1 (loops); widened 2 (in_c
 * 8: every triple in UTVM_CONV2D_Q15W_1X1_TRIS_ASM), 3, 4 and 5 (UTVM_CONV2D_Q15W_1X1_TRIN_ASM with 2,
 * 4 and 8 or more steps), 6 (forms 2 and 3: a last triple after the whole-layer block). Only those
 * are compiled (KWS's file needs form 5 alone); a layer whose form is left out takes the C form. */
#ifndef UTVM_CONV2D_Q15_1X1_FORMS
#define UTVM_CONV2D_Q15_1X1_FORMS 0x7Fu
#endif
#define UTVM_CONV2D_Q15_1X1_HAS(BITS) ((UTVM_CONV2D_Q15_1X1_FORMS & (BITS)) != 0u)
#define UTVM_CONV2D_Q15_1X1_I8_TWO 0x1u
#define UTVM_CONV2D_Q15_1X1_I8_LOOP 0x2u
#define UTVM_CONV2D_Q15W_1X1_TRIS 0x44u
#define UTVM_CONV2D_Q15W_1X1_TWO 0x48u
#define UTVM_CONV2D_Q15W_1X1_FOUR 0x10u
#define UTVM_CONV2D_Q15W_1X1_EIGHT 0x20u

/* The sums (the biases in a0 and a1): unrolled steps, the first starting from the biases
 * (UTVM_CONV2D_Q15_1X1_MAC3F; widened in_c 8, 16, 32 and the first 8 steps of more, int8 in_c 8),
 * or int8 loops (UTVM_CONV2D_Q15_1X1_PRE8: odd4 into t5, then the biases' moves). */
#define UTVM_CONV2D_Q15_1X1_MOVS "mov %[b0], %[a0]\n\tmov %[c0], %[a0]\n\tmov %[b1], %[a1]\n\tmov %[c1], %[a1]\n\t"
#define UTVM_CONV2D_Q15W_1X1_TWO3 UTVM_CONV2D_Q15W_1X1_STEP3_(UTVM_CONV2D_Q15_1X1_MAC3F) UTVM_CONV2D_Q15W_1X1_STEP3
#define UTVM_CONV2D_Q15W_1X1_FOUR3 UTVM_CONV2D_Q15W_1X1_TWO3 UTVM_CONV2D_Q15W_1X1_STEP3 UTVM_CONV2D_Q15W_1X1_STEP3
/* 8 steps or more: the first 8 unrolled (the first from the biases), then, unless the layer has 8
 * steps, the loops of 8 (UTVM_CONV2D_Q15_1X1_LOOP8). The layer's 8 steps are the overflow flag V,
 * set once per triple (UTVM_CONV2D_Q15W_1X1_V8): nothing in a channel pair writes V (SMLAD and SSAT
 * set Q alone; TST, the loops' CMP of two scratch pointers and of odd4 with 0 leave or clear it),
 * so the test is one BVS (1 cycle not taken, 3 taken) where loading the scratch's end and comparing
 * took 4 (6 taken). */
#define UTVM_CONV2D_Q15W_1X1_EIGHT3                                                                       \
  UTVM_CONV2D_Q15W_1X1_FOUR3 UTVM_CONV2D_Q15W_1X1_STEP3 UTVM_CONV2D_Q15W_1X1_STEP3 UTVM_CONV2D_Q15W_1X1_STEP3 \
      UTVM_CONV2D_Q15W_1X1_STEP3 "bvs 9f\n\t" UTVM_CONV2D_Q15_1X1_ODD4_LD                                      \
      UTVM_CONV2D_Q15_1X1_LOOP8(UTVM_CONV2D_Q15W_1X1_STEP3, UTVM_CONV2D_Q15W_1X1_LAST8) "9:\n\t"
/* V set when the steps (in t4) are 8, else clear: CMP of INT32_MIN with 1 overflows. */
#define UTVM_CONV2D_Q15W_1X1_V8 "cmp %[t4], #8\n\tit eq\n\tmoveq %[t4], #0x80000000\n\tcmp %[t4], #1\n\t"
#define UTVM_CONV2D_Q15_1X1_TWO3                                                                      \
  UTVM_CONV2D_Q15_1X1_HALF3(UTVM_CONV2D_Q15_1X1_MAC3F) UTVM_CONV2D_Q15_1X1_HALF3(UTVM_CONV2D_Q15_1X1_MAC3) \
      UTVM_CONV2D_Q15_1X1_STEP3

/* Loops of 8 steps (S: one step's text, LAST: the last one's, which compares px with the scratch's end
 * qend) until px is at qend; when odd4 (in t5 on entry) is not 0, the steps left an odd multiple of
 * 4, the first iteration enters at its second half. Widened: qend loaded into the weight register
 * t5 after the step (dead there); int8: into t4 inside the last half step's run of loads, before
 * its SXTB16 (one cycle less per loop end; SXTB16 and SMLAD leave the flags). */
#define UTVM_CONV2D_Q15_1X1_LOOP8(S, LAST) \
  UTVM_CONV2D_Q15_1X1_ENTRY8 "1:\n\t" S S S S "2:\n\t" S S S LAST "bne 1b\n\t"
#define UTVM_CONV2D_Q15W_1X1_LAST8 UTVM_CONV2D_Q15W_1X1_STEP3 "ldr %[t5], %[qend]\n\tcmp %[px], %[t5]\n\t"
#define UTVM_CONV2D_Q15_1X1_LAST8                                                                               \
  UTVM_CONV2D_Q15_1X1_HALF3(UTVM_CONV2D_Q15_1X1_MAC3)                                                           \
  UTVM_CONV2D_Q15_1X1_X3 "ldr %[t5], [%[pw]], #4\n\tldr %[t4], %[qend]\n\tcmp %[px], %[t4]\n\t"                \
                         "sxtb16 %[t4], %[t5]\n\tsxtb16 %[t5], %[t5], ror #8\n\t" UTVM_CONV2D_Q15_1X1_MAC3
#define UTVM_CONV2D_Q15_1X1_PRE8 UTVM_CONV2D_Q15_1X1_ODD4_LD UTVM_CONV2D_Q15_1X1_MOVS

/* One sum X (twice the layer's sum) requantized in place with the channel's triplet in x0 (m), x1
 * (2k), x2 (s + 1) (dsp_s8.h UTVM_DSP_RQ2_TEXT). When every layer of the file has the output zero
 * point -128 (the full range's clamp at the zero point: RELU, RELU6, or NONE with that zero point),
 * without its sign term (2k straight into SMMLAR, 3 instructions): for X < 0 the result is then at
 * most 2^-32 of a step higher before the shift, zp + floor((2^(e-1) + 1/2 + xm/2^31) / 2^e) with
 * xm < 0, still at most zp = -128, so SSAT gives -128 as TFLite's clamp does; X >= 0 is unchanged. */
#if (UTVM_CONV2D_Q15_1X1_ODD4 & 0xCu) != 0u
#define UTVM_CONV2D_Q15_1X1_RQ1(X) UTVM_DSP_RQ2_TEXT(X, "t5", "x0", "x1", "x2")
/* Both channels' requantization: channel c's triplet by one LDM, its three sums, channel c + 1's by
 * another (the sign term needs t5 as its temporary); TST: the last pair's test or nothing. */
#define UTVM_CONV2D_Q15_1X1_RQ6(TST)                                                                        \
  "ldmia %[pw]!, {%[x0], %[x1], %[x2]}\n\t" UTVM_CONV2D_Q15_1X1_RQ1("a0") UTVM_CONV2D_Q15_1X1_RQ1("b0")       \
      UTVM_CONV2D_Q15_1X1_RQ1("c0") "ldmia %[pw]!, {%[x0], %[x1], %[x2]}\n\t" TST UTVM_CONV2D_Q15_1X1_RQ1("a1") \
          UTVM_CONV2D_Q15_1X1_RQ1("b1") UTVM_CONV2D_Q15_1X1_RQ1("c1")
/* The last channel pair's flag: bit 8 of channel c + 1's s + 1 (x2 after its LDM). */
#define UTVM_CONV2D_Q15_1X1_LASTPAIR "tst %[x2], #256\n\t"
#else
/* Without the sign term no temporary: each sum is requantized in its own register, so both
 * triplets come by one LDM into the six registers free after the sums (x0-x2 r8-r10, t4 r11, t5
 * r12, px lr: LDM's ascending order; 1 cycle per channel pair less than two LDM). */
#define UTVM_CONV2D_Q15_1X1_RQS(X, M, K2, S1)                                                                   \
  "smmlar %[" X "], %[" X "], %[" M "], %[" K2 "]\n\tasr %[" X "], %[" X "], %[" S1 "]\n\tssat %[" X "], #8, %[" X \
  "]\n\t"
#define UTVM_CONV2D_Q15_1X1_RQ6(TST)                                                                           \
  "ldmia %[pw]!, {%[x0], %[x1], %[x2], %[t4], %[t5], %[px]}\n\t" TST UTVM_CONV2D_Q15_1X1_RQS("a0", "x0", "x1", "x2") \
      UTVM_CONV2D_Q15_1X1_RQS("b0", "x0", "x1", "x2") UTVM_CONV2D_Q15_1X1_RQS("c0", "x0", "x1", "x2")               \
          UTVM_CONV2D_Q15_1X1_RQS("a1", "t4", "t5", "px") UTVM_CONV2D_Q15_1X1_RQS("b1", "t4", "t5", "px")           \
              UTVM_CONV2D_Q15_1X1_RQS("c1", "t4", "t5", "px")
/* The last channel pair's flag: bit 8 of channel c + 1's s + 1 (px after the LDM). */
#define UTVM_CONV2D_Q15_1X1_LASTPAIR "tst %[px], #256\n\t"
#endif

/* Every channel pair of a pixel triple (until the last pair's flag): the biases, the
 * sums (PRE, then SUMS), the six sums requantized from the registers, 6 output bytes (pixel a at
 * *ya, advanced by 2; pixel b ys bytes after it, pixel c 2 ys: one offset register). 13 registers: the input words /
 * triplet r8-r10, t4 r11, nine GCC's (UTVM_CONV2D_Q15_1X1_TRI_REGS). */
#define UTVM_CONV2D_Q15_1X1_TRI_TEXT(PRE, SUMS) \
  "0:\n\t" UTVM_CONV2D_Q15_1X1_PAIR_TEXT(PRE, SUMS, UTVM_CONV2D_Q15_1X1_LASTPAIR) "beq 0b\n\t"
/* The last channel pair's flag (UTVM_CONV2D_Q15_1X1_LASTPAIR: bit 8 of its channel c + 1's s + 1;
 * ASR by a register reads its low byte alone): Z clear after the last pair. Neither the
 * requantization nor the stores change the flags. */
/* One channel pair of a triple (UTVM_CONV2D_Q15_1X1_TRI_TEXT without its loop end; TST: the last
 * pair's test or nothing). */
#define UTVM_CONV2D_Q15_1X1_PAIR_TEXT(PRE, SUMS, TST)                                                            \
  "ldr %[px], %[q]\n\tldr %[a0], [%[pw]], #4\n\tldr %[a1], [%[pw]], #4\n\t" PRE SUMS                              \
  UTVM_CONV2D_Q15_1X1_RQ6(TST)                                                                                  \
  "ldr %[px], %[ya]\n\tldr %[t4], %[ys]\n\t"                                                                   \
  "strb %[b0], [%[px], %[t4]]\n\tstrb %[c0], [%[px], %[t4], lsl #1]\n\tstrb %[a0], [%[px]], #1\n\t"             \
  "strb %[b1], [%[px], %[t4]]\n\tstrb %[c1], [%[px], %[t4], lsl #1]\n\tstrb %[a1], [%[px]], #1\n\t"             \
  "str %[px], %[ya]\n\t"
/* t5 and px: r12 and lr when both triplets come by one LDM (above), else GCC's. */
#if (UTVM_CONV2D_Q15_1X1_ODD4 & 0xCu) != 0u
#define UTVM_CONV2D_Q15_1X1_R12_LR \
  int32_t t5_;                     \
  const int32_t* px_
#else
#define UTVM_CONV2D_Q15_1X1_R12_LR         \
  register int32_t t5_ __asm__("r12"); \
  register const int32_t* px_ __asm__("lr")
#endif
#define UTVM_CONV2D_Q15_1X1_TRI_REGS   \
  UTVM_DSP_R8_R11(x0_, x1_, x2_, t4_); \
  UTVM_CONV2D_Q15_1X1_R12_LR;          \
  int32_t a0_;                         \
  int32_t b0_;                         \
  int32_t c0_;                         \
  int32_t a1_;                         \
  int32_t b1_;                         \
  int32_t c1_
#define UTVM_CONV2D_Q15_1X1_TRI_OUTS(PW, YA)                                                                     \
  [a0] "=&r"(a0_), [b0] "=&r"(b0_), [c0] "=&r"(c0_), [a1] "=&r"(a1_), [b1] "=&r"(b1_), [c1] "=&r"(c1_),         \
      [px] "=&r"(px_), [t4] "=&r"(t4_), [t5] "=&r"(t5_), [pw] "+r"(PW), [x0] "=&r"(x0_), [x1] "=&r"(x1_),       \
      [x2] "=&r"(x2_), [ya] "+m"(YA)
#define UTVM_CONV2D_Q15_1X1_TRI_INS(Q, QEND, ODD4, YS) [q] "m"(Q), [qend] "m"(QEND), [odd4] "m"(ODD4), [ys] "m"(YS)
#define UTVM_CONV2D_Q15_1X1_TRI_ASM(PRE, SUMS, PW, Q, QEND, ODD4, YA, YS)                              \
  do {                                                                                                    \
    UTVM_CONV2D_Q15_1X1_TRI_REGS;                                                                         \
    __asm__ volatile(UTVM_CONV2D_Q15_1X1_TRI_TEXT(PRE, SUMS)                                              \
                     : UTVM_CONV2D_Q15_1X1_TRI_OUTS(PW, YA)                                               \
                     : UTVM_CONV2D_Q15_1X1_TRI_INS(Q, QEND, ODD4, YS)                               \
                     : "cc", "memory");                                                                   \
  } while (0)

/* One step of three pixels' inputs (words A, B, C) into the scratch at byte D of pw: the even lane
 * words with the offset (t5) added, then the odd ones, through b0..c1, x0, x2 (free there). */
#define UTVM_CONV2D_Q15W_1X1_IN3(A, B, C, D)                                                                     \
  "sxtab16 %[b0], %[t5], %[" A "]\n\tsxtab16 %[c0], %[t5], %[" B "]\n\tsxtab16 %[b1], %[t5], %[" C "]\n\t"       \
  "sxtab16 %[c1], %[t5], %[" A "], ror #8\n\tsxtab16 %[x0], %[t5], %[" B "], ror #8\n\t"                          \
  "sxtab16 %[x2], %[t5], %[" C "], ror #8\n\tstr %[b0], [%[pw], #" #D "]\n\tstr %[c0], [%[pw], #" #D "+4]\n\t"   \
  "str %[b1], [%[pw], #" #D "+8]\n\tstr %[c1], [%[pw], #" #D "+12]\n\tstr %[x0], [%[pw], #" #D "+16]\n\t"         \
  "str %[x2], [%[pw], #" #D "+20]\n\t"
/* Widened weights, in_c = 8, stride 1 (the input's pixels are the output's), out_c a multiple of 4:
 * NP pixel triples from *SRC on in one block (VWW's and person_detect's 48x48 layer): per triple its
 * 24 input bytes by a run of 6 loads, converted into the scratch Q (UTVM_CONV2D_Q15W_1X1_IN3), then
 * the channel pairs two per iteration (the weights from W; one loop end per two pairs, the second
 * pair's loads in the first's run of stores), YA advanced by 2 YS past pixels b and c (about 50
 * cycles per triple around the channel pairs against about 110 in C). */
#define UTVM_CONV2D_Q15W_1X1_TRIS_ASM(NP, SRC, OFFS, W, PW, Q, QEND, ODD4, YA, YS)                         \
  do {                                                                                                        \
    UTVM_CONV2D_Q15_1X1_TRI_REGS;                                                                             \
    __asm__ volatile(                                                                                         \
        "3:\n\tldr %[px], %[src]\n\tldr %[t5], %[offs]\n\tldr %[pw], %[q]\n\tldr %[x0], [%[px]]\n\t"            \
        "ldr %[x1], [%[px], #4]\n\tldr %[x2], [%[px], #8]\n\tldr %[t4], [%[px], #12]\n\t"                       \
        "ldr %[a0], [%[px], #16]\n\tldr %[a1], [%[px], #20]\n\t" UTVM_CONV2D_Q15W_1X1_IN3("x0", "x2", "a0", 0)    \
            UTVM_CONV2D_Q15W_1X1_IN3("x1", "t4", "a1", 24) "add %[px], %[px], #24\n\tstr %[px], %[src]\n\t"      \
            "ldr %[pw], %[w]\n\t0:\n\t" UTVM_CONV2D_Q15_1X1_PAIR_TEXT("", UTVM_CONV2D_Q15W_1X1_TWO3, "")        \
                UTVM_CONV2D_Q15_1X1_PAIR_TEXT("", UTVM_CONV2D_Q15W_1X1_TWO3, UTVM_CONV2D_Q15_1X1_LASTPAIR)   \
            "beq 0b\n\t"                                                                                     \
            "ldr %[t4], %[ys]\n\tadd %[px], %[px], %[t4], lsl #1\n\tstr %[px], %[ya]\n\t"                       \
            "ldr %[t4], %[np]\n\tsubs %[t4], %[t4], #1\n\tstr %[t4], %[np]\n\tbne 3b"                            \
        : UTVM_CONV2D_Q15_1X1_TRI_OUTS(PW, YA), [np] "+m"(NP), [src] "+m"(SRC)                                 \
        : UTVM_CONV2D_Q15_1X1_TRI_INS(Q, QEND, ODD4, YS), [offs] "m"(OFFS), [w] "m"(W)                   \
        : "cc", "memory");                                                                                    \
  } while (0)

/* Two steps of a pixel triple's inputs into the scratch at pw (widened weights): pixel a at px
 * (advanced), b and c t4 and t5 bytes after it; the offset in a1 (b0, c0, b1 and the loaded words
 * the results). */
#define UTVM_CONV2D_Q15W_1X1_CV1                                                                      \
  "ldr %[x1], [%[px], %[t4]]\n\tldr %[x2], [%[px], %[t5]]\n\tldr %[x0], [%[px]], #4\n\t"                 \
  "sxtab16 %[a0], %[a1], %[x0]\n\tsxtab16 %[b0], %[a1], %[x1]\n\tsxtab16 %[c0], %[a1], %[x2]\n\t"          \
  "sxtab16 %[x0], %[a1], %[x0], ror #8\n\tsxtab16 %[x1], %[a1], %[x1], ror #8\n\t"                         \
  "sxtab16 %[x2], %[a1], %[x2], ror #8\n\tstr %[a0], [%[pw]], #4\n\tstr %[b0], [%[pw]], #4\n\t"            \
  "str %[c0], [%[pw]], #4\n\tstr %[x0], [%[pw]], #4\n\tstr %[x1], [%[pw]], #4\n\tstr %[x2], [%[pw]], #4\n\t"
/* The forms of UTVM_CONV2D_Q15W_1X1_TRIN_ASM the file's layers take (UTVM_CONV2D_Q15_1X1_FORMS). */
#if UTVM_CONV2D_Q15_1X1_HAS(UTVM_CONV2D_Q15W_1X1_TWO)
#define UTVM_CONV2D_Q15W_1X1_TRIN_TWO UTVM_CONV2D_Q15_1X1_TRI_TEXT("", UTVM_CONV2D_Q15W_1X1_TWO3)
#else
#define UTVM_CONV2D_Q15W_1X1_TRIN_TWO ""
#endif
/* 4 steps: two channel pairs per iteration (one loop end per two pairs, the second pair's first
 * loads in the first's run of stores); an odd number of pairs (form 3) enters at the second. */
#if UTVM_CONV2D_Q15_1X1_HAS(UTVM_CONV2D_Q15W_1X1_FOUR)
#define UTVM_CONV2D_Q15W_1X1_TRIN_FOUR                                                                        \
  "0:\n\t" UTVM_CONV2D_Q15_1X1_PAIR_TEXT("", UTVM_CONV2D_Q15W_1X1_FOUR3, "") "7:\n\t"                           \
      UTVM_CONV2D_Q15_1X1_PAIR_TEXT("", UTVM_CONV2D_Q15W_1X1_FOUR3, UTVM_CONV2D_Q15_1X1_LASTPAIR) "beq 0b\n\t"
#define UTVM_CONV2D_Q15W_1X1_TRIN_ODD "cmp %[t4], #3\n\tbeq 7f\n\t"
#else
#define UTVM_CONV2D_Q15W_1X1_TRIN_FOUR ""
#define UTVM_CONV2D_Q15W_1X1_TRIN_ODD ""
#endif
#if UTVM_CONV2D_Q15_1X1_HAS(UTVM_CONV2D_Q15W_1X1_EIGHT)
#define UTVM_CONV2D_Q15W_1X1_TRIN_EIGHT UTVM_CONV2D_Q15W_1X1_V8 UTVM_CONV2D_Q15_1X1_TRI_TEXT("", UTVM_CONV2D_Q15W_1X1_EIGHT3)
#else
#define UTVM_CONV2D_Q15W_1X1_TRIN_EIGHT ""
#endif
#define UTVM_CONV2D_Q15W_1X1_TRIN_ANY \
  UTVM_CONV2D_Q15_1X1_HAS(UTVM_CONV2D_Q15W_1X1_TWO | UTVM_CONV2D_Q15W_1X1_FOUR | UTVM_CONV2D_Q15W_1X1_EIGHT)
/* Widened weights, any in_c: NP pixel triples in one block (NP > 1: stride 1, out_c even, pixel a
 * of the next triple 2 DC bytes past pixel b's end; else one triple), per triple its inputs
 * converted into the scratch Q (pixel a at *SRC, b and c DB and DC bytes on: two steps per
 * iteration, about 18 cycles per step), then every channel pair (SUMS by the steps, in_c 8, 16 or
 * more: the three forms in one block, one conversion's text, 6-13 cycles per triple to choose by
 * FORM, the steps or 3 for 4 steps with an odd number of pairs, and to set V for 8 steps), YA
 * advanced by 2 YS past pixels b and c (the C around it per triple, about 50 cycles, in the block). */
#define UTVM_CONV2D_Q15W_1X1_TRIN_ASM(NP, SRC, DB, DC, OFFS, W, FORM, PW, Q, QEND, ODD4, YA, YS)                 \
  do {                                                                                                        \
    UTVM_CONV2D_Q15_1X1_TRI_REGS;                                                                             \
    __asm__ volatile(                                                                                         \
        "3:\n\tldr %[px], %[src]\n\tldr %[t4], %[db]\n\tldr %[t5], %[dc]\n\tldr %[a1], %[offs]\n\t"          \
        "ldr %[b1], %[qend]\n\tldr %[pw], %[q]\n\t4:\n\t" UTVM_CONV2D_Q15W_1X1_CV1 UTVM_CONV2D_Q15W_1X1_CV1     \
        "cmp %[pw], %[b1]\n\tbne 4b\n\tadd %[px], %[px], %[t5]\n\tstr %[px], %[src]\n\tldr %[pw], %[w]\n\t"     \
        "ldr %[t4], %[form]\n\tcmp %[t4], #4\n\tbeq 5f\n\tbhi 6f\n\t" UTVM_CONV2D_Q15W_1X1_TRIN_ODD            \
            UTVM_CONV2D_Q15W_1X1_TRIN_TWO                                                                      \
        "b 8f\n\t5:\n\t" UTVM_CONV2D_Q15W_1X1_TRIN_FOUR "b 8f\n\t6:\n\t" UTVM_CONV2D_Q15W_1X1_TRIN_EIGHT "8:\n\t"   \
        "ldr %[t4], %[ys]\n\tadd %[px], %[px], %[t4], lsl #1\n\tstr %[px], %[ya]\n\t"          \
        "ldr %[t4], %[np]\n\tsubs %[t4], %[t4], #1\n\tstr %[t4], %[np]\n\tbne 3b"                            \
        : UTVM_CONV2D_Q15_1X1_TRI_OUTS(PW, YA), [np] "+m"(NP), [src] "+m"(SRC)                                 \
        : UTVM_CONV2D_Q15_1X1_TRI_INS(Q, QEND, ODD4, YS), [db] "m"(DB), [dc] "m"(DC), [offs] "m"(OFFS),   \
          [w] "m"(W), [form] "m"(FORM)                                                                        \
        : "cc", "memory");                                                                                    \
  } while (0)

#endif

/* N_OUT (1 or 2) channels of a channel pair (its data at w) for a pixel triple in C (other
 * compilers, -O0; the last channel of an odd out_c): the same data and arithmetic; outputs at y,
 * y + ys, y + 2 ys; returns the next pair's data. */
static UTVM_DSP_INLINE const int32_t* utvm_conv2d_q15_1x1_tri_c(const int32_t* q, const int32_t* w, int32_t steps,
                                                                bool widened, int32_t n_out, int8_t* y, int32_t ys) {
  const int32_t* pw = &w[2];
  const int32_t* px = q;
  int32_t s[2][3];
  int32_t c;
  int32_t k;
  for (c = 0; c < 2; ++c) {
    s[c][0] = w[c];
    s[c][1] = w[c];
    s[c][2] = w[c];
  }
  for (k = 0; k < steps; ++k) {
    int32_t lanes[4]; /* channel c's even and odd lane words, then channel c + 1's */
    int32_t i;
    if (widened) {
      lanes[0] = pw[0];
      lanes[1] = pw[1];
      lanes[2] = pw[2];
      lanes[3] = pw[3];
      pw = &pw[4];
    } else {
      lanes[0] = utvm_dsp_even(pw[0]);
      lanes[1] = utvm_dsp_even(pw[1]);
      lanes[2] = utvm_dsp_odd(pw[0]);
      lanes[3] = utvm_dsp_odd(pw[1]);
      pw = &pw[2];
    }
    for (i = 0; i < 3; ++i) {
      s[0][i] = __smlad(px[i + 3], lanes[1], __smlad(px[i], lanes[0], s[0][i]));
      s[1][i] = __smlad(px[i + 3], lanes[3], __smlad(px[i], lanes[2], s[1][i]));
    }
    px = &px[6];
  }
  for (c = 0; c < n_out; ++c) {
    /* (the last whole pair's flag in bit 8 of s + 1, UTVM_CONV2D_Q15_1X1_LASTPAIR: its low byte) */
    const int32_t t[3] = {pw[3 * c], pw[(3 * c) + 1], pw[(3 * c) + 2] & 0xFF};
    y[ys + c] = utvm_dsp_rq2(s[c][1], t);
    y[(2 * ys) + c] = utvm_dsp_rq2(s[c][2], t);
    y[c] = utvm_dsp_rq2(s[c][0], t);
  }
  return &pw[6];
}

#if defined(UTVM_CONV2D_Q15_1X1_ASM)
/* NP pixel triples with widened weights (UTVM_CONV2D_Q15W_1X1_TRIN_ASM; its own function: GCC
 * copied the block when inlined in the layer's loop). */
static UTVM_DSP_NOINLINE void utvm_conv2d_q15w_1x1_trin(int32_t np, const int8_t* src, int32_t db, int32_t dc,
                                                        int32_t offs, const int32_t* w, int32_t* q, int32_t steps,
                                                        int32_t form, int8_t* ya, int32_t ys) {
  const int32_t* const qend = &q[6 * steps];
  const int32_t odd4 = steps & 4;
  const int32_t* pw = w;
  UTVM_CONV2D_Q15W_1X1_TRIN_ASM(np, src, db, dc, offs, w, form, pw, q, qend, odd4, ya, ys);
}
#endif

/* Every output of the layer (widened: the weights' layout; scratch: 6 * in_c + 4 bytes). */
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
  /* pixels b and c of a triple: nb and 2 nb pixels on (output bytes ys and 2 ys, input bytes xs and
   * 2 xs: the blocks address pixel c by ys, lsl #1). A last triple of fewer than 3 pixels starts at
   * total - 3 instead (up to two pixels computed again, their outputs written twice, equal: the
   * kernel's input is never its output's storage, passes/patches.py), a layer of 1 or 2 pixels takes
   * triples of one pixel (nb = 0). */
  int32_t nb = 1;
  int32_t ys = out_c;
  int32_t xs = g->in_c;
  int32_t next = 3;
#if defined(UTVM_CONV2D_Q15_1X1_ASM)
  int32_t* const qm = q;
  const int32_t* const qend = &q[6 * steps];
  const int32_t odd4 = steps & 4;
  /* loops entered at their second half or the sign term, compiled out (UTVM_CONV2D_Q15_1X1_ODD4):
   * the C form */
  /* in_c 8 at stride 1, out_c a multiple of 4, 3 pixels or more: every triple in one block (a last
   * triple of fewer pixels in the per-triple block) */
  const bool tris = widened && dense && (steps == 2) && ((out_c & 3) == 0) && (total >= 3);
  /* a form the file left out (UTVM_CONV2D_Q15_1X1_FORMS) */
  const bool no_form =
      widened ? ((tris && !UTVM_CONV2D_Q15_1X1_HAS(UTVM_CONV2D_Q15W_1X1_TRIS)) ||
                 (((!tris && (steps == 2)) || (tris && ((total % 3) != 0))) && !UTVM_CONV2D_Q15_1X1_HAS(UTVM_CONV2D_Q15W_1X1_TWO)) ||
                 ((steps == 4) && !UTVM_CONV2D_Q15_1X1_HAS(UTVM_CONV2D_Q15W_1X1_FOUR)) ||
                 ((steps > 4) && !UTVM_CONV2D_Q15_1X1_HAS(UTVM_CONV2D_Q15W_1X1_EIGHT)))
              : !UTVM_CONV2D_Q15_1X1_HAS((steps == 2) ? UTVM_CONV2D_Q15_1X1_I8_TWO : UTVM_CONV2D_Q15_1X1_I8_LOOP);
  const bool c_form = (!UTVM_CONV2D_Q15_1X1_ODD4_ANY && (odd4 != 0) && (widened ? (steps > 8) : (steps != 2))) ||
                      (!UTVM_CONV2D_Q15_1X1_SIGN_ANY && (p->output_offset != -128)) || no_form;
#else
  const bool c_form = true;
#endif
  /* the channel pairs computed in C per triple, from k0 (the C form: every pair; an odd last
   * channel: its pair, whose second channel is a copy, the last) */
  const int32_t k0 = c_form ? 0 : pairs;
  const int32_t kend = pairs + (out_c & 1);
  int32_t pix = 0;
  int32_t k;
#if defined(UTVM_CONV2D_Q15_1X1_ASM)
  if (UTVM_CONV2D_Q15_1X1_HAS(UTVM_CONV2D_Q15W_1X1_TRIS) && tris && !c_form) {
    int32_t np = total / 3;
    const int8_t* src = in;
    const int32_t* pw = w;
    int8_t* ya = out;
    UTVM_CONV2D_Q15W_1X1_TRIS_ASM(np, src, offs, w, pw, qm, qend, odd4, ya, ys);
    pix = (total / 3) * 3; /* the last one or two pixels: below */
  }
#endif
  for (; pix < total; pix += next) {
    const int32_t* pw = w;
    int8_t* ya;
    if ((pix + 3) > total) {
      if (total >= 3) {
        pix = total - 3;
      } else {
        nb = 0;
        ys = 0;
        xs = 0;
        next = 1;
      }
    }
    ya = &out[pix * out_c];
#if defined(UTVM_CONV2D_Q15_1X1_ASM)
    if (UTVM_CONV2D_Q15W_1X1_TRIN_ANY && widened && !c_form && (pairs > 0)) {
      /* the inputs in the block; every triple left in one block when dense with an even out_c */
      const int8_t* src = dense ? &in[pix * g->in_c] : utvm_conv2d_q15_1x1_src(g, in, pix);
      const int32_t db = dense ? xs : (int32_t)(utvm_conv2d_q15_1x1_src(g, in, pix + nb) - src);
      const int32_t dc = dense ? (2 * xs) : (int32_t)(utvm_conv2d_q15_1x1_src(g, in, pix + (2 * nb)) - src);
      const int32_t np = (dense && ((out_c & 1) == 0) && (nb != 0)) ? ((total - pix) / 3) : 1;
      const int32_t done = 3 * (np - 1);
      /* the block's form: the steps, or 3 for 4 steps and an odd number of channel pairs */
      const int32_t form = ((steps == 4) && ((pairs & 1) != 0)) ? 3 : steps;
      utvm_conv2d_q15w_1x1_trin(np, src, db, dc, offs, w, qm, steps, form, ya, ys);
      /* an odd last channel: in C below, at this triple's (np = 1) */
      pw = &w[pairs * (steps * 4 + 8)];
      ya = &out[(pix * out_c) + (2 * pairs)];
      pix += done;
      for (k = pairs; k < kend; ++k) {
        pw = utvm_conv2d_q15_1x1_tri_c(q, pw, steps, widened, 1, ya, ys);
      }
      continue;
    }
#endif
    if (dense) {
      const int8_t* const xa = &in[pix * g->in_c];
      utvm_conv2d_q15_1x1_inputs3_c(xa, &xa[xs], &xa[2 * xs], steps, offs, !widened, q);
    } else {
      utvm_conv2d_q15_1x1_inputs3_c(utvm_conv2d_q15_1x1_src(g, in, pix), utvm_conv2d_q15_1x1_src(g, in, pix + nb),
                                  utvm_conv2d_q15_1x1_src(g, in, pix + (2 * nb)), steps, offs, !widened, q);
    }
#if defined(UTVM_CONV2D_Q15_1X1_ASM)
    if (c_form || (pairs == 0) || widened) {
      /* in C: below (widened weights: UTVM_CONV2D_Q15W_1X1_TRIN_ASM above) */
    } else if (steps == 2) {
#if UTVM_CONV2D_Q15_1X1_HAS(UTVM_CONV2D_Q15_1X1_I8_TWO)
      UTVM_CONV2D_Q15_1X1_TRI_ASM("", UTVM_CONV2D_Q15_1X1_TWO3, pw, qm, qend, odd4, ya, ys);
#endif
    } else {
#if UTVM_CONV2D_Q15_1X1_HAS(UTVM_CONV2D_Q15_1X1_I8_LOOP)
      UTVM_CONV2D_Q15_1X1_TRI_ASM(UTVM_CONV2D_Q15_1X1_PRE8,
                                  UTVM_CONV2D_Q15_1X1_LOOP8(UTVM_CONV2D_Q15_1X1_STEP3, UTVM_CONV2D_Q15_1X1_LAST8), pw,
                                   qm, qend, odd4, ya, ys);
#endif
    }
#endif
    for (k = k0; k < kend; ++k) {
      pw = utvm_conv2d_q15_1x1_tri_c(q, pw, steps, widened, ((k == pairs) ? 1 : 2), ya, ys);
      ya = &ya[2];
    }
  }
}

#endif /* UTVM_KERNELS_ARM_DSP_CONV2D_Q15_1X1_H_ */
