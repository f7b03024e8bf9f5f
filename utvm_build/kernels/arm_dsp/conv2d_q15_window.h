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
  int32_t rq_mode; /* UTVM_DSP_RQ_ANY / _FAST / _FULL (dsp_s8.h utvm_dsp_rq3); 3: conv2d_s8_q15w.h */
  int32_t strip_cols; /* conv2d_s8_q15w.h: the input columns of an output row's strip (0: pixel-pair windows) */
} utvm_conv2d_q15_params;

/* Four int8 (one word) as two words of int16 lanes with the offset added: even bytes, odd bytes. */
static UTVM_DSP_INLINE void utvm_conv2d_q15_put(int32_t* dst, int32_t v, int32_t offs) {
  dst[0] = __sxtab16(offs, v);
  dst[1] = utvm_dsp_odd_add(offs, v);
}

/* The loop of utvm_conv2d_q15_words in inline assembly (GCC, Clang): four words of 4 int8 per step
 * (four single LDR, possibly unaligned), 8 SXTAB16, eight STR whose offsets STORES gives (the even
 * word of word k at k x the slot stride, its odd word 4 bytes after; the last STR post-indexed past
 * the step), so that neighbouring loads and stores pipeline on the Cortex-M4. volatile, as every
 * assembly block here that stores: GCC may delete a non-volatile block whose outputs are dead, stores
 * and "memory" clobber notwithstanding (it did, the register requantization below, in a copy of a
 * pair function constant-propagated for a model's one int8-weight layer). */
#define UTVM_CONV2D_Q15_WORDS_ASM(STORES)                                                                         \
  __asm__ volatile("1:\n\t"                                                                                                \
          "ldr %[v1], [%[s], #4]\n\tldr %[v2], [%[s], #8]\n\tldr %[v3], [%[s], #12]\n\tldr %[v0], [%[s]], #16\n\t" \
          "sxtab16 %[e0], %[f], %[v0]\n\tsxtab16 %[v0], %[f], %[v0], ror #8\n\t"                                   \
          "sxtab16 %[e1], %[f], %[v1]\n\tsxtab16 %[v1], %[f], %[v1], ror #8\n\t"                                   \
          "sxtab16 %[e2], %[f], %[v2]\n\tsxtab16 %[v2], %[f], %[v2], ror #8\n\t"                                   \
          "sxtab16 %[e3], %[f], %[v3]\n\tsxtab16 %[v3], %[f], %[v3], ror #8\n\t" STORES                            \
          "subs %[n], %[n], #1\n\tbne 1b"                                                                          \
          : [s] "+r"(s), [o] "+r"(o), [n] "+r"(n), [v0] "=&r"(v0), [v1] "=&r"(v1), [v2] "=&r"(v2), [v3] "=&r"(v3), \
            [e0] "=&r"(e0), [e1] "=&r"(e1), [e2] "=&r"(e2), [e3] "=&r"(e3)                                       \
          : [f] "r"(offs)                                                                                        \
          : "cc", "memory")

/* n4 words of 4 int8 from src into q15 slots from d on, slot words apart (4: every 4th word pair,
 * the pixel-pair windows; 2: packed, the strips of conv2d_s8_q15w.h); returns the next slot. With
 * GCC and Clang four words per step (UTVM_CONV2D_Q15_WORDS_ASM: about 6.5 cycles per word, the C
 * loop 15 with its taken branch per word), then 0-3 words in C. */
static UTVM_DSP_INLINE int32_t* utvm_conv2d_q15_words(const int8_t* src, int32_t n4, int32_t offs, int32_t* d,
                                                         int32_t slot) {
  const int8_t* s = src;
  int32_t* o = d;
  int32_t k = n4;
#if (defined(__GNUC__) || defined(__clang__)) && !defined(UTVM_NO_INLINE_ASM)
  int32_t n = n4 >> 2;
  if (n != 0) {
    int32_t v0;
    int32_t v1;
    int32_t v2;
    int32_t v3;
    int32_t e0;
    int32_t e1;
    int32_t e2;
    int32_t e3;
    if (slot == 4) {
      UTVM_CONV2D_Q15_WORDS_ASM(
          "str %[v0], [%[o], #4]\n\tstr %[e1], [%[o], #16]\n\tstr %[v1], [%[o], #20]\n\tstr %[e2], [%[o], #32]\n\t"
          "str %[v2], [%[o], #36]\n\tstr %[e3], [%[o], #48]\n\tstr %[v3], [%[o], #52]\n\tstr %[e0], [%[o]], #64\n\t");
    } else {
      UTVM_CONV2D_Q15_WORDS_ASM(
          "str %[v0], [%[o], #4]\n\tstr %[e1], [%[o], #8]\n\tstr %[v1], [%[o], #12]\n\tstr %[e2], [%[o], #16]\n\t"
          "str %[v2], [%[o], #20]\n\tstr %[e3], [%[o], #24]\n\tstr %[v3], [%[o], #28]\n\tstr %[e0], [%[o]], #32\n\t");
    }
  }
  k = n4 & 3;
#endif
  while (k > 0) {
    utvm_conv2d_q15_put(o, utvm_dsp_ld4(s), offs);
    s = &s[4];
    o = &o[slot];
    --k;
  }
  return o;
}

/* n4 zero word pairs into q15 slots from d on, slot words apart; returns the next slot. */
static UTVM_DSP_INLINE int32_t* utvm_conv2d_q15_zeros(int32_t n4, int32_t* d, int32_t slot) {
  int32_t* o = d;
  int32_t k;
  for (k = 0; k < n4; ++k) {
    o[0] = 0;
    o[1] = 0;
    o = &o[slot];
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
  if ((g->dilation_w == 1) && (iy >= 0) && (iy < g->in_h)) {
    /* a row of contiguous taps: the input's part of it copied, zp on either side */
    const int32_t lo = utvm_max_i32(-ix0, 0) * g->in_c;                    /* bytes before the image */
    const int32_t hi = utvm_min_i32(g->in_w - ix0, g->filter_w) * g->in_c; /* end of the inside part */
    const int32_t seg = g->filter_w * g->in_c;
    for (c = 0; c < lo; ++c) {
      o[c] = zp;
    }
    if (hi > lo) {
      utvm_conv2d_q15_copy(&in_b[(((iy * g->in_w) + ix0) * g->in_c) + lo], hi - lo, &o[lo]);
    }
    for (c = utvm_max_i32(hi, lo); c < seg; ++c) {
      o[c] = zp;
    }
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
                                                   int32_t offs, uint32_t zpw, int32_t* d, int32_t slot) {
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
    o = &o[slot];
  }
}

/* A 3x3x3 window inside the image (rows of 9 bytes, row_step apart from s0; RGB first layers) as
 * its 7 words, straight-line: the words across two rows from two loads and a mask (every byte read
 * lies in the window's rows or between them, as in utvm_conv2d_q15_direct; the last word's load
 * ends at the window's last byte), the last word completed with the input zero point (zpw: in
 * every byte); about 50 cycles against 350 through the general loop. */
static UTVM_DSP_INLINE void utvm_conv2d_q15_3x3x3(const int8_t* s0, int32_t row_step, int32_t offs, uint32_t zpw,
                                                  int32_t* d, int32_t slot) {
  const int8_t* const r1 = &s0[row_step];
  const int8_t* const r2 = &r1[row_step];
  const uint32_t v0 = (uint32_t)utvm_dsp_ld4(s0);
  const uint32_t v1 = (uint32_t)utvm_dsp_ld4(&s0[4]);
  const uint32_t v2 = ((uint32_t)utvm_dsp_ld4(&s0[8]) & 0xFFu) | ((uint32_t)utvm_dsp_ld4(&r1[-1]) & 0xFFFFFF00u);
  const uint32_t v3 = (uint32_t)utvm_dsp_ld4(&r1[3]);
  const uint32_t v4 = ((uint32_t)utvm_dsp_ld4(&r1[7]) & 0xFFFFu) | ((uint32_t)utvm_dsp_ld4(&r2[-2]) & 0xFFFF0000u);
  const uint32_t v5 = (uint32_t)utvm_dsp_ld4(&r2[2]);
  const uint32_t v6 = ((uint32_t)utvm_dsp_ld4(&r2[5]) >> 8u) | (zpw & 0xFF000000u);
  utvm_conv2d_q15_put(d, (int32_t)v0, offs);
  utvm_conv2d_q15_put(&d[slot], (int32_t)v1, offs);
  utvm_conv2d_q15_put(&d[2 * slot], (int32_t)v2, offs);
  utvm_conv2d_q15_put(&d[3 * slot], (int32_t)v3, offs);
  utvm_conv2d_q15_put(&d[4 * slot], (int32_t)v4, offs);
  utvm_conv2d_q15_put(&d[5 * slot], (int32_t)v5, offs);
  utvm_conv2d_q15_put(&d[6 * slot], (int32_t)v6, offs);
}

/* The window of the output pixel whose top left tap is (iy0, ix0) in image in_b, into q15 slots
 * from dst on, slot words apart (4: 2 words every 4 words, the other pixel of the pair owns the
 * words between; 2: packed). */
static UTVM_DSP_NOINLINE void utvm_conv2d_q15_window(const utvm_conv2d_q15_params* p, const int8_t* in_b, int32_t iy0,
                                                     int32_t ix0, int32_t* dst, int8_t* stage, int32_t slot) {
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
        d = utvm_conv2d_q15_zeros(n4, d, slot);
      } else if (cols_in) {
        d = utvm_conv2d_q15_words(&in_b[((iy * g->in_w) + ix0) * g->in_c], n4, offs, d, slot);
      } else {
        (void)utvm_conv2d_q15_stage_row(g, in_b, iy, ix0, zp, stage);
        d = utvm_conv2d_q15_words(stage, n4, offs, d, slot);
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
          d = utvm_conv2d_q15_words(&in_b[((iy * g->in_w) + ix) * g->in_c], n4, offs, d, slot);
        } else {
          d = utvm_conv2d_q15_zeros(n4, d, slot);
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
      const int8_t* const s0 = &in_b[((iy0 * g->in_w) + ix0) * g->in_c];
      const int32_t row_step = g->dilation_h * g->in_w * g->in_c;
      if (slot == 4) { /* (a copy per layout: its stride a constant; 3x3x3: utvm_conv2d_q15_windows) */
        utvm_conv2d_q15_direct(s0, seg, row_step, seg * g->filter_h, offs, zpb * 0x01010101u, d, 4);
      } else {
        utvm_conv2d_q15_direct(s0, seg, row_step, seg * g->filter_h, offs, zpb * 0x01010101u, d, 2);
      }
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
      (void)utvm_conv2d_q15_words(stage, p->depth4 >> 2, offs, d, slot);
    }
  }
}

/* Where pixel b's window starts in the q15 scratch q: interleaved with pixel a's (slot 4), or
 * after it (slot 2, packed). */
static UTVM_DSP_INLINE int32_t* utvm_conv2d_q15_qb(const utvm_conv2d_q15_params* p, int32_t* q, int32_t slot) {
  return (slot == 4) ? &q[2] : &q[p->depth4 >> 1];
}

/* The windows of the pixel pair starting at pix (of total output pixels; an odd last pixel with
 * the one before it) into the q15 scratch q, slot words apart (utvm_conv2d_q15_window); returns
 * the pair's first pixel. */
static UTVM_DSP_INLINE int32_t utvm_conv2d_q15_windows(const utvm_conv2d_q15_params* p, const int8_t* in, int32_t pix,
                                                       int32_t total, int32_t* q, int8_t* stage, int32_t slot) {
  const utvm_conv_geom* g = &p->g;
  const int32_t per_image = g->out_h * g->out_w;
  const int32_t first = ((pix + 1) == total) ? utvm_max_i32(pix - 1, 0) : pix;
  const bool rgb = (g->in_c == 3) && (g->filter_h == 3) && (g->filter_w == 3) && (g->dilation_w == 1);
  int32_t k;
  for (k = 0; k < 2; ++k) {
    const int32_t i = utvm_min_i32(first + k, total - 1);
    const int32_t b = i / per_image;
    const int32_t r = i - (b * per_image);
    const int32_t oy = r / g->out_w;
    const int32_t ox = r - (oy * g->out_w);
    const int32_t iy0 = (oy * g->stride_h) - g->pad_h;
    const int32_t ix0 = (ox * g->stride_w) - g->pad_w;
    const int8_t* const in_b = &in[b * g->in_h * g->in_w * g->in_c];
    int32_t* const d = (k == 0) ? q : utvm_conv2d_q15_qb(p, q, slot);
    if (rgb && (iy0 >= 0) && (ix0 >= 0) && ((iy0 + (2 * g->dilation_h)) < g->in_h) && ((ix0 + 3) <= g->in_w)) {
      /* a 3x3x3 window inside the image: here, without the general window's call and set-up */
      const uint32_t off16 = (uint32_t)p->input_offset & 0xFFFFu;
      const int32_t offs = (int32_t)((off16 << 16u) | off16);
      const uint32_t zpb = (uint32_t)(uint8_t)(-p->input_offset);
      utvm_conv2d_q15_3x3x3(&in_b[((iy0 * g->in_w) + ix0) * 3], g->dilation_h * g->in_w * 3, offs, zpb * 0x01010101u, d,
                            slot);
    } else {
      utvm_conv2d_q15_window(p, in_b, iy0, ix0, d, stage, slot);
    }
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
 * weights. With GCC and Clang the kernel's STEP (assembly text: one step, 16 multiply-accumulates,
 * post-indexed loads advancing %[px] and %[pw], scratch registers %[t0]..%[t5]) runs through ASM
 * (UTVM_CONV2D_Q15_ASM: six temporaries of the compiler's choice; UTVM_CONV2D_Q15_ASM_LDM: t2..t5
 * are r8..r11, in the ascending order an LDM register list needs; UTVM_CONV2D_Q15_ASM_QB: pixel b's
 * words from their own pointer), in one assembly block: once for steps & 1, twice for steps & 2
 * (the bits shifted out of the count into the carry), then unrolled four times in a counted loop
 * (13 registers at most, so a frame pointer may keep r7); other compilers call CSTEP(px, pw, &a0, &a1, &b0, &b1) per step (it returns pw
 * advanced past the step's weights). A statement macro, as the family skeletons. */
/* The C form (other compilers; a kernel whose assembly needs more registers than unoptimized
 * GCC gives it). */
#define UTVM_CONV2D_Q15_CSUMS(ASM, STEP, CSTEP, q, qb, w, steps, pa0, pa1, pb0, pb1, next) \
  do {                                                                                 \
    int32_t k_;                                                                        \
    (next) = (w);                                                                      \
    for (k_ = 0; k_ < (steps); ++k_) {                                                 \
      (next) = CSTEP((q), (qb), k_, (next), (pa0), (pa1), (pb0), (pb1));               \
    }                                                                                  \
  } while (0)
#if (defined(__GNUC__) || defined(__clang__)) && !defined(UTVM_NO_INLINE_ASM)
#define UTVM_CONV2D_Q15_ASM_OPS(A0, A1, B0, B1, PX, PW, N)                                               \
  [a0] "+r"(A0), [a1] "+r"(A1), [b0] "+r"(B0), [b1] "+r"(B1), [px] "+r"(PX), [pw] "+r"(PW), [n] "+r"(N), \
      [t0] "=&r"(t0_), [t1] "=&r"(t1_), [t2] "=&r"(t2_), [t3] "=&r"(t3_), [t4] "=&r"(t4_), [t5] "=&r"(t5_)
/* The step's temporaries t2..t5: of the compiler's choice (FREE) or r8..r11 (REG). */
#define UTVM_CONV2D_Q15_T_FREE(V, R) int32_t V
#define UTVM_CONV2D_Q15_T_REG(V, R) register int32_t V __asm__(R)
#define UTVM_CONV2D_Q15_ASM6(TEXT, N, PX, QB, PW, A0, A1, B0, B1, T)                                      \
  do {                                                                                                    \
    int32_t t0_;                                                                                          \
    int32_t t1_;                                                                                          \
    T(t2_, "r8");                                                                                         \
    T(t3_, "r9");                                                                                         \
    T(t4_, "r10");                                                                                        \
    T(t5_, "r11");                                                                                        \
    (void)(QB); /* pixel b's words follow pixel a's */                                                    \
    __asm__(TEXT : UTVM_CONV2D_Q15_ASM_OPS(A0, A1, B0, B1, PX, PW, N) : : "cc", "memory");                \
  } while (0)
#define UTVM_CONV2D_Q15_ASM(TEXT, N, PX, QB, PW, A0, A1, B0, B1) \
  UTVM_CONV2D_Q15_ASM6(TEXT, N, PX, QB, PW, A0, A1, B0, B1, UTVM_CONV2D_Q15_T_FREE)
#define UTVM_CONV2D_Q15_ASM_LDM(TEXT, N, PX, QB, PW, A0, A1, B0, B1) \
  UTVM_CONV2D_Q15_ASM6(TEXT, N, PX, QB, PW, A0, A1, B0, B1, UTVM_CONV2D_Q15_T_REG)
/* Pixel b's words from their own pointer QB (the strips of conv2d_s8_q15w.h), four temporaries. */
#define UTVM_CONV2D_Q15_ASM_QB(TEXT, N, PX, QB, PW, A0, A1, B0, B1)                                       \
  do {                                                                                                    \
    int32_t t0_;                                                                                          \
    int32_t t1_;                                                                                          \
    int32_t t2_;                                                                                          \
    int32_t t3_;                                                                                          \
    __asm__(TEXT                                                                                          \
            : [a0] "+r"(A0), [a1] "+r"(A1), [b0] "+r"(B0), [b1] "+r"(B1), [px] "+r"(PX), [qb] "+r"(QB),    \
              [pw] "+r"(PW), [n] "+r"(N), [t0] "=&r"(t0_), [t1] "=&r"(t1_), [t2] "=&r"(t2_), [t3] "=&r"(t3_) \
            :                                                                                             \
            : "cc", "memory");                                                                            \
  } while (0)
#define UTVM_CONV2D_Q15_SUMS(ASM, STEP, CSTEP, q, qb, w, steps, pa0, pa1, pb0, pb1, next)                   \
  do {                                                                                                    \
    const int32_t* px_ = (q);                                                                             \
    const int32_t* qb_ = (qb);                                                                            \
    const int32_t* pw_ = (w);                                                                             \
    int32_t n_ = (steps);                                                                                 \
    int32_t a0_ = *(pa0);                                                                                 \
    int32_t a1_ = *(pa1);                                                                                 \
    int32_t b0_ = *(pb0);                                                                                 \
    int32_t b1_ = *(pb1);                                                                                 \
    ASM("lsrs %[n], %[n], #1\n\tbcc 2f\n\t" STEP "2:\n\tlsrs %[n], %[n], #1\n\tbcc 3f\n\t" STEP STEP       \
        "3:\n\tcmp %[n], #0\n\tbeq 4f\n\t1:\n\t" STEP STEP STEP STEP "subs %[n], %[n], #1\n\tbne 1b\n\t4:\n\t",   \
        n_, px_, qb_, pw_, a0_, a1_, b0_, b1_);                                                           \
    *(pa0) = a0_;                                                                                         \
    *(pa1) = a1_;                                                                                         \
    *(pb0) = b0_;                                                                                         \
    *(pb1) = b1_;                                                                                         \
    (next) = pw_;                                                                                         \
  } while (0)
#else
#define UTVM_CONV2D_Q15_SUMS UTVM_CONV2D_Q15_CSUMS
#endif

/* NAME: the sums of a channel pair with STEP / CSTEP (UTVM_CONV2D_Q15_SUMS), returning the next
 * channel pair's weights. */
#define UTVM_CONV2D_Q15_SUMS_FN(NAME, SUMS, ASM, STEP, CSTEP)                                                           \
  static UTVM_DSP_INLINE const int32_t* NAME(const int32_t* q, const int32_t* qb, const int32_t* w,         \
                                             int32_t steps, int32_t* a0,                                     \
                                             int32_t* a1, int32_t* b0, int32_t* b1) {                        \
    const int32_t* next;                                                                                     \
    SUMS(ASM, STEP, CSTEP, q, qb, w, steps, a0, a1, b0, b1, next);                                   \
    return next;                                                                                             \
  }

/* UTVM_DSP_RQ_FULL: a channel pair's four sums requantized straight from their registers and
 * stored (GCC and Clang, inline assembly; in C, GCC spilled the four sums and two channels'
 * constants): per channel its (m, k, sh) by three single LDR, per sum the SMLAL form of
 * dsp_s8.h utvm_dsp_rq3 (and, adds, adc, smlal, asr, ssat), both pixels' bytes by two
 * neighbouring post-indexed STRB: about 9.5 cycles per output against about 16 through the sums'
 * array (store, reload, a loop per channel). 12 registers; the sums are clobbered. */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(UTVM_NO_INLINE_ASM)
#define UTVM_CONV2D_Q15_RQ_ONE(X, Y)                                                                           \
  "and %[t], %[" X "], #0x80000000\n\tadds %[t], %[t], #0x40000000\n\tadc %[h], %[k], %[" X "], asr #31\n\t" \
  "smlal %[t], %[h], %[" X "], %[m]\n\tasr %[" Y "], %[h], %[sh]\n\tssat %[" Y "], #8, %[" Y "]\n\t"
#define UTVM_CONV2D_Q15_RQ_CH(A, B)                                                                          \
  "ldr %[k], [%[pr], #4]\n\tldr %[sh], [%[pr], #8]\n\tldr %[m], [%[pr]], #12\n\t" UTVM_CONV2D_Q15_RQ_ONE(A, A) \
      UTVM_CONV2D_Q15_RQ_ONE(B, B) "strb %[" A "], [%[ya]], #1\n\tstrb %[" B "], [%[yb]], #1\n\t"
#define UTVM_CONV2D_Q15_RQ_FULL_PAIR(A0, A1, B0, B1, PR, YA, YB)                                      \
  do {                                                                                              \
    int32_t m_;                                                                                     \
    int32_t k_;                                                                                     \
    int32_t sh_;                                                                                    \
    int32_t t_;                                                                                     \
    int32_t h_;                                                                                     \
    __asm__ volatile(UTVM_CONV2D_Q15_RQ_CH("a0", "b0") UTVM_CONV2D_Q15_RQ_CH("a1", "b1")             \
            : [a0] "+r"(A0), [a1] "+r"(A1), [b0] "+r"(B0), [b1] "+r"(B1), [pr] "+r"(PR), [ya] "+r"(YA), \
              [yb] "+r"(YB), [m] "=&r"(m_), [k] "=&r"(k_), [sh] "=&r"(sh_), [t] "=&r"(t_), [h] "=&r"(h_) \
            :                                                                                       \
            : "cc", "memory");                                                                      \
  } while (0)
#define UTVM_CONV2D_Q15_RQ_REGS 1
#else
#define UTVM_CONV2D_Q15_RQ_REGS 0
#endif

/* Every output channel of the pixel pair in the q15 scratch q: per channel pair, from its bias,
 * SUMS(q, pw, steps, &a0, &a1, &b0, &b1) (the kernel's inner loop; returns the next pair's weights),
 * with UTVM_DSP_RQ_FULL requantized from the registers (UTVM_CONV2D_Q15_RQ_FULL_PAIR; an odd last
 * channel's pair in C); otherwise the sums into acc (channel c: acc[2c] pixel a, acc[2c + 1] pixel
 * b), then requantized into ya and yb. An odd last channel: its pair's second channel is a copy,
 * whose sums are not read. */
#define UTVM_CONV2D_Q15_PAIR(SUMS, p, q, qb, w, bias, rq, acc, ya, yb, mode)                             \
  do {                                                                                                \
    const int32_t out_c_ = (p)->g.out_c;                                                              \
    const int32_t steps_ = (p)->depth4 >> 2;                                                          \
    const bool regs_ = ((mode) == UTVM_DSP_RQ_FULL) && (UTVM_CONV2D_Q15_RQ_REGS != 0);                \
    const int32_t* pw_ = (w);                                                                         \
    const int32_t* pb_ = (bias);                                                                      \
    const int32_t* pr_ = (rq);                                                                        \
    int8_t* ya_ = (ya);                                                                               \
    int8_t* yb_ = (yb);                                                                               \
    int32_t* pacc_ = (acc);                                                                           \
    int32_t c0_;                                                                                      \
    for (c0_ = 0; c0_ < out_c_; c0_ += 2) {                                                           \
      int32_t a0_ = pb_[0];                                                                           \
      int32_t a1_ = pb_[1];                                                                           \
      int32_t b0_ = a0_;                                                                              \
      int32_t b1_ = a1_;                                                                              \
      pw_ = SUMS((q), (qb), pw_, steps_, &a0_, &a1_, &b0_, &b1_);                                     \
      if (regs_ && ((c0_ + 1) < out_c_)) {                                                            \
        UTVM_CONV2D_Q15_RQ_FULL_PAIR_(a0_, a1_, b0_, b1_, pr_, ya_, yb_);                             \
      } else if (regs_) { /* the odd last channel */                                                  \
        ya_[0] = utvm_dsp_rq3(a0_, UTVM_DSP_RQ_FULL, pr_[0], pr_[1], pr_[2], 0, -128, 127);           \
        yb_[0] = utvm_dsp_rq3(b0_, UTVM_DSP_RQ_FULL, pr_[0], pr_[1], pr_[2], 0, -128, 127);           \
      } else {                                                                                        \
        pacc_[0] = a0_;                                                                               \
        pacc_[1] = b0_;                                                                               \
        pacc_[2] = a1_;                                                                               \
        pacc_[3] = b1_;                                                                               \
        pacc_ = &pacc_[4];                                                                            \
      }                                                                                               \
      pb_ = &pb_[2];                                                                                  \
    }                                                                                                 \
    if (!regs_) {                                                                                     \
      utvm_conv2d_q15_out((p), (acc), (rq), (ya), (yb), (mode));                                      \
    }                                                                                                 \
  } while (0)
#if UTVM_CONV2D_Q15_RQ_REGS
#define UTVM_CONV2D_Q15_RQ_FULL_PAIR_ UTVM_CONV2D_Q15_RQ_FULL_PAIR
#else
#define UTVM_CONV2D_Q15_RQ_FULL_PAIR_(A0, A1, B0, B1, PR, YA, YB) /* (not reached: regs_ is false) */
#endif

/* A kernel's sums (PREFIX##_sums), pair (PREFIX##_pair: every channel of a pixel pair, then the
 * requantization) and its mode-specialized copies (PREFIX##_pair_full/_fast/_any) from its STEP
 * and CSTEP (UTVM_CONV2D_Q15_SUMS). */
#define UTVM_CONV2D_Q15_KERNEL(PREFIX, SUMS, ASM, STEP, CSTEP)                                                              \
  UTVM_CONV2D_Q15_SUMS_FN(PREFIX##_sums, SUMS, ASM, STEP, CSTEP)                                                           \
  static UTVM_DSP_INLINE void PREFIX##_pair(const utvm_conv2d_q15_params* p, const int32_t* q, const int32_t* qb, \
                                            const int32_t* w, const int32_t* bias, const int32_t* rq,           \
                                            int32_t* acc, int8_t* ya, int8_t* yb, int32_t mode) {               \
    UTVM_CONV2D_Q15_PAIR(PREFIX##_sums, p, q, qb, w, bias, rq, acc, ya, yb, mode);                               \
  }                                                                                                             \
  UTVM_CONV2D_Q15_MODES(PREFIX##_pair)

/* The pair function PAIR specialized for each requantization mode: PAIR##_full and PAIR##_fast
 * (GCC: -O2), PAIR##_any (statement-level skeleton of both q15 kernels; docs/kernel-guide.md, "One
 * loop skeleton per family": a function name cannot be parenthesized, MISRA rule 20.7 deviation). */
#define UTVM_CONV2D_Q15_MODE(ATTR, PAIR, SUFFIX, MODE)                                                           \
  static ATTR void PAIR##SUFFIX(const utvm_conv2d_q15_params* p, const int32_t* q, const int32_t* qb,           \
                                const int32_t* w, const int32_t* bias, const int32_t* rq, int32_t* acc,         \
                                int8_t* ya, int8_t* yb) {                                                       \
    PAIR(p, q, qb, w, bias, rq, acc, ya, yb, MODE);                                                              \
  }
#define UTVM_CONV2D_Q15_MODES(PAIR)                                   \
  UTVM_CONV2D_Q15_MODE(UTVM_DSP_HOT, PAIR, _full, UTVM_DSP_RQ_FULL)   \
  UTVM_CONV2D_Q15_MODE(UTVM_DSP_HOT, PAIR, _fast, UTVM_DSP_RQ_FAST)   \
  UTVM_CONV2D_Q15_MODE(UTVM_DSP_NOINLINE, PAIR, _any, UTVM_DSP_RQ_ANY)

/* A pair function (PAIR##_full / _fast / _any above). */
typedef void (*utvm_conv2d_q15_pair_fn)(const utvm_conv2d_q15_params* p, const int32_t* q, const int32_t* qb,
                                        const int32_t* w, const int32_t* bias, const int32_t* rq, int32_t* acc,
                                        int8_t* ya, int8_t* yb);

/* The requantization modes the including file's calls use, bit 1 << mode each: the generated
 * operator file defines it before the kernels (ops/call.py, Params.selects), so that only the pair
 * copies its layers pick are compiled (the others are referenced in a branch the compiler folds
 * away: GCC and Clang emit no code for them); every mode when it is not defined. */
#ifndef UTVM_CONV2D_Q15_RQ_MODES
#define UTVM_CONV2D_Q15_RQ_MODES 7u
#endif
#define UTVM_CONV2D_Q15_USES(MODE) ((UTVM_CONV2D_Q15_RQ_MODES & (1u << (uint32_t)(MODE))) != 0u)

/* PAIR's copy for p's requantization mode, among the modes compiled in (UTVM_CONV2D_Q15_RQ_MODES). */
#define UTVM_CONV2D_Q15_PICK(PAIR, p)                                                                        \
  ((UTVM_CONV2D_Q15_USES(UTVM_DSP_RQ_FULL) &&                                                                \
    (((p)->rq_mode == UTVM_DSP_RQ_FULL) ||                                                                   \
     !(UTVM_CONV2D_Q15_USES(UTVM_DSP_RQ_FAST) || UTVM_CONV2D_Q15_USES(UTVM_DSP_RQ_ANY))))                    \
       ? PAIR##_full                                                                                         \
   : (UTVM_CONV2D_Q15_USES(UTVM_DSP_RQ_FAST) &&                                                              \
      (((p)->rq_mode == UTVM_DSP_RQ_FAST) || !UTVM_CONV2D_Q15_USES(UTVM_DSP_RQ_ANY)))                        \
       ? PAIR##_fast                                                                                         \
       : PAIR##_any)

/* The entry point's body from output pixel pix0 on: the scratch laid out (the q15 windows 4-byte
 * aligned, slot words apart: utvm_conv2d_q15_window; the pair's sums, the staging bytes), then
 * per pixel pair its windows and pair (pixel a's words from q, b's from utvm_conv2d_q15_qb). */
static UTVM_DSP_INLINE void utvm_conv2d_q15_run(utvm_conv2d_q15_pair_fn pair, int32_t slot,
                                                const utvm_conv2d_q15_params* p, const int8_t* in, const int32_t* w,
                                                const int32_t* bias, const int32_t* rq, void* scratch, int8_t* out,
                                                int32_t pix0) {
  const int32_t out_c = p->g.out_c;
  const int32_t total = p->g.batches * p->g.out_h * p->g.out_w;
  uint8_t* const raw = (uint8_t*)scratch;
  int32_t* const q = (int32_t*)(void*)&raw[(4u - ((uintptr_t)raw & 3u)) & 3u];
  int32_t* const acc = &q[p->depth4];
  int8_t* const stage = (int8_t*)(void*)&acc[2 * (out_c + 1)];
  int32_t pix = pix0;
  while (pix < total) {
    pix = utvm_conv2d_q15_windows(p, in, pix, total, q, stage, slot);
    pair(p, q, utvm_conv2d_q15_qb(p, q, slot), w, bias, rq, acc, &out[pix * out_c], &out[utvm_min_i32(pix + 1, total - 1) * out_c]);
    pix += 2;
  }
}

#endif /* UTVM_KERNELS_ARM_DSP_CONV2D_Q15_WINDOW_H_ */
