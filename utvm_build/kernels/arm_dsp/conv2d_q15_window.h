/* utvm-build kernels, DSP extension: what the two q15 CONV_2D kernels share (conv2d_s8_q15.h with
 * int8 weights, conv2d_s8_q15w.h with int16 pre-widened weights, --optimize speed): their
 * parameters, the q15 windows of a pixel pair in scratch, the requantization of a pair's sums.
 *
 * A window: per 4 window bytes, the pixel's two words of int16 lanes with the input offset added
 * (bytes 0 and 2, bytes 1 and 3), at every 4th word pair (the other pixel of the pair owns the
 * words between); taps outside the image are 0 (the reference skips them).
 */
#ifndef UTVM_KERNELS_ARM_DSP_CONV2D_Q15_WINDOW_H_
#define UTVM_KERNELS_ARM_DSP_CONV2D_Q15_WINDOW_H_

#if !defined(__ARM_FEATURE_DSP) || (__ARM_FEATURE_DSP != 1)
#error "utvm-build: these kernels were generated for a DSP target (--target cortex-m4/m7/m33/m55) but compiled without the DSP extension; use --target generic"
#endif

#include "conv.h"
#include "dsp_s8.h"

typedef struct {
  utvm_conv_geom g;
  int32_t input_offset;  /* -input zero point */
  int32_t output_offset; /* output zero point */
  int32_t act_min;
  int32_t act_max;
  int32_t depth4;  /* filter_h * filter_w * in_c rounded up to a multiple of 4 */
  int32_t rq_mode; /* UTVM_DSP_RQ_ANY / _FAST / _FULL (dsp_s8.h utvm_dsp_rq3) */
} utvm_conv2d_q15_params;

/* Four int8 (one word) as two words of int16 lanes with the offset added: even bytes, odd bytes. */
static UTVM_DSP_INLINE void utvm_conv2d_q15_put(int32_t* dst, int32_t v, int32_t offs) {
  dst[0] = __sxtab16(offs, v);
  dst[1] = utvm_dsp_odd_add(offs, v);
}

/* n4 words of 4 int8 from src into the q15 slot d (every 4th word pair); returns the next slot. */
static UTVM_DSP_INLINE int32_t* utvm_conv2d_q15_words(const int8_t* src, int32_t n4, int32_t offs, int32_t* d) {
  const int8_t* s = src;
  int32_t* o = d;
  int32_t k;
  for (k = 0; k < n4; ++k) {
    utvm_conv2d_q15_put(o, utvm_dsp_ld4(s), offs);
    s = &s[4];
    o = &o[4];
  }
  return o;
}

/* n4 zero word pairs into the q15 slot d; returns the next slot. */
static UTVM_DSP_INLINE int32_t* utvm_conv2d_q15_zeros(int32_t n4, int32_t* d) {
  int32_t* o = d;
  int32_t k;
  for (k = 0; k < n4; ++k) {
    o[0] = 0;
    o[1] = 0;
    o = &o[4];
  }
  return o;
}

/* n bytes from s to o, a word at a time (unaligned LDR / STR). */
static UTVM_DSP_INLINE void utvm_conv2d_q15_copy(const int8_t* s, int32_t n, int8_t* o) {
  int32_t k = 0;
  while ((k + 4) <= n) {
    uint32_t v;
    (void)memcpy(&v, &s[k], sizeof v);
    (void)memcpy(&o[k], &v, sizeof v);
    k += 4;
  }
  while (k < n) {
    o[k] = s[k];
    ++k;
  }
}

/* The bytes of filter row ky of the window at (iy, ix0) into b (the input zero point zp for taps
 * outside the image); returns the end. */
static int8_t* utvm_conv2d_q15_stage_row(const utvm_conv_geom* g, const int8_t* in_b, int32_t iy, int32_t ix0,
                                         int8_t zp, int8_t* b) {
  int8_t* o = b;
  int32_t kx;
  int32_t c;
  if ((g->dilation_w == 1) && (iy >= 0) && (iy < g->in_h) && (ix0 >= 0) && ((ix0 + g->filter_w) <= g->in_w)) {
    /* the whole row inside: contiguous in the input */
    const int32_t seg = g->filter_w * g->in_c;
    utvm_conv2d_q15_copy(&in_b[((iy * g->in_w) + ix0) * g->in_c], seg, o);
    o = &o[seg];
  } else {
    for (kx = 0; kx < g->filter_w; ++kx) {
      const int32_t ix = ix0 + (kx * g->dilation_w);
      if (utvm_conv_inside(g, iy, ix)) {
        const int8_t* s = &in_b[((iy * g->in_w) + ix) * g->in_c];
        for (c = 0; c < g->in_c; ++c) {
          o[c] = s[c];
        }
      } else {
        for (c = 0; c < g->in_c; ++c) {
          o[c] = zp;
        }
      }
      o = &o[g->in_c];
    }
  }
  return o;
}

/* The q15 words of a window inside the image, its filter rows of seg bytes (seg >= 3, not a
 * multiple of 4) row_step apart from s0, depth = filter_h * seg bytes (filter_h >= 2), read as
 * words (unaligned LDR): a word across two rows from two loads, the last word completed with the
 * input zero point (zpw: in every byte). Every byte read is in the window's rows or between them:
 * a word's load from row r reads at most 3 bytes past its end, which lie before the end of row
 * r + 1's bytes (row_step >= seg >= 3); the second row's load starts n1 <= 3 bytes before it;
 * the last word's load ends at the last row's end and starts after the first row's start
 * (seg >= 4, or a second row). */
static UTVM_DSP_INLINE void utvm_conv2d_q15_direct(const int8_t* s0, int32_t seg, int32_t row_step, int32_t depth,
                                                   int32_t offs, uint32_t zpw, int32_t* d) {
  const int8_t* s = s0; /* the row of the next word's first byte */
  int32_t c = 0;         /* and its column */
  int32_t* o = d;
  int32_t k;
  for (k = 0; k < depth; k += 4) {
    uint32_t v;
    int32_t n1;
    if (c == seg) {
      s = &s[row_step];
      c = 0;
    }
    n1 = seg - c; /* bytes left in the row */
    if (n1 >= 4) {
      v = (uint32_t)utvm_dsp_ld4(&s[c]);
      c += 4;
    } else {
      const uint32_t keep = 8u * (uint32_t)(4 - n1);
      const uint32_t mask = 0xFFFFFFFFu >> keep; /* the n1 low bytes */
      if ((k + 4) > depth) {
        v = ((uint32_t)utvm_dsp_ld4(&s[seg - 4]) >> keep) | (zpw & ~mask);
      } else {
        const int8_t* t = &s[row_step];
        v = ((uint32_t)utvm_dsp_ld4(&s[c]) & mask) | ((uint32_t)utvm_dsp_ld4(&t[-n1]) & ~mask);
        s = t;
        c = 4 - n1;
      }
    }
    utvm_conv2d_q15_put(o, (int32_t)v, offs);
    o = &o[4];
  }
}

/* The window of the output pixel whose top left tap is (iy0, ix0) in image in_b, into the q15
 * slot dst (2 words every 4 words: the other pixel of the pair owns the words between). */
static UTVM_DSP_NOINLINE void utvm_conv2d_q15_window(const utvm_conv2d_q15_params* p, const int8_t* in_b, int32_t iy0,
                                   int32_t ix0, int32_t* dst, int8_t* stage) {
  const utvm_conv_geom* g = &p->g;
  const uint32_t off16 = (uint32_t)p->input_offset & 0xFFFFu;
  const int32_t offs = (int32_t)((off16 << 16u) | off16);
  const int32_t seg = g->filter_w * g->in_c;
  const int8_t zp = (int8_t)(-p->input_offset);
  int32_t* d = dst;
  int32_t ky;
  int32_t kx;
  int32_t k;
  if ((g->dilation_w == 1) && ((seg & 3) == 0)) {
    /* filter rows of whole words (e.g. 10x4x1, 3x3x4k): a row inside the image converts
     * directly; a row across the border through the staging bytes */
    const int32_t n4 = seg >> 2;
    const bool cols_in = (ix0 >= 0) && ((ix0 + g->filter_w) <= g->in_w);
    for (ky = 0; ky < g->filter_h; ++ky) {
      const int32_t iy = iy0 + (ky * g->dilation_h);
      if ((iy < 0) || (iy >= g->in_h)) {
        d = utvm_conv2d_q15_zeros(n4, d);
      } else if (cols_in) {
        d = utvm_conv2d_q15_words(&in_b[((iy * g->in_w) + ix0) * g->in_c], n4, offs, d);
      } else {
        (void)utvm_conv2d_q15_stage_row(g, in_b, iy, ix0, zp, stage);
        d = utvm_conv2d_q15_words(stage, n4, offs, d);
      }
    }
  } else if ((g->in_c & 3) == 0) {
    /* width-dilated: tap by tap */
    const int32_t n4 = g->in_c >> 2;
    for (ky = 0; ky < g->filter_h; ++ky) {
      const int32_t iy = iy0 + (ky * g->dilation_h);
      for (kx = 0; kx < g->filter_w; ++kx) {
        const int32_t ix = ix0 + (kx * g->dilation_w);
        if (utvm_conv_inside(g, iy, ix)) {
          d = utvm_conv2d_q15_words(&in_b[((iy * g->in_w) + ix) * g->in_c], n4, offs, d);
        } else {
          d = utvm_conv2d_q15_zeros(n4, d);
        }
      }
    }
  } else {
    /* rows not of whole words (e.g. 3x3x3) */
    const int32_t iy_last = iy0 + ((g->filter_h - 1) * g->dilation_h);
    const bool inside =
        (g->dilation_w == 1) && (ix0 >= 0) && ((ix0 + g->filter_w) <= g->in_w) && (iy0 >= 0) && (iy_last < g->in_h);
    if (inside && (seg >= 3) && (g->filter_h >= 2)) {
      /* the whole window inside (most pixels), rows of 3 bytes or more: its words straight from
       * the input, no staging */
      const uint32_t zpb = (uint32_t)(uint8_t)zp;
      utvm_conv2d_q15_direct(&in_b[((iy0 * g->in_w) + ix0) * g->in_c], seg, g->dilation_h * g->in_w * g->in_c,
                             seg * g->filter_h, offs, zpb * 0x01010101u, d);
    } else {
      /* the window's bytes first, the input zero point for taps outside the image and for the
       * padding to depth4 (0 once offset) */
      int8_t* b = stage;
      if (inside) {
        /* the whole window inside: its rows copied straight from the input */
        const int8_t* s = &in_b[((iy0 * g->in_w) + ix0) * g->in_c];
        const int32_t row_step = g->dilation_h * g->in_w * g->in_c;
        for (ky = 0; ky < g->filter_h; ++ky) {
          utvm_conv2d_q15_copy(s, seg, b);
          b = &b[seg];
          if ((ky + 1) < g->filter_h) {
            s = &s[row_step];
          }
        }
      } else {
        for (ky = 0; ky < g->filter_h; ++ky) {
          b = utvm_conv2d_q15_stage_row(g, in_b, iy0 + (ky * g->dilation_h), ix0, zp, b);
        }
      }
      for (k = (int32_t)(b - stage); k < p->depth4; ++k) {
        stage[k] = zp;
      }
      (void)utvm_conv2d_q15_words(stage, p->depth4 >> 2, offs, d);
    }
  }
}

/* The windows of the pixel pair starting at pix (of total output pixels; an odd last pixel with
 * the one before it) into the q15 scratch q; returns the pair's first pixel. */
static UTVM_DSP_INLINE int32_t utvm_conv2d_q15_windows(const utvm_conv2d_q15_params* p, const int8_t* in, int32_t pix,
                                                       int32_t total, int32_t* q, int8_t* stage) {
  const utvm_conv_geom* g = &p->g;
  const int32_t per_image = g->out_h * g->out_w;
  const int32_t first = ((pix + 1) == total) ? utvm_max_i32(pix - 1, 0) : pix;
  int32_t k;
  for (k = 0; k < 2; ++k) {
    const int32_t i = utvm_min_i32(first + k, total - 1);
    const int32_t b = i / per_image;
    const int32_t r = i - (b * per_image);
    const int32_t oy = r / g->out_w;
    const int32_t ox = r - (oy * g->out_w);
    utvm_conv2d_q15_window(p, &in[b * g->in_h * g->in_w * g->in_c], (oy * g->stride_h) - g->pad_h,
                           (ox * g->stride_w) - g->pad_w, &q[2 * k], stage);
  }
  return first;
}

/* The sums of a pixel pair (channel c: acc[2c] pixel a, acc[2c + 1] pixel b) requantized into
 * ya and yb. */
static UTVM_DSP_INLINE void utvm_conv2d_q15_out(const utvm_conv2d_q15_params* p, const int32_t* acc,
                                                const int32_t* rq, int8_t* ya, int8_t* yb, int32_t mode) {
  const int32_t zp = p->output_offset;
  const int32_t lo = p->act_min;
  const int32_t hi = p->act_max;
  const int32_t* pa = acc;
  const int32_t* pr = rq;
  const int32_t out_c = p->g.out_c;
  int32_t c;
  for (c = 0; c < out_c; ++c) {
    const int32_t m = pr[0];
    const int32_t k = pr[1];
    const int32_t sh = pr[2];
    const int8_t va = utvm_dsp_rq3(pa[0], mode, m, k, sh, zp, lo, hi);
    const int8_t vb = utvm_dsp_rq3(pa[1], mode, m, k, sh, zp, lo, hi);
    ya[c] = va;
    yb[c] = vb;
    pa = &pa[2];
    pr = &pr[3];
  }
}

/* The sums of a channel pair over the window pair in q (steps of 4 window bytes of both pixels)
 * into *pa0..*pb1 (channel 0 and 1 of pixel a, then of pixel b), next: the next channel pair's
 * weights. With GCC the kernel's STEP (assembly text: one step, 16 multiply-accumulates,
 * post-indexed loads advancing %[px] and %[pw], scratch registers %[t0]..%[t5]) runs once for an
 * odd count, then unrolled twice in a counted loop (13 registers in all, so a frame pointer may
 * keep r7); other compilers call CSTEP(px, pw, &a0, &a1, &b0, &b1) per step (it returns pw
 * advanced past the step's weights). Clang takes CSTEP too: at -O2 and -O3 its register allocator
 * gave up on the 13 operands ("inline assembly requires more registers than available") when the
 * kernel has a single caller whose constant parameters it propagates (a model with one widened
 * 3x3 layer; VWW once its 1x1 layers took conv2d_q15_1x1.h). A statement macro, as the family
 * skeletons. */
#if defined(__GNUC__) && !defined(__clang__) && !defined(UTVM_NO_INLINE_ASM)
#define UTVM_CONV2D_Q15_ASM(TEXT, N, PX, PW, A0, A1, B0, B1)                                              \
  do {                                                                                                    \
    int32_t t0_;                                                                                          \
    int32_t t1_;                                                                                          \
    int32_t t2_;                                                                                          \
    int32_t t3_;                                                                                          \
    int32_t t4_;                                                                                          \
    int32_t t5_;                                                                                          \
    __asm__(TEXT                                                                                          \
            : [a0] "+r"(A0), [a1] "+r"(A1), [b0] "+r"(B0), [b1] "+r"(B1), [px] "+r"(PX), [pw] "+r"(PW),    \
              [n] "+r"(N), [t0] "=&r"(t0_), [t1] "=&r"(t1_), [t2] "=&r"(t2_), [t3] "=&r"(t3_),            \
              [t4] "=&r"(t4_), [t5] "=&r"(t5_)                                                             \
            :                                                                                             \
            : "cc", "memory");                                                                            \
  } while (0)
#define UTVM_CONV2D_Q15_SUMS(STEP, CSTEP, q, w, steps, pa0, pa1, pb0, pb1, next)                            \
  do {                                                                                                    \
    const int32_t* px_ = (q);                                                                             \
    const int32_t* pw_ = (w);                                                                             \
    int32_t n_ = (steps) >> 1;                                                                            \
    int32_t a0_ = *(pa0);                                                                                 \
    int32_t a1_ = *(pa1);                                                                                 \
    int32_t b0_ = *(pb0);                                                                                 \
    int32_t b1_ = *(pb1);                                                                                 \
    if (((steps) & 1) != 0) {                                                                             \
      UTVM_CONV2D_Q15_ASM(STEP, n_, px_, pw_, a0_, a1_, b0_, b1_);                                        \
    }                                                                                                     \
    if (n_ != 0) {                                                                                        \
      UTVM_CONV2D_Q15_ASM("1:\n\t" STEP STEP "subs %[n], %[n], #1\n\tbne 1b", n_, px_, pw_, a0_, a1_, b0_, \
                          b1_);                                                                           \
    }                                                                                                     \
    *(pa0) = a0_;                                                                                         \
    *(pa1) = a1_;                                                                                         \
    *(pb0) = b0_;                                                                                         \
    *(pb1) = b1_;                                                                                         \
    (next) = pw_;                                                                                         \
  } while (0)
#else
#define UTVM_CONV2D_Q15_SUMS(STEP, CSTEP, q, w, steps, pa0, pa1, pb0, pb1, next)                       \
  do {                                                                                                \
    int32_t k_;                                                                                       \
    (next) = (w);                                                                                     \
    for (k_ = 0; k_ < (steps); ++k_) {                                                                \
      (next) = CSTEP(&(q)[4 * k_], (next), (pa0), (pa1), (pb0), (pb1));                               \
    }                                                                                                 \
  } while (0)
#endif

/* NAME: the sums of a channel pair with STEP / CSTEP (UTVM_CONV2D_Q15_SUMS), returning the next
 * channel pair's weights. */
#define UTVM_CONV2D_Q15_SUMS_FN(NAME, STEP, CSTEP)                                                            \
  static UTVM_DSP_INLINE const int32_t* NAME(const int32_t* q, const int32_t* w, int32_t steps, int32_t* a0, \
                                             int32_t* a1, int32_t* b0, int32_t* b1) {                        \
    const int32_t* next;                                                                                     \
    UTVM_CONV2D_Q15_SUMS(STEP, CSTEP, q, w, steps, a0, a1, b0, b1, next);                                    \
    return next;                                                                                             \
  }

/* Every output channel of the pixel pair in the q15 scratch q: per channel pair, from its bias,
 * SUMS(q, pw, steps, &a0, &a1, &b0, &b1) (the kernel's inner loop; returns the next pair's weights),
 * the sums into acc (channel c: acc[2c] pixel a, acc[2c + 1] pixel b), then requantized into ya
 * and yb. An odd last channel: its pair's second channel is a copy, whose sums are not read. */
#define UTVM_CONV2D_Q15_PAIR(SUMS, p, q, w, bias, rq, acc, ya, yb, mode) \
  do {                                                                  \
    const int32_t out_c_ = (p)->g.out_c;                                \
    const int32_t steps_ = (p)->depth4 >> 2;                            \
    const int32_t* pw_ = (w);                                           \
    const int32_t* pb_ = (bias);                                        \
    int32_t* pacc_ = (acc);                                             \
    int32_t c0_;                                                        \
    for (c0_ = 0; c0_ < out_c_; c0_ += 2) {                             \
      int32_t a0_ = pb_[0];                                             \
      int32_t a1_ = pb_[1];                                             \
      int32_t b0_ = a0_;                                                \
      int32_t b1_ = a1_;                                                \
      pw_ = SUMS((q), pw_, steps_, &a0_, &a1_, &b0_, &b1_);             \
      pacc_[0] = a0_;                                                   \
      pacc_[1] = b0_;                                                   \
      pacc_[2] = a1_;                                                   \
      pacc_[3] = b1_;                                                   \
      pacc_ = &pacc_[4];                                                \
      pb_ = &pb_[2];                                                    \
    }                                                                   \
    utvm_conv2d_q15_out((p), (acc), (rq), (ya), (yb), (mode));          \
  } while (0)

/* A kernel's sums (PREFIX##_sums), pair (PREFIX##_pair: every channel of a pixel pair, then the
 * requantization) and its mode-specialized copies (PREFIX##_pair_full/_fast/_any) from its STEP
 * and CSTEP (UTVM_CONV2D_Q15_SUMS). */
#define UTVM_CONV2D_Q15_KERNEL(PREFIX, STEP, CSTEP)                                                              \
  UTVM_CONV2D_Q15_SUMS_FN(PREFIX##_sums, STEP, CSTEP)                                                            \
  static UTVM_DSP_INLINE void PREFIX##_pair(const utvm_conv2d_q15_params* p, const int32_t* q, const int32_t* w, \
                                            const int32_t* bias, const int32_t* rq, int32_t* acc, int8_t* ya,   \
                                            int8_t* yb, int32_t mode) {                                         \
    UTVM_CONV2D_Q15_PAIR(PREFIX##_sums, p, q, w, bias, rq, acc, ya, yb, mode);                                   \
  }                                                                                                             \
  UTVM_CONV2D_Q15_MODES(PREFIX##_pair)

/* The pair function PAIR specialized for each requantization mode: PAIR##_full and PAIR##_fast
 * (GCC: -O2), PAIR##_any (statement-level skeleton of both q15 kernels; docs/kernel-guide.md, "One
 * loop skeleton per family": a function name cannot be parenthesized, MISRA rule 20.7 deviation). */
#define UTVM_CONV2D_Q15_MODE(ATTR, PAIR, SUFFIX, MODE)                                                           \
  static ATTR void PAIR##SUFFIX(const utvm_conv2d_q15_params* p, const int32_t* q, const int32_t* w,            \
                                const int32_t* bias, const int32_t* rq, int32_t* acc, int8_t* ya, int8_t* yb) { \
    PAIR(p, q, w, bias, rq, acc, ya, yb, MODE);                                                                  \
  }
#define UTVM_CONV2D_Q15_MODES(PAIR)                                   \
  UTVM_CONV2D_Q15_MODE(UTVM_DSP_HOT, PAIR, _full, UTVM_DSP_RQ_FULL)   \
  UTVM_CONV2D_Q15_MODE(UTVM_DSP_HOT, PAIR, _fast, UTVM_DSP_RQ_FAST)   \
  UTVM_CONV2D_Q15_MODE(UTVM_DSP_NOINLINE, PAIR, _any, UTVM_DSP_RQ_ANY)

/* The entry point's body from output pixel PIX0 on: the scratch laid out (the q15 windows 4-byte
 * aligned, the pair's sums, the staging bytes), then per pixel pair its windows and PAIR##_<mode>. */
#define UTVM_CONV2D_Q15_RUN(PAIR, p, in, w, bias, rq, scratch, out, PIX0)                              \
  do {                                                                                                 \
    const int32_t out_c_ = (p)->g.out_c;                                                               \
    const int32_t total_ = (p)->g.batches * (p)->g.out_h * (p)->g.out_w;                               \
    uint8_t* const raw_ = (uint8_t*)(scratch);                                                         \
    int32_t* const q_ = (int32_t*)(void*)&raw_[(4u - ((uintptr_t)raw_ & 3u)) & 3u];                    \
    int32_t* const acc_ = &q_[(p)->depth4];                                                            \
    int8_t* const stage_ = (int8_t*)(void*)&acc_[2 * (out_c_ + 1)];                                    \
    int32_t pix_ = (PIX0);                                                                             \
    while (pix_ < total_) {                                                                            \
      pix_ = utvm_conv2d_q15_windows((p), (in), pix_, total_, q_, stage_);                             \
      {                                                                                                \
        int8_t* const ya_ = &(out)[pix_ * out_c_];                                                     \
        int8_t* const yb_ = &(out)[utvm_min_i32(pix_ + 1, total_ - 1) * out_c_];                       \
        if ((p)->rq_mode == UTVM_DSP_RQ_FULL) {                                                        \
          PAIR##_full((p), q_, (w), (bias), (rq), acc_, ya_, yb_);                                     \
        } else if ((p)->rq_mode == UTVM_DSP_RQ_FAST) {                                                 \
          PAIR##_fast((p), q_, (w), (bias), (rq), acc_, ya_, yb_);                                     \
        } else {                                                                                       \
          PAIR##_any((p), q_, (w), (bias), (rq), acc_, ya_, yb_);                                      \
        }                                                                                              \
      }                                                                                                \
      pix_ += 2;                                                                                       \
    }                                                                                                  \
  } while (0)

#endif /* UTVM_KERNELS_ARM_DSP_CONV2D_Q15_WINDOW_H_ */
