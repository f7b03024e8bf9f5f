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

#if defined(UTVM_CONV2D_Q15_1X1_ASM) /* (GCC with optimization, inline assembly) */
#define UTVM_CONV2D_Q15W_W28_ASM 1
/* Windows of 28 bytes (depth4 28: 3x3x3 RGB first layers, 5x5x1, ...), the full int8 range, an even
 * number of output channels: every channel pair of a pixel pair in one inline assembly block, as
 * conv2d_q15_1x1.h does for 1x1 layers: per pair its biases, the 7 steps unrolled
 * (UTVM_CONV2D_Q15WS_STEP: 18 cycles per 16 multiply-accumulates), the four sums requantized from the
 * registers (UTVM_CONV2D_Q15W_W28_RQ), the 4 output bytes; the pair count, the output pointer and
 * pixel b's distance from it are memory operands. Against the pair function (a call, the steps'
 * count bits and loop, the requantization block's operand moves per channel pair): VWW op0 1.31 M ->
 * 1.10 M estimated cycles. 13 registers. */
/* One sum X requantized in place (dsp_s8.h utvm_dsp_rq3, UTVM_DSP_RQ_FULL) with the channel's
 * triplet m (t0), k (t1), sh (t2); t3 and px are free here. */
#define UTVM_CONV2D_Q15W_W28_RQ(X)                                                                \
  "and %[t3], %[" X "], #0x80000000\n\torr %[t3], %[t3], #0x40000000\n\t"                         \
  "add %[px], %[t1], %[" X "], asr #31\n\tsmlal %[t3], %[px], %[" X "], %[t0]\n\t"                 \
  "asr %[px], %[px], %[t2]\n\tssat %[" X "], #8, %[px]\n\t"
#define UTVM_CONV2D_Q15W_W28_TRIPLET "ldr %[t1], [%[pr], #4]\n\tldr %[t2], [%[pr], #8]\n\tldr %[t0], [%[pr]], #12\n\t"
#define UTVM_CONV2D_Q15W_W28_PAIRS(PAIRS, PW, PB, PR, Q, QB, YA, YS)                                                 \
  do {                                                                                                               \
    const int32_t* px_;                                                                                              \
    const int32_t* qb_;                                                                                              \
    int32_t a0_;                                                                                                     \
    int32_t a1_;                                                                                                     \
    int32_t b0_;                                                                                                     \
    int32_t b1_;                                                                                                     \
    int32_t t0_;                                                                                                     \
    int32_t t1_;                                                                                                     \
    int32_t t2_;                                                                                                     \
    int32_t t3_;                                                                                                     \
    __asm__ volatile(                                                                                                \
        "0:\n\tldr %[px], %[q]\n\tldr %[qb], %[qbm]\n\tldr %[a0], [%[pb]], #4\n\tldr %[a1], [%[pb]], #4\n\t"           \
        "mov %[b0], %[a0]\n\tmov %[b1], %[a1]\n\t" UTVM_CONV2D_Q15WS_STEP UTVM_CONV2D_Q15WS_STEP                       \
            UTVM_CONV2D_Q15WS_STEP UTVM_CONV2D_Q15WS_STEP UTVM_CONV2D_Q15WS_STEP UTVM_CONV2D_Q15WS_STEP               \
                UTVM_CONV2D_Q15WS_STEP UTVM_CONV2D_Q15W_W28_TRIPLET UTVM_CONV2D_Q15W_W28_RQ("a0")                     \
                    UTVM_CONV2D_Q15W_W28_RQ("b0") UTVM_CONV2D_Q15W_W28_TRIPLET UTVM_CONV2D_Q15W_W28_RQ("a1")          \
                        UTVM_CONV2D_Q15W_W28_RQ("b1")                                                                \
        "ldr %[px], %[ya]\n\tldr %[qb], %[ys]\n\tstrb %[b0], [%[px], %[qb]]\n\tstrb %[a0], [%[px]], #1\n\t"           \
        "strb %[b1], [%[px], %[qb]]\n\tstrb %[a1], [%[px]], #1\n\t"                                                  \
        "str %[px], %[ya]\n\tldr %[t0], %[k]\n\tsubs %[t0], %[t0], #1\n\tstr %[t0], %[k]\n\tbne 0b"                   \
        : [a0] "=&r"(a0_), [a1] "=&r"(a1_), [b0] "=&r"(b0_), [b1] "=&r"(b1_), [px] "=&r"(px_), [qb] "=&r"(qb_),       \
          [t0] "=&r"(t0_), [t1] "=&r"(t1_), [t2] "=&r"(t2_), [t3] "=&r"(t3_), [pw] "+r"(PW), [pb] "+r"(PB),             \
          [pr] "+r"(PR), [ya] "+m"(YA), [k] "+m"(PAIRS)                                                              \
        : [q] "m"(Q), [qbm] "m"(QB), [ys] "m"(YS)                                                                    \
        : "cc", "memory");                                                                                           \
  } while (0)

/* Does p take utvm_conv2d_q15w_w28 (packed windows of 28 bytes, UTVM_DSP_RQ_FULL, even out_c)? */
static UTVM_DSP_INLINE bool utvm_conv2d_q15w_is_w28(const utvm_conv2d_q15_params* p) {
  return (p->depth4 == 28) && (p->rq_mode == UTVM_DSP_RQ_FULL) && ((p->g.out_c & 1) == 0) && (p->strip_cols == 0) &&
         ((p->g.filter_h * p->g.filter_w) > 1);
}

/* Every output of such a layer: per pixel pair its packed windows (utvm_conv2d_q15_windows, the
 * scratch of utvm_conv2d_q15_run), then every channel pair in one assembly block. */
static UTVM_DSP_INLINE void utvm_conv2d_q15w_w28(const utvm_conv2d_q15_params* p, const int8_t* in, const int32_t* w,
                                                 const int32_t* bias, const int32_t* rq, void* scratch, int8_t* out) {
  const int32_t out_c = p->g.out_c;
  const int32_t total = p->g.batches * p->g.out_h * p->g.out_w;
  uint8_t* const raw = (uint8_t*)scratch;
  int32_t* const q = (int32_t*)(void*)&raw[(4u - ((uintptr_t)raw & 3u)) & 3u];
  int8_t* const stage = (int8_t*)(void*)&q[p->depth4 + (2 * (out_c + 1))];
  int32_t pix = 0;
  while (pix < total) {
    const int32_t first = utvm_conv2d_q15_windows(p, in, pix, total, q, stage, 2);
    const int32_t* pw = w;
    const int32_t* pb = bias;
    const int32_t* pr = rq;
    const int32_t* qa = q;
    const int32_t* qb = &q[14];
    int8_t* ya = &out[first * out_c];
    const int32_t ys = (utvm_min_i32(first + 1, total - 1) - first) * out_c; /* pixel b's outputs from a's */
    int32_t pairs = out_c >> 1;
    UTVM_CONV2D_Q15W_W28_PAIRS(pairs, pw, pb, pr, qa, qb, ya, ys);
    pix = first + 2;
  }
}
#endif

/* scratch and rq: as utvm_conv2d_s8_q15. */
static UTVM_DSP_ENTRY void utvm_conv2d_s8_q15w(const utvm_conv2d_q15_params* p, const int8_t* in, const int32_t* w,
                                               const int32_t* bias, const int32_t* rq, void* scratch, int8_t* out) {
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
#if defined(UTVM_CONV2D_Q15W_W28_ASM)
  } else if (utvm_conv2d_q15w_is_w28(p)) {
    utvm_conv2d_q15w_w28(p, in, w, bias, rq, scratch, out);
#endif
  } else {
    utvm_conv2d_q15_run(pair, slot, p, in, w, bias, rq, scratch, out, 0);
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
