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
 * - bias, rq: as conv2d_s8_q15.h; except for a layer of rq_mode UTVM_CONV2D_Q15W_RQ2 (the
 *   three-pixel block): w one stream per channel pair (its two biases, its weight words, both
 *   doubled, its two triplets (m, 2k, s + 1)), bias and rq NULL.
 * Scratch (kernel_table.py rule): as conv2d_s8_q15.h.
 */
#ifndef UTVM_KERNELS_ARM_DSP_CONV2D_S8_Q15W_H_
#define UTVM_KERNELS_ARM_DSP_CONV2D_S8_Q15W_H_

#if !defined(__ARM_FEATURE_DSP) || (__ARM_FEATURE_DSP != 1)
#error "utvm-build: these kernels were generated for a DSP target (--target cortex-m4/m7/m33/m55) but compiled without the DSP extension; use --target generic"
#endif

#include "conv2d_q15_1x1.h" /* (and conv2d_q15_window.h) */

/* 4 window bytes of two channels (weight lane words pw[0..3]) and two pixels (lane words xa[0..1],
 * xb[0..1]): 8 SMLAD; returns the next step's weights. */
static UTVM_DSP_INLINE const int32_t* utvm_conv2d_q15w_mac(const int32_t* xa, const int32_t* xb, const int32_t* pw,
                                                           int32_t* a0, int32_t* a1, int32_t* b0, int32_t* b1) {
  *a0 = __smlad(xa[1], pw[1], __smlad(xa[0], pw[0], *a0));
  *b0 = __smlad(xb[1], pw[1], __smlad(xb[0], pw[0], *b0));
  *a1 = __smlad(xa[1], pw[3], __smlad(xa[0], pw[2], *a1));
  *b1 = __smlad(xb[1], pw[3], __smlad(xb[0], pw[2], *b1));
  return &pw[4];
}

/* The C forms of the steps below (step k of the pixel-pair windows q; of the strip windows q, qb). */
static UTVM_DSP_INLINE const int32_t* utvm_conv2d_q15w_cstep(const int32_t* q, const int32_t* qb, int32_t k,
                                                             const int32_t* pw, int32_t* a0, int32_t* a1, int32_t* b0,
                                                             int32_t* b1) {
  (void)qb; /* pixel b's words follow pixel a's */
  return utvm_conv2d_q15w_mac(&q[4 * k], &q[(4 * k) + 2], pw, a0, a1, b0, b1);
}
static UTVM_DSP_INLINE const int32_t* utvm_conv2d_q15w_cstep_strip(const int32_t* q, const int32_t* qb, int32_t k,
                                                                   const int32_t* pw, int32_t* a0, int32_t* a1,
                                                                   int32_t* b0, int32_t* b1) {
  return utvm_conv2d_q15w_mac(&q[2 * k], &qb[2 * k], pw, a0, a1, b0, b1);
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

/* The step of filters larger than 1x1 (through UTVM_CONV2D_Q15_ASM_QB): the windows packed, pixel
 * a's from px, pixel b's from qb (the strips below, or the pixel-pair windows with slot 2). The
 * words loaded four at a time by single LDR, which the Cortex-M4 pipelines (one cycle each after
 * the first: 5 for four words), the pointers advanced by the post-indexed one of each: the even
 * lanes (t0, t1: channel 0's and 1's weight words; t2, t3: pixel a's and b's input words), 4
 * SMLAD, then the odd lanes the same way: 16 instructions and 18 cycles per 16 multiply-accumulates
 * (the LDM form above: 11 and 19; the 1x1 layers keep it, fewer instructions where there are many
 * channels). Three instructions a line. */
#define UTVM_CONV2D_Q15WS_STEP                                                                                  \
  "ldr %[t1], [%[pw], #8]\n\tldr %[t0], [%[pw]], #16\n\tldr %[t3], [%[qb]], #8\n\t"                          \
  "ldr %[t2], [%[px]], #8\n\tsmlad %[a0], %[t2], %[t0], %[a0]\n\tsmlad %[a1], %[t2], %[t1], %[a1]\n\t"        \
  "smlad %[b0], %[t3], %[t0], %[b0]\n\tsmlad %[b1], %[t3], %[t1], %[b1]\n\tldr %[t0], [%[pw], #-12]\n\t"      \
  "ldr %[t1], [%[pw], #-4]\n\tldr %[t2], [%[px], #-4]\n\tldr %[t3], [%[qb], #-4]\n\t"                        \
  "smlad %[a0], %[t2], %[t0], %[a0]\n\tsmlad %[a1], %[t2], %[t1], %[a1]\n\tsmlad %[b0], %[t3], %[t0], %[b0]\n\t" \
  "smlad %[b1], %[t3], %[t1], %[b1]\n\t"

/* The channel-pair sums, the pixel pair's outputs, a copy per requantization mode (GCC: -O2 for
 * the fast ones): utvm_conv2d_q15w_pair_full / _fast / _any (conv2d_q15_window.h). */
UTVM_CONV2D_Q15_KERNEL(utvm_conv2d_q15w, UTVM_CONV2D_Q15_SUMS, UTVM_CONV2D_Q15_ASM_LDM, UTVM_CONV2D_Q15W_STEP, utvm_conv2d_q15w_cstep)
/* (unoptimized GCC cannot give the two-pointer step its 12 registers: the C step there) */
#if defined(__GNUC__) && !defined(__clang__) && !defined(__OPTIMIZE__)
#define UTVM_CONV2D_Q15WS_SUMS UTVM_CONV2D_Q15_CSUMS
#else
#define UTVM_CONV2D_Q15WS_SUMS UTVM_CONV2D_Q15_SUMS
#endif
UTVM_CONV2D_Q15_KERNEL(utvm_conv2d_q15ws, UTVM_CONV2D_Q15WS_SUMS, UTVM_CONV2D_Q15_ASM_QB, UTVM_CONV2D_Q15WS_STEP, utvm_conv2d_q15w_cstep_strip)

/* Filters larger than 1x1 on input channels of whole words, dilation_w 1 (p->strip_cols set by
 * ops/conv.py, which lays the weights out as [OC][KW][KH][IC] for it): per output row one strip of
 * the input columns its windows cover, column by column each column's filter_h segments of in_c
 * bytes as packed q15 words (0 outside the image), so that an output pixel's window is one run of
 * words (the window of the pixel stride_w columns on starts stride_w columns later) and every input
 * byte is converted filter_h times per output row instead of once per window it is in (filter_h x
 * filter_w times); then the pixel pairs of the row straight from the strip. */
static void utvm_conv2d_q15w_strips(utvm_conv2d_q15_pair_fn pair, const utvm_conv2d_q15_params* p, const int8_t* in,
                                    const int32_t* w, const int32_t* bias, const int32_t* rq, void* scratch,
                                    int8_t* out) {
  const utvm_conv_geom* g = &p->g;
  const int32_t out_c = g->out_c;
  const int32_t seg4 = g->in_c >> 2;               /* words of 4 bytes per column segment */
  const int32_t colw = 2 * seg4 * g->filter_h;     /* q15 words per strip column */
  const int32_t step_b = g->stride_w * colw;       /* from a window to the next pixel's */
  const uint32_t off16 = (uint32_t)p->input_offset & 0xFFFFu;
  const int32_t offs = (int32_t)((off16 << 16u) | off16);
  uint8_t* const raw = (uint8_t*)scratch;
  int32_t* const q = (int32_t*)(void*)&raw[(4u - ((uintptr_t)raw & 3u)) & 3u];
  int32_t* const acc = &q[p->strip_cols * colw];
  int32_t r;
  for (r = 0; r < (g->batches * g->out_h); ++r) { /* output rows of every image */
    const int32_t b = r / g->out_h;
    const int32_t iy0 = ((r - (b * g->out_h)) * g->stride_h) - g->pad_h;
    const int8_t* const in_b = &in[b * g->in_h * g->in_w * g->in_c];
    int8_t* const row = &out[r * g->out_w * out_c];
    int32_t* d = q;
    int32_t j;
    int32_t ox;
    for (j = 0; j < p->strip_cols; ++j) {
      const int32_t ix = j - g->pad_w;
      int32_t ky;
      for (ky = 0; ky < g->filter_h; ++ky) {
        const int32_t iy = iy0 + (ky * g->dilation_h);
        if (utvm_conv_inside(g, iy, ix)) {
          d = utvm_conv2d_q15_words(&in_b[((iy * g->in_w) + ix) * g->in_c], seg4, offs, d, 2);
        } else {
          d = utvm_conv2d_q15_zeros(seg4, d, 2);
        }
      }
    }
    for (ox = 0; ox < g->out_w; ox += 2) {
      const int32_t oxb = utvm_min_i32(ox + 1, g->out_w - 1); /* an odd last pixel: with itself */
      pair(p, &q[ox * step_b], &q[oxb * step_b], w, bias, rq, acc, &row[ox * out_c], &row[oxb * out_c]);
    }
  }
}

/* The windows of output pixels pix, pix + 1 and pix + 2 in output order across rows and images (past
 * the last pixel: the last again), packed (slot 2), nw words apart from win on (utvm_conv2d_q15_window;
 * the three-pixel block's 40-byte layers and its C form). */
static UTVM_DSP_INLINE void utvm_conv2d_q15w_tri_windows(const utvm_conv2d_q15_params* p, const int8_t* in,
                                                         int32_t pix, int32_t* win, int32_t nw, int8_t* stage) {
  const utvm_conv_geom* g = &p->g;
  const int32_t per_image = g->out_h * g->out_w;
  const int32_t total = g->batches * per_image;
  int32_t k;
  for (k = 0; k < 3; ++k) {
    const int32_t i = utvm_min_i32(pix + k, total - 1);
    const int32_t b = i / per_image;
    const int32_t oy = (i - (b * per_image)) / g->out_w;
    const int32_t ox = i - (b * per_image) - (oy * g->out_w);
    utvm_conv2d_q15_window(p, &in[b * g->in_h * g->in_w * g->in_c], (oy * g->stride_h) - g->pad_h,
                           (ox * g->stride_w) - g->pad_w, &win[nw * k], stage, 2);
  }
}

/* The rq_mode of a layer that takes the three-pixel block below (ops/conv.py Q15W_RQ2): windows of
 * 28 or 40 bytes, an even out_c, no strips, a filter larger than 1x1, the full int8 range
 * (UTVM_DSP_RQ_FULL), its weights and biases doubled and its triplets (m, 2k, s + 1), so that the
 * block requantizes twice each sum in 4 instructions (dsp_s8.h UTVM_DSP_RQ2_TEXT / utvm_dsp_rq2). */
#define UTVM_CONV2D_Q15W_RQ2 3

#if defined(UTVM_CONV2D_Q15_1X1_ASM) /* (GCC with optimization, inline assembly) */
#define UTVM_CONV2D_Q15W_TRI_ASM 1
/* Windows of 28 bytes (depth4 28: 3x3x3 RGB first layers, 5x5x1, ...) or 40 (10x4x1: KWS's first
 * layer), the full int8 range, an even number of output channels: three output pixels at a time,
 * every channel pair of the three in one inline assembly block (as conv2d_q15_1x1.h does for 1x1
 * layers), with 28 bytes also the triples' 3x3x3 windows that lie inside the image
 * (UTVM_CONV2D_Q15W_W28_WIN; a run of triples whose windows all do in one block): per triple its
 * windows, then per channel pair (one stream: its two biases, its weight words, its two triplets,
 * walked by pw; the loop ends after the pair whose flag is set, UTVM_CONV2D_Q15W_TRI_LASTPAIR) the 7
 * or 10 steps unrolled
 * (UTVM_CONV2D_Q15W_TRI_STEP: 3 pixels x 2 channels, 24 cycles per 24 multiply-accumulates against
 * 18 per 16 for 2 x 2), the six sums requantized from the registers (UTVM_CONV2D_Q15W_W28_RQ), the 6
 * output bytes. 13 registers: the block's state (pointers, counts, the layer's constants) lives in
 * the scratch before the windows (utvm_conv2d_q15w_tri_ctx), read and written at fixed offsets from
 * its start (pr, the one memory operand). A full triple's windows unrolled
 * (UTVM_CONV2D_Q15W_W28_WINS); docs/kernel-guide.md, sixth and seventh rounds. */
typedef struct {
  int8_t* ya;             /* 0: pixel a's output of the channel pair */
  int32_t ys;             /* 4: pixel b's output from a's */
  int32_t ys2;            /* 8: pixel c's */
  int32_t n;              /* 12: triples left in the run */
  const int8_t* src;      /* 16: the run's next input window (top left tap of pixel a; NULL: none) */
  int32_t rs;             /* 20: from a filter row to the next in the input (bytes) */
  int32_t offs;           /* 24: the input offset in both int16 lanes */
  int32_t sd;             /* 28: from a window's last filter row to the next pixel's window (bytes) */
  const int32_t* w;       /* 32: the channel pairs' stream */
  const int8_t* end;      /* 36: a run of the row's last triple (UTVM_CONV2D_Q15W_W28_EDGE): its pixel b's window
                           * (pixels b, c inside the image, a the edge pixel at src); else NULL */
  int32_t win[60];        /* 40: the three packed q15 windows, depth4 / 2 words each */
} utvm_conv2d_q15w_tri_ctx;
/* (the offsets the assembly uses) */
typedef char utvm_conv2d_q15w_tri_ctx_offsets[((offsetof(utvm_conv2d_q15w_tri_ctx, ya) == 0u) &&
                                               (offsetof(utvm_conv2d_q15w_tri_ctx, end) == 36u) &&
                                               (offsetof(utvm_conv2d_q15w_tri_ctx, win) == 40u))
                                                  ? 1
                                                  : -1];
/* The last channel pair's flag (bit 8 of its channel c + 1's s + 1, in t2 after that triplet's
 * loads, set by ops/conv.py conv_q15_1x1_stream as for conv2d_q15_1x1.h; ASR by a register reads
 * its low byte alone): Z clear after the last pair, kept by the stores (instead of loading the
 * stream's end and comparing pw with it: 2 cycles per channel pair of a triple). */
#define UTVM_CONV2D_Q15W_TRI_LASTPAIR "tst %[t2], #256\n\t"
/* The triple blocks the including file's calls take, bit v for a layer of value v (ops/conv.py
 * q15w_triples): 28-byte windows (v = 1, or 3 with the sign term below), 40 (2, or 4), none (0); the
 * generated operator file defines it before the kernels (Params.selects_values), so that a block no
 * layer takes is not compiled (the entry point is shared by the layers of a model with several), and
 * the sign term only when a layer needs it; every block and the sign term when it is not defined. */
#ifndef UTVM_CONV2D_Q15W_TRI
#define UTVM_CONV2D_Q15W_TRI 0x1Fu
#endif
#define UTVM_CONV2D_Q15W_TRI_USES(N) ((UTVM_CONV2D_Q15W_TRI & ((1u << (N)) | (1u << ((N) + 2)))) != 0u)
/* One sum X (twice the layer's) requantized in place (dsp_s8.h UTVM_DSP_RQ2_TEXT) with the
 * channel's triplet m (t0), 2k (t1), sh + 1 (t2); px is free here. When no layer of the file has an
 * output zero point other than -128 (bits 3 and 4 clear; the block's layers have the full range, so
 * their clamp is at the zero point), without the sign term: 2k straight into SMMLAR, 3 instructions
 * instead of 4, the same bytes (a negative sum still lands at or below the zero point -128 and SSAT
 * gives -128; conv2d_q15_1x1.h UTVM_CONV2D_Q15_1X1_RQ1 has the proof). */
#if (UTVM_CONV2D_Q15W_TRI & 0x18u) != 0u
#define UTVM_CONV2D_Q15W_W28_RQ(X) UTVM_DSP_RQ2_TEXT(X, "px", "t0", "t1", "t2")
#else
#define UTVM_CONV2D_Q15W_W28_RQ(X) \
  "smmlar %[px], %[" X "], %[t0], %[t1]\n\tasr %[px], %[px], %[t2]\n\tssat %[" X "], #8, %[px]\n\t"
#endif
#define UTVM_CONV2D_Q15W_W28_TRIPLET "ldr %[t1], [%[pw], #4]\n\tldr %[t2], [%[pw], #8]\n\tldr %[t0], [%[pw]], #12\n\t"
/* Half a step (4 window bytes, their even or odd lanes): channel 0's and 1's weight words (t0, t1:
 * the first half post-indexes pw past the step's 4 words, the second reads them back), the three
 * windows' words at byte X of each (the windows at xa, xb, xc from the context's start in pr), 6
 * SMLAD; the 5 loads in a run (6 cycles), 12 cycles per 12 multiply-accumulates. */
#define UTVM_CONV2D_Q15W_TRI_HALF(W0, W1, X)                                                                       \
  W0 W1 "ldr %[t2], [%[pr], #(%c[xa] + " X ")]\n\tldr %[t3], [%[pr], #(%c[xb] + " X ")]\n\t"                      \
        "ldr %[px], [%[pr], #(%c[xc] + " X ")]\n\tsmlad %[a0], %[t2], %[t0], %[a0]\n\t"                            \
        "smlad %[a1], %[t2], %[t1], %[a1]\n\tsmlad %[b0], %[t3], %[t0], %[b0]\n\tsmlad %[b1], %[t3], %[t1], %[b1]\n\t" \
        "smlad %[c0], %[px], %[t0], %[c0]\n\tsmlad %[c1], %[px], %[t1], %[c1]\n\t"
/* Step k (window bytes 4k..4k+3: the even lanes' word at byte E = 8k of each window, the odd at O). */
#define UTVM_CONV2D_Q15W_TRI_STEP(E, O)                                                         \
  UTVM_CONV2D_Q15W_TRI_HALF("ldr %[t1], [%[pw], #8]\n\t", "ldr %[t0], [%[pw]], #16\n\t", E)    \
  UTVM_CONV2D_Q15W_TRI_HALF("ldr %[t0], [%[pw], #-12]\n\t", "ldr %[t1], [%[pw], #-4]\n\t", O)
/* Step 0, its first half starting pixels b's and c's sums from the biases in a0 and a1 (no moves;
 * a0 and a1 updated last). */
#define UTVM_CONV2D_Q15W_TRI_STEP0                                                                                \
  "ldr %[t1], [%[pw], #8]\n\tldr %[t0], [%[pw]], #16\n\tldr %[t2], [%[pr], #%c[xa]]\n\t"                         \
  "ldr %[t3], [%[pr], #%c[xb]]\n\tldr %[px], [%[pr], #%c[xc]]\n\tsmlad %[b0], %[t3], %[t0], %[a0]\n\t"            \
  "smlad %[c0], %[px], %[t0], %[a0]\n\tsmlad %[a0], %[t2], %[t0], %[a0]\n\tsmlad %[b1], %[t3], %[t1], %[a1]\n\t"   \
  "smlad %[c1], %[px], %[t1], %[a1]\n\tsmlad %[a1], %[t2], %[t1], %[a1]\n\t"                                       \
  UTVM_CONV2D_Q15W_TRI_HALF("ldr %[t0], [%[pw], #-12]\n\t", "ldr %[t1], [%[pw], #-4]\n\t", "4")
#define UTVM_CONV2D_Q15W_TRI_STEPS7                                                                      \
  UTVM_CONV2D_Q15W_TRI_STEP0 UTVM_CONV2D_Q15W_TRI_STEP("8", "12") UTVM_CONV2D_Q15W_TRI_STEP("16", "20") \
  UTVM_CONV2D_Q15W_TRI_STEP("24", "28") UTVM_CONV2D_Q15W_TRI_STEP("32", "36")                            \
  UTVM_CONV2D_Q15W_TRI_STEP("40", "44") UTVM_CONV2D_Q15W_TRI_STEP("48", "52")
#define UTVM_CONV2D_Q15W_TRI_STEPS10                                                                     \
  UTVM_CONV2D_Q15W_TRI_STEPS7 UTVM_CONV2D_Q15W_TRI_STEP("56", "60") UTVM_CONV2D_Q15W_TRI_STEP("64", "68") \
  UTVM_CONV2D_Q15W_TRI_STEP("72", "76")
/* A 3x3x3 window inside the image (rows of 9 bytes, RS apart from S) as its 7 packed q15 word pairs
 * at O + X (X: an immediate operand; the words of conv2d_q15_window.h utvm_conv2d_q15_3x3x3, slot
 * 2): the words across two rows by BFI, the last word's pad byte 0 (its weights are 0), loads and
 * stores in runs; about 48 cycles. F0: the offset in both lanes; S is advanced to the last row, A..H
 * scratch; every argument an operand name. */
#define UTVM_CONV2D_Q15W_W28_WIN(S, RS, F0, O, X, A, B, C, D, E, F, G, H)                                     \
  "ldr %[" A "], [%[" S "]]\n\tldr %[" B "], [%[" S "], #4]\n\tldr %[" C "], [%[" S "], #8]\n\t"               \
  "add %[" S "], %[" S "], %[" RS "]\n\tldr %[" D "], [%[" S "], #-1]\n\tldr %[" E "], [%[" S "], #3]\n\t"      \
  "bfi %[" D "], %[" C "], #0, #8\n\t" UTVM_CONV2D_Q15W_X2(F0, C, A) UTVM_CONV2D_Q15W_X2(F0, F, B)             \
  UTVM_CONV2D_Q15W_X2(F0, G, D) UTVM_CONV2D_Q15W_X2(F0, H, E) UTVM_CONV2D_Q15W_ST(C, O, X, 0)                   \
  UTVM_CONV2D_Q15W_ST(A, O, X, 4) UTVM_CONV2D_Q15W_ST(F, O, X, 8) UTVM_CONV2D_Q15W_ST(B, O, X, 12)               \
  UTVM_CONV2D_Q15W_ST(G, O, X, 16) UTVM_CONV2D_Q15W_ST(D, O, X, 20) UTVM_CONV2D_Q15W_ST(H, O, X, 24)             \
  UTVM_CONV2D_Q15W_ST(E, O, X, 28) "ldr %[" A "], [%[" S "], #7]\n\tadd %[" S "], %[" S "], %[" RS "]\n\t"     \
  "ldr %[" B "], [%[" S "], #-2]\n\tldr %[" C "], [%[" S "], #2]\n\tldr %[" D "], [%[" S "], #5]\n\t"           \
  "bfi %[" B "], %[" A "], #0, #16\n\tlsr %[" D "], %[" D "], #8\n\t" UTVM_CONV2D_Q15W_X2(F0, A, B)              \
  UTVM_CONV2D_Q15W_X2(F0, E, C) UTVM_CONV2D_Q15W_X2(F0, F, D) UTVM_CONV2D_Q15W_ST(A, O, X, 32)                  \
  UTVM_CONV2D_Q15W_ST(B, O, X, 36) UTVM_CONV2D_Q15W_ST(E, O, X, 40) UTVM_CONV2D_Q15W_ST(C, O, X, 44)             \
  UTVM_CONV2D_Q15W_ST(F, O, X, 48) UTVM_CONV2D_Q15W_ST(D, O, X, 52)
/* (the window text's parts: the even lanes of word W plus the offset F0 into E, its odd lanes into
 * W; the store of register R at byte K of the window at O + X) */
#define UTVM_CONV2D_Q15W_X2(F0, E, W) \
  "sxtab16 %[" E "], %[" F0 "], %[" W "]\n\tsxtab16 %[" W "], %[" F0 "], %[" W "], ror #8\n\t"
#define UTVM_CONV2D_Q15W_ST(R, O, X, K) "str %[" R "], [%[" O "], #(%c[" X "] + " #K ")]\n\t"
/* The three windows of a 28-byte triple inside the image from src on (src advanced past them; none
 * when src is NULL), unrolled: the window text in the block's registers (pr the context, src in px,
 * rs in t0, the offset in t1, sd in pw, the sums' registers scratch). */
#define UTVM_CONV2D_Q15W_W28_WIN1(X)                                                                  \
  UTVM_CONV2D_Q15W_W28_WIN("px", "t0", "t1", "pr", X, "a0", "a1", "b0", "b1", "c0", "c1", "t2", "t3") \
  "add %[px], %[px], %[pw]\n\t"
#define UTVM_CONV2D_Q15W_W28_WINS                                                                   \
  "ldr %[px], [%[pr], #16]\n\tcmp %[px], #0\n\tbeq 2f\n\tldr %[t0], [%[pr], #20]\n\tldr %[t1], [%[pr], #24]\n\t" \
  "ldr %[pw], [%[pr], #28]\n\t" UTVM_CONV2D_Q15W_W28_WIN1("xa") "5:\n\t" UTVM_CONV2D_Q15W_W28_WIN1("xb")      \
  UTVM_CONV2D_Q15W_W28_WIN1("xc") "str %[px], [%[pr], #16]\n\t"
/* A row's last triple whose last pixel has its third filter column outside the image (VWW's first
 * layer: pad right 1) and whose other two lie inside, as a run of its own with end set
 * (utvm_conv2d_q15w_w28): the edge pixel as pixel a, its window by the inside form from src (which
 * reads that column's 3 bytes per row in the next input row: the caller checks that one follows),
 * then the column's 9 lanes cleared (0: the input zero point once offset; bytes 6, 7, 8, 15, 16, 17,
 * 24, 25, 26 of the window, halfwords of words 2, 3, 4, 7, 8, 9, 12 and 13), then pixels b and c
 * (end on) by the block's own window text from label 5. EDGE_CHECK at the run's start (2 cycles and a
 * branch not taken per run), EDGE_PATH after the block's end (the normal exit branches over it). */
#define UTVM_CONV2D_Q15W_W28_EDGE_CHECK "ldr %[px], [%[pr], #36]\n\tcmp %[px], #0\n\tbne 6f\n"
#define UTVM_CONV2D_Q15W_W28_EDGE_PATH                                                                          \
  "\n\tb 7f\n6:\n\tldr %[px], [%[pr], #16]\n\tldr %[t0], [%[pr], #20]\n\tldr %[t1], [%[pr], #24]\n\t"          \
  "ldr %[pw], [%[pr], #28]\n\t"                                                                                \
  UTVM_CONV2D_Q15W_W28_WIN("px", "t0", "t1", "pr", "xa", "a0", "a1", "b0", "b1", "c0", "c1", "t2", "t3")         \
  "mov %[a0], #0\n\tstrh %[a0], [%[pr], #(%c[xa] + 10)]\n\tstrh %[a0], [%[pr], #(%c[xa] + 14)]\n\t"           \
  "strh %[a0], [%[pr], #(%c[xa] + 16)]\n\tstrh %[a0], [%[pr], #(%c[xa] + 30)]\n\t"                             \
  "strh %[a0], [%[pr], #(%c[xa] + 32)]\n\tstrh %[a0], [%[pr], #(%c[xa] + 36)]\n\t"                             \
  "str %[a0], [%[pr], #(%c[xa] + 48)]\n\tstrh %[a0], [%[pr], #(%c[xa] + 52)]\n\tldr %[px], [%[pr], #36]\n\t"  \
  "b 5b\n7:"
/* The block on the context at CTX (utvm_conv2d_q15w_tri_ctx, windows of W words): n triples of
 * pixels, per triple its windows by WINS (UTVM_CONV2D_Q15W_W28_WINS, or none), then every channel
 * pair through STEPS; PRE at the run's start, POST after its end (the edge triple's check and path,
 * or none). */
#define UTVM_CONV2D_Q15W_TRI_RUN(CTX, W, WINS, STEPS, PRE, POST)                                                  \
  do {                                                                                                           \
    int32_t pr_;                                                                                                 \
    int32_t px_;                                                                                                 \
    int32_t pw_;                                                                                                 \
    int32_t a0_;                                                                                                 \
    int32_t a1_;                                                                                                 \
    int32_t b0_;                                                                                                 \
    int32_t b1_;                                                                                                 \
    int32_t c0_;                                                                                                 \
    int32_t c1_;                                                                                                 \
    int32_t t0_;                                                                                                 \
    int32_t t1_;                                                                                                 \
    int32_t t2_;                                                                                                 \
    int32_t t3_;                                                                                                 \
    __asm__ volatile(                                                                                            \
        "ldr %[pr], %[q]\n\t" PRE "1:\n\t" WINS "2:\n\tldr %[pw], [%[pr], #32]\n\t" /* (pr: the context on) */    \
        "0:\n\tldr %[a0], [%[pw]], #4\n\tldr %[a1], [%[pw]], #4\n\t" STEPS UTVM_CONV2D_Q15W_W28_TRIPLET             \
        UTVM_CONV2D_Q15W_W28_RQ("a0") UTVM_CONV2D_Q15W_W28_RQ("b0") UTVM_CONV2D_Q15W_W28_RQ("c0")                \
        UTVM_CONV2D_Q15W_W28_TRIPLET UTVM_CONV2D_Q15W_W28_RQ("a1") UTVM_CONV2D_Q15W_W28_RQ("b1")                 \
        UTVM_CONV2D_Q15W_W28_RQ("c1") UTVM_CONV2D_Q15W_TRI_LASTPAIR                                              \
        "ldr %[px], [%[pr]]\n\tldr %[t0], [%[pr], #4]\n\tldr %[t1], [%[pr], #8]\n\t"                             \
        "strb %[b0], [%[px], %[t0]]\n\tstrb %[c0], [%[px], %[t1]]\n\tstrb %[a0], [%[px]], #1\n\t"                \
        "strb %[b1], [%[px], %[t0]]\n\tstrb %[c1], [%[px], %[t1]]\n\tstrb %[a1], [%[px]], #1\n\t"                \
        "str %[px], [%[pr]]\n\tbeq 0b\n\t"                                                                        \
        "add %[px], %[px], %[t1]\n\tstr %[px], [%[pr]]\n\t"                                                      \
        "ldr %[t0], [%[pr], #12]\n\tsubs %[t0], %[t0], #1\n\tstr %[t0], [%[pr], #12]\n\tbne 1b" POST           \
        : [a0] "=&r"(a0_), [a1] "=&r"(a1_), [b0] "=&r"(b0_), [b1] "=&r"(b1_), [c0] "=&r"(c0_), [c1] "=&r"(c1_),   \
          [pr] "=&r"(pr_), [px] "=&r"(px_), [pw] "=&r"(pw_), [t0] "=&r"(t0_), [t1] "=&r"(t1_), [t2] "=&r"(t2_),   \
          [t3] "=&r"(t3_)                                                                                        \
        : [q] "m"(CTX), [xa] "i"(40), [xb] "i"(40 + (4 * (W))), [xc] "i"(40 + (8 * (W))), [ws] "i"(4 * (W))     \
        : "cc", "memory");                                                                                       \
  } while (0)

/* The context of a triple layer in its scratch (4-byte aligned), its constants set. */
static UTVM_DSP_INLINE utvm_conv2d_q15w_tri_ctx* utvm_conv2d_q15w_tri_init(const int32_t* w, void* scratch) {
  uint8_t* const raw = (uint8_t*)scratch;
  utvm_conv2d_q15w_tri_ctx* const cx = (utvm_conv2d_q15w_tri_ctx*)(void*)&raw[(4u - ((uintptr_t)raw & 3u)) & 3u];
  cx->w = w;
  cx->end = NULL;
  cx->src = NULL;
  return cx;
}

/* Every output of a 40-byte-window layer (KWS's 10x4x1), three pixels at a time in output order
 * (across rows: KWS's have 5 pixels; the last pixel repeated to fill the last three): their windows
 * in C (utvm_conv2d_q15_window), then the block for every channel pair. */
static UTVM_DSP_INLINE void utvm_conv2d_q15w_w40(const utvm_conv2d_q15_params* p, const int8_t* in, const int32_t* w,
                                                 void* scratch, int8_t* out) {
  const utvm_conv_geom* g = &p->g;
  const int32_t out_c = g->out_c;
  const int32_t total = g->batches * g->out_h * g->out_w;
  utvm_conv2d_q15w_tri_ctx* const cx = utvm_conv2d_q15w_tri_init(w, scratch);
  int8_t* const stage = (int8_t*)(void*)&cx->win[60];
  int32_t pix;
  for (pix = 0; pix < total; pix += 3) {
    utvm_conv2d_q15w_tri_ctx* ctx = cx;
    utvm_conv2d_q15w_tri_windows(p, in, pix, cx->win, 20, stage);
    cx->ya = &out[pix * out_c];
    cx->ys = (utvm_min_i32(pix + 1, total - 1) - pix) * out_c; /* pixel b's outputs from a's */
    cx->ys2 = (utvm_min_i32(pix + 2, total - 1) - pix) * out_c;
    cx->n = 1;
    UTVM_CONV2D_Q15W_TRI_RUN(ctx, 20, "", UTVM_CONV2D_Q15W_TRI_STEPS10, "", "");
  }
}

/* The window of a 3x3x3 pixel at the image's border (a filter row or two outside it, the first or
 * last column, or both), as utvm_conv2d_q15_window makes it: per filter row inside the image its
 * bytes 0..3, 4..7 and 8 by loads that stay in the image's columns (a column outside: those bytes
 * the input zero point), per row outside the input zero point in every byte (0 once offset), joined
 * into utvm_conv2d_q15_3x3x3's 7 words by shifts; about 80 cycles against about 350 through the
 * staged path. The caller checks that one column at most lies outside (ix0 >= -1, ix0 + 2 <= in_w). */
static UTVM_DSP_NOINLINE void utvm_conv2d_q15w_rows(const utvm_conv_geom* g, const int8_t* in_b, int32_t iy0,
                                                   int32_t ix0, int32_t offs, uint32_t zpw, int32_t* d) {
  uint32_t lo[3]; /* per filter row its bytes 0..3, 4..7, 8 */
  uint32_t mid[3];
  uint32_t hi[3];
  uint32_t v[7];
  int32_t ky;
  for (ky = 0; ky < 3; ++ky) {
    const int32_t iy = iy0 + (ky * g->dilation_h);
    lo[ky] = zpw;
    mid[ky] = zpw;
    hi[ky] = zpw & 0xFFu;
    if ((iy >= 0) && (iy < g->in_h)) {
      const int32_t at = ((iy * g->in_w) + ix0) * 3; /* (-3 for the first column outside in row 0) */
      if (ix0 < 0) { /* column 0 outside: bytes 0..2 */
        lo[ky] = (zpw & 0x00FFFFFFu) | ((uint32_t)(uint8_t)in_b[at + 3] << 24u);
      } else {
        lo[ky] = (uint32_t)utvm_dsp_ld4(&in_b[at]);
      }
      if ((ix0 + 3) > g->in_w) { /* column 2 outside: bytes 6..8 */
        mid[ky] = (zpw & 0xFFFF0000u) | (uint32_t)(uint8_t)in_b[at + 4] | ((uint32_t)(uint8_t)in_b[at + 5] << 8u);
      } else {
        mid[ky] = (uint32_t)utvm_dsp_ld4(&in_b[at + 4]);
        hi[ky] = (uint32_t)(uint8_t)in_b[at + 8];
      }
    }
  }
  v[0] = lo[0];
  v[1] = mid[0];
  v[2] = hi[0] | (lo[1] << 8u);
  v[3] = (lo[1] >> 24u) | (mid[1] << 8u);
  v[4] = (mid[1] >> 24u) | (hi[1] << 8u) | (lo[2] << 16u);
  v[5] = (lo[2] >> 16u) | (mid[2] << 16u);
  v[6] = (mid[2] >> 16u) | (hi[2] << 16u) | (zpw & 0xFF000000u);
  for (ky = 0; ky < 7; ++ky) {
    utvm_conv2d_q15_put(&d[2 * ky], (int32_t)v[ky], offs);
  }
}

/* Every output of such a layer, output row by output row (no division per pixel), three pixels at
 * a time (the last ones of a row repeated to fill its last three): a run of triples whose 3x3x3
 * windows all lie inside the image in one block, which builds them (UTVM_CONV2D_Q15W_W28_WINS); the
 * windows of any other triple in C first (inside the image: utvm_conv2d_q15_3x3x3; at the border,
 * one column outside at most: utvm_conv2d_q15w_rows; else utvm_conv2d_q15_window). Scratch: the
 * block's context (its windows last), then the staging bytes (kernel_table.py _q15_conv_scratch). */
static UTVM_DSP_NOINLINE void utvm_conv2d_q15w_w28(const utvm_conv2d_q15_params* p, const int8_t* in, const int32_t* w,
                                                 void* scratch, int8_t* out) {
  const utvm_conv_geom* g = &p->g;
  const int32_t out_c = g->out_c;
  const uint32_t off16 = (uint32_t)p->input_offset & 0xFFFFu;
  const uint32_t zpw = ((uint32_t)(uint8_t)(int8_t)(-p->input_offset)) * 0x01010101u;
  const bool rgb = (g->in_c == 3) && (g->filter_h == 3) && (g->filter_w == 3) && (g->dilation_w == 1);
  /* the pixels whose window columns lie inside the image: lo..last */
  const int32_t lo = (g->pad_w + g->stride_w - 1) / g->stride_w;
  const int32_t last = (g->in_w >= 3) ? (utvm_min_i32(g->out_w, ((g->in_w - 3 + g->pad_w) / g->stride_w) + 1) - 1) : -1;
  utvm_conv2d_q15w_tri_ctx* const cx = utvm_conv2d_q15w_tri_init(w, scratch);
  int8_t* const stage = (int8_t*)(void*)&cx->win[42];
  int32_t r;
  cx->rs = g->dilation_h * g->in_w * g->in_c;
  cx->offs = (int32_t)((off16 << 16u) | off16);
  cx->sd = (g->stride_w * 3) - (2 * cx->rs);
  for (r = 0; r < (g->batches * g->out_h); ++r) { /* output rows of every image */
    const int32_t b = r / g->out_h;
    const int32_t iy0 = ((r - (b * g->out_h)) * g->stride_h) - g->pad_h;
    const int8_t* const in_b = &in[b * g->in_h * g->in_w * g->in_c];
    int8_t* const row = &out[r * g->out_w * out_c];
    const bool rows_in = rgb && (iy0 >= 0) && ((iy0 + (2 * g->dilation_h)) < g->in_h);
    int32_t ox0 = 0;
    while (ox0 < g->out_w) {
      const int32_t n = (rows_in && (ox0 >= lo)) ? (utvm_max_i32(last - ox0 + 1, 0) / 3) : 0;
      utvm_conv2d_q15w_tri_ctx* ctx = cx;
      const int32_t ixe = ((ox0 + 2) * g->stride_w) - g->pad_w; /* (the edge triple's last pixel) */
      int32_t k;
      int32_t ya = ox0;     /* pixel a, and b's and c's outputs from a's */
      int32_t yb = 1;
      int32_t yc = 2;
      cx->src = NULL;
      cx->end = NULL;
      if (n > 0) {
        cx->src = &in_b[((iy0 * g->in_w) + ((ox0 * g->stride_w) - g->pad_w)) * 3];
      } else if (rows_in && (ox0 >= lo) && ((ox0 + 1) <= last) && ((ox0 + 3) == g->out_w) && ((ixe + 2) == g->in_w) &&
                 ((iy0 + (2 * g->dilation_h) + 1) < g->in_h)) {
        /* the row's last triple, its last pixel one column over the edge (UTVM_CONV2D_Q15W_W28_EDGE):
         * that pixel as a, the other two as b and c; the inside form reads the column in the next row */
        cx->src = &in_b[((iy0 * g->in_w) + ixe) * 3];
        cx->end = &in_b[((iy0 * g->in_w) + ((ox0 * g->stride_w) - g->pad_w)) * 3];
        ya = ox0 + 2;
        yb = -2;
        yc = -1;
      } else {
        for (k = 0; k < 3; ++k) {
          const int32_t ox = utvm_min_i32(ox0 + k, g->out_w - 1);
          const int32_t ix0 = (ox * g->stride_w) - g->pad_w;
          if (rows_in && (ox >= lo) && (ox <= last)) {
            utvm_conv2d_q15_3x3x3(&in_b[((iy0 * g->in_w) + ix0) * 3], cx->rs, cx->offs, zpw, &cx->win[14 * k], 2);
          } else if (rgb && (ix0 >= -1) && ((ix0 + 2) <= g->in_w) && (g->in_w >= 2)) {
            utvm_conv2d_q15w_rows(g, in_b, iy0, ix0, cx->offs, zpw, &cx->win[14 * k]);
          } else {
            utvm_conv2d_q15_window(p, in_b, iy0, ix0, &cx->win[14 * k], stage, 2);
          }
        }
      }
      if (cx->end == NULL) {
        yb = utvm_min_i32(ox0 + 1, g->out_w - 1) - ox0;
        yc = utvm_min_i32(ox0 + 2, g->out_w - 1) - ox0;
      }
      cx->ya = &row[ya * out_c];
      cx->ys = yb * out_c; /* pixel b's outputs from a's */
      cx->ys2 = yc * out_c;
      cx->n = utvm_max_i32(n, 1);
      UTVM_CONV2D_Q15W_TRI_RUN(ctx, 14, UTVM_CONV2D_Q15W_W28_WINS, UTVM_CONV2D_Q15W_TRI_STEPS7,
                               UTVM_CONV2D_Q15W_W28_EDGE_CHECK, UTVM_CONV2D_Q15W_W28_EDGE_PATH);
      ox0 += 3 * utvm_max_i32(n, 1); /* (the block counts cx->n down) */
    }
  }
}
#endif

#if !defined(UTVM_CONV2D_Q15W_TRI_ASM)
/* The C form of the three-pixel block (other compilers, -O0, UTVM_NO_INLINE_ASM; the same
 * arithmetic): the layer's pixels three at a time in output order (the last one repeated), their
 * windows by utvm_conv2d_q15_window (slot 2), per channel pair of the stream (its two biases, its
 * weight words, its two triplets) the six sums of twice the layer's (doubled weights and biases) by
 * SMLAD, requantized by utvm_dsp_rq2. Scratch: the three windows,
 * then the staging bytes (within kernel_table.py _q15_conv_scratch's triple size). */
static UTVM_DSP_NOINLINE void utvm_conv2d_q15w_tri_c(const utvm_conv2d_q15_params* p, const int8_t* in,
                                                     const int32_t* w, void* scratch, int8_t* out) {
  const utvm_conv_geom* g = &p->g;
  const int32_t out_c = g->out_c;
  const int32_t nw = p->depth4 >> 1; /* q15 words per window */
  const int32_t total = g->batches * g->out_h * g->out_w;
  uint8_t* const raw = (uint8_t*)scratch;
  int32_t* const win = (int32_t*)(void*)&raw[(4u - ((uintptr_t)raw & 3u)) & 3u];
  int8_t* const stage = (int8_t*)(void*)&win[3 * nw];
  int32_t pix;
  for (pix = 0; pix < total; pix += 3) {
    int32_t ys[3];
    const int32_t* pw = w;
    int32_t k;
    int32_t c;
    utvm_conv2d_q15w_tri_windows(p, in, pix, win, nw, stage);
    for (k = 0; k < 3; ++k) {
      ys[k] = utvm_min_i32(pix + k, total - 1) * out_c;
    }
    for (c = 0; c < out_c; c += 2) {
      int32_t s0[3];
      int32_t s1[3];
      int32_t t1[3];
      int32_t j;
      for (k = 0; k < 3; ++k) {
        s0[k] = pw[0];
        s1[k] = pw[1];
      }
      pw = &pw[2];
      for (j = 0; j < nw; j += 2) { /* 4 window bytes: their even and odd lanes' words */
        for (k = 0; k < 3; ++k) {
          const int32_t* x = &win[(nw * k) + j];
          s0[k] = __smlad(x[1], pw[1], __smlad(x[0], pw[0], s0[k]));
          s1[k] = __smlad(x[1], pw[3], __smlad(x[0], pw[2], s1[k]));
        }
        pw = &pw[4];
      }
      /* (the last pair's flag, bit 8 of the second s + 1, masked: a C shift by 256 + s is undefined) */
      t1[0] = pw[3];
      t1[1] = pw[4];
      t1[2] = pw[5] & 0xFF;
      for (k = 0; k < 3; ++k) {
        out[ys[k] + c] = utvm_dsp_rq2(s0[k], pw);
        out[ys[k] + c + 1] = utvm_dsp_rq2(s1[k], t1);
      }
      pw = &pw[6];
    }
  }
}
#endif

/* scratch and rq: as utvm_conv2d_s8_q15. A layer whose rq_mode is UTVM_CONV2D_Q15W_RQ2 takes the
 * three-pixel block: w its channel pairs' stream (per pair its two doubled biases, its doubled
 * weight words, its two triplets (m, 2k, s + 1): ops/conv.py), bias and rq unused (NULL); the pair
 * functions and the strips are compiled only when a layer of another mode calls
 * (UTVM_CONV2D_Q15_RQ_MODES). */
static UTVM_DSP_ENTRY void utvm_conv2d_s8_q15w(const utvm_conv2d_q15_params* p, const int8_t* in, const int32_t* w,
                                               const int32_t* bias, const int32_t* rq, void* scratch, int8_t* out) {
  if (p->rq_mode == UTVM_CONV2D_Q15W_RQ2) {
#if defined(UTVM_CONV2D_Q15W_TRI_ASM)
    if (UTVM_CONV2D_Q15W_TRI_USES(1) && (p->depth4 == 28)) {
      utvm_conv2d_q15w_w28(p, in, w, scratch, out);
    } else if (UTVM_CONV2D_Q15W_TRI_USES(2)) {
      utvm_conv2d_q15w_w40(p, in, w, scratch, out);
    } else {
      /* (not reached: the generator defines the bit of each block its layers take) */
    }
#else
    utvm_conv2d_q15w_tri_c(p, in, w, scratch, out);
#endif
  } else if ((UTVM_CONV2D_Q15_RQ_MODES & 7u) != 0u) {
    const utvm_conv_geom* g = &p->g;
    /* filters larger than 1x1: packed windows (strips, or slot 2); 1x1: interleaved (slot 4) */
    utvm_conv2d_q15_pair_fn pair = UTVM_CONV2D_Q15_PICK(utvm_conv2d_q15ws_pair, p);
    int32_t slot = 2;
    if ((g->filter_h * g->filter_w) == 1) {
      pair = UTVM_CONV2D_Q15_PICK(utvm_conv2d_q15w_pair, p);
      slot = 4;
    }
    if (p->strip_cols > 0) {
      utvm_conv2d_q15w_strips(pair, p, in, w, bias, rq, scratch, out);
    } else {
      utvm_conv2d_q15_run(pair, slot, p, in, w, bias, rq, scratch, out, 0);
    }
  } else {
    /* (no layer of these modes) */
  }
}

/* 1x1 layers (ops/conv.py conv_q15_1x1_layer): w, the channel pairs' data with int16 lane weights
 * (conv2d_q15_1x1.h); scratch: 6 * in_c + 4 bytes. UTVM_DSP_ENTRY: a model may use only one of this
 * file's two entry points. */
static UTVM_DSP_HOT_ENTRY void utvm_conv2d_s8_q15w_1x1(const utvm_conv2d_q15_params* p, const int8_t* in,
                                                       const int32_t* w, void* scratch, int8_t* out) {
  utvm_conv2d_q15_1x1_run(p, in, w, scratch, out, true);
}

#endif /* UTVM_KERNELS_ARM_DSP_CONV2D_S8_Q15W_H_ */
