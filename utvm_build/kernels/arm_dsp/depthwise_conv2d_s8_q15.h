/* utvm-build kernels, DSP extension: DEPTHWISE_CONV_2D, int8 (TFLite DepthwiseConvPerChannel),
 * depth multiplier 1, channels a multiple of 4, any filter, strides, dilations and padding. A
 * kernel only the DSP targets have: the generator calls it instead of utvm_depthwise_conv2d_s8
 * when the target's kernel table provides it (ops/conv.py), with its data prepared at compile
 * time.
 *
 * Blocks of 4 channels. For a band of output rows, the input rows they read are copied once into
 * the operator's scratch memory as int16 values with the input offset added, one plane per
 * channel (rows x cols, row by row), the padding around the image as 0 -- exactly the reference's
 * sum, which skips those taps -- so every pixel, at the border or not, is the same code. Then one
 * channel at a time over the band, from the model's own bias: 3x3 filters with dilation_w 1 two
 * output pixels per step, per filter row and pixel one (possibly unaligned) word of taps 0 and 1
 * for SMLAD and tap 2 by SMLABT / SMLATT (stride 1: tap 2 of both pixels from one word), each
 * weight word loaded once for the two pixels; other filters one SMLABB per tap. At the full int8
 * range and stride 1 or 2 (GCC, optimized) the rows by inline assembly blocks instead
 * (utvm_dw_q15_rows4: rows of 6q pixels by 6-pixel blocks, utvm_dw_q15_six1 / _six2, others by
 * 4-pixel steps, utvm_dw_q15_quad1 / _quad2, and a 3- or 2-pixel step; the rows carried from step
 * to step), and the band fill's pairs of positions in assembly too. A map of few columns and many
 * rows may run transposed (the generator's choice: in_sx .. out_sy below).
 *
 * Data the generator prepares (ops/conv.py, depthwise_q15_call):
 * - w: per channel its taps as int16, row by row (2x the weight bytes);
 * - bias: the model's bias (zeros without one);
 * - rq: per channel (m, k, sh) of dsp_s8.h utvm_dsp_rq3, mode rq_mode; 3x3 filters at the full
 *   int8 range (dilation_w 1, twice every sum in int32): the weights and biases doubled, rq_mode
 *   UTVM_DW_Q15_RQ_FULL2 with the triplets (m, 2k, sh + 1), or UTVM_DW_Q15_RQ_ANY2 (below);
 * - band_rows: output rows per band; scratch: the band, ((band_rows - 1) * stride_h + (filter_h - 1)
 *   * dilation_h + 1) * cols * 8 bytes with cols = (out_w - 1) * stride_w + (filter_w - 1) *
 *   dilation_w + 1, 4 to align, 2 * stride_w and 16 that the steps may read past the last plane
 *   (kernel_table.py rule).
 */
#ifndef UTVM_KERNELS_ARM_DSP_DEPTHWISE_CONV2D_S8_Q15_H_
#define UTVM_KERNELS_ARM_DSP_DEPTHWISE_CONV2D_S8_Q15_H_

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
  int32_t band_rows; /* output rows per band, >= 1 */
  int32_t cols;      /* input columns a row of output pixels reads, the padding included */
  int32_t rq_mode;   /* UTVM_DSP_RQ_ANY / _FAST / _FULL (dsp_s8.h utvm_dsp_rq3) */
  /* bytes between input positions along g's rows (in_sx) and between g's rows (in_sy), the same
   * for the output: (in_c, in_w in_c, out_c, out_w out_c), or with g transposed (ops/conv.py: a
   * map of few columns and many rows, KWS's 25x5, runs as its transpose, rows of 25) the two
   * swapped */
  int32_t in_sx;
  int32_t in_sy;
  int32_t out_sx;
  int32_t out_sy;
} utvm_dw_q15_params;

/* The operator's modes beyond dsp_s8.h's UTVM_DSP_RQ_*: 3x3 filters (dilation_w 1) whose weights and
 * biases the generator doubled (ops/conv.py depthwise_q15_call: every sum is twice the reference's,
 * still in int32), for the requantization of twice the sum (dsp_s8.h UTVM_DSP_RQ2_TEXT: SMMLAR, 4
 * instructions per output instead of 6). FULL2: the full int8 range, the triplets (m, 2k, sh + 1);
 * ANY2: UTVM_DSP_RQ_ANY's triplets (m, 0, shift), each channel turned FULL2 where its shift allows
 * (utvm_dw_q15_channel_mode), the others requantizing half the sum. The assembly steps take FULL2. */
#define UTVM_DW_Q15_RQ_FULL2 3
#define UTVM_DW_Q15_RQ_ANY2 4

/* The requantization forms the including file's FULL2 layers take, bit v for a layer of value v
 * (defined by the generated operator file, ops/conv.py dw_q15_sign, Params.selects_values; both
 * when not defined): bit 0, output zero point -128; bit 1, any other. Without bit 1 the assembly
 * steps' requantization (UTVM_DW_Q15_QRQ) drops dsp_s8.h UTVM_DSP_RQ2_TEXT's sign term (the ADD's
 * asr #31 part: 2k straight into SMMLAR, 3 instructions per output instead of 4). Bit-exact: for a
 * doubled sum X < 0 the rounded product is then at most 2^-32 of a step higher before the shift,
 * zp + floor((2^(e-1) + 1/2 + Xm/2^31) / 2^e) with Xm < 0, still at most zp = -128, which SSAT
 * leaves at -128 as TFLite's clamp (act_min -128 under FULL2) does; X >= 0 is unchanged. A layer of
 * another output zero point in a file without bit 1 takes the C form (utvm_dw_q15_ch3x3_other). */
#ifndef UTVM_DW_Q15_SIGN
#define UTVM_DW_Q15_SIGN 0x3u
#endif

/* Two q15 values into s[0], s[1] (one STR; the address may be 2 mod 4). */
static UTVM_DSP_INLINE void utvm_dw_q15_st2(uint16_t* s, uint32_t v) { (void)memcpy(s, &v, sizeof v); }

/* One output of a sum acc under mode (dsp_s8.h's three and the two above; (m, k, sh) the channel's
 * triplet). */
static UTVM_DSP_INLINE int8_t utvm_dw_q15_rq(int32_t acc, int32_t mode, int32_t m, int32_t k, int32_t sh, int32_t zp,
                                             int32_t lo, int32_t hi) {
  int8_t v;
  if (mode == UTVM_DW_Q15_RQ_FULL2) {
    const int32_t t[3] = {m, k, sh};
    v = utvm_dsp_rq2(acc, t);
  } else if (mode == UTVM_DW_Q15_RQ_ANY2) {
    v = utvm_dsp_rq3(acc / 2, UTVM_DSP_RQ_ANY, m, k, sh, zp, lo, hi); /* (acc even: exact) */
  } else {
    v = utvm_dsp_rq3(acc, mode, m, k, sh, zp, lo, hi);
  }
  return v;
}

#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__) && !defined(UTVM_NO_INLINE_ASM)
/* Two positions of channels 0..3 (the C loop of utvm_dw_q15_fill_run below, in assembly text): both
 * input words loaded in a row, the four plane words stored in a row (a store right after another
 * pipelines on the M4), the source and the destination advanced in the loads and stores. The two
 * words' halves are paired first, (c0 c1 of x, c0 c1 of x + 1) and (c2 c3 ..), so that each SXTAB16
 * gives one channel's two positions: 2 PKH and 4 SXTAB16 for the 8 values (pairing the four
 * SXTAB16 results instead took 4 PKH). */
#define UTVM_DW_Q15_FILL_STEP                    \
  "ldr %[v0], [%[q]]\n\t"                      \
  "ldr %[v1], [%[q], %[step]]\n\t"             \
  "add %[q], %[q], %[step], lsl #1\n\t"         \
  "pkhbt %[t0], %[v0], %[v1], lsl #16\n\t"      \
  "pkhtb %[v1], %[v1], %[v0], asr #16\n\t"      \
  "sxtab16 %[e0], %[offs], %[t0]\n\t"           \
  "sxtab16 %[t0], %[offs], %[t0], ror #8\n\t"   \
  "sxtab16 %[e1], %[offs], %[v1]\n\t"           \
  "sxtab16 %[v1], %[offs], %[v1], ror #8\n\t"   \
  "str %[t0], [%[d], %[pb1]]\n\t"              \
  "str %[e1], [%[d], %[pb1], lsl #1]\n\t"      \
  "str %[v1], [%[d], %[pb3]]\n\t"              \
  "str %[e0], [%[d]], #4\n\t"

/* pairs pairs of positions (the asm statement: 12 registers). */
static UTVM_DSP_INLINE void utvm_dw_q15_fill_pairs(uint16_t* d, int32_t plane, const int8_t* src, int32_t step,
                                                   int32_t pairs, int32_t offs) {
  const int32_t pb1 = 2 * plane; /* bytes to the planes of channels 1 and 3 (2: pb1 lsl 1) */
  const int32_t pb3 = 6 * plane;
  int32_t n2 = pairs >> 1;
  int32_t v0;
  int32_t v1;
  int32_t e0;
  int32_t e1;
  int32_t t0;
  if ((pairs & 1) != 0) {
    __asm__ __volatile__(UTVM_DW_Q15_FILL_STEP
                         : [q] "+r"(src), [d] "+r"(d), [v0] "=&r"(v0), [v1] "=&r"(v1), [e0] "=&r"(e0),
                           [e1] "=&r"(e1), [t0] "=&r"(t0)
                         : [step] "r"(step), [offs] "r"(offs), [pb1] "r"(pb1), [pb3] "r"(pb3)
                         : "memory");
  }
  if (n2 != 0) {
    __asm__ __volatile__("1:\n\t" UTVM_DW_Q15_FILL_STEP UTVM_DW_Q15_FILL_STEP "subs %[n], %[n], #1\n\tbne 1b"
                         : [q] "+r"(src), [d] "+r"(d), [n] "+r"(n2), [v0] "=&r"(v0), [v1] "=&r"(v1), [e0] "=&r"(e0),
                           [e1] "=&r"(e1), [t0] "=&r"(t0)
                         : [step] "r"(step), [offs] "r"(offs), [pb1] "r"(pb1), [pb3] "r"(pb3)
                         : "cc", "memory");
  }
}

/* the row loops' end (utvm_dw_q15_fill_rows: the source and the planes stepped to the next row by
 * the skips in memory) and their operands */
#define UTVM_DW_Q15_FILL_ROW_END          \
  "ldr %[v0], %[sskipm]\n\t"            \
  "ldr %[v1], %[dskipm]\n\t"            \
  "add %[q], %[q], %[v0]\n\t"           \
  "add %[d], %[d], %[v1]\n\t"           \
  "subs %[rows], %[rows], #1\n\t"       \
  "bne 2b"
#define UTVM_DW_Q15_FILL_ROW_OUTS                                                                              \
  [q] "+r"(src), [d] "+r"(d), [rows] "+r"(rows), [n] "=&r"(n), [v0] "=&r"(v0), [v1] "=&r"(v1), [e0] "=&r"(e0), \
      [e1] "=&r"(e1), [t0] "=&r"(t0)
#define UTVM_DW_Q15_FILL_ROW_INS \
  [step] "r"(step), [offs] "r"(offs), [pb1] "r"(pb1), [pb3] "r"(pb3), [sskipm] "m"(sskip), [dskipm] "m"(dskip)

/* rows rows of 2 pairs positions (an even count), the source stepped by sskip bytes and the planes
 * by dskip bytes from one row's end to the next row's start: the band's rows in one asm statement
 * (13 registers; the row's constants in memory operands), against about 25 cycles a row for the
 * C row loop around utvm_dw_q15_fill_pairs (rows of an odd count: KWS's 25, VWW's 3x3 maps). An odd
 * pair count enters the loop of two steps at its second (pairs >= 1: one test a row). */
static UTVM_DSP_INLINE void utvm_dw_q15_fill_rows(uint16_t* d, int32_t plane, const int8_t* src, int32_t step,
                                                  int32_t pairs, int32_t offs, int32_t rows, int32_t sskip,
                                                  int32_t dskip) {
  const int32_t pb1 = 2 * plane;
  const int32_t pb3 = 6 * plane;
  const int32_t n3 = pairs / 3; /* a count of 3k pairs: passes of a loop of three steps */
  const int32_t odd = pairs & 1; /* the loop of two entered at its second step */
  const int32_t n2 = (pairs + 1) >> 1; /* its passes */
  int32_t n;
  int32_t v0;
  int32_t v1;
  int32_t e0;
  int32_t e1;
  int32_t t0;
  if ((pairs == 3) && (sskip == 0)) {
    /* rows of 3 pairs from one run of the input (a map of 6 columns inside the image, its rows
     * contiguous: VWW's and person_detect's 6x6 layers): the three steps, the planes' row skip in
     * a register, no pass count */
    __asm__ __volatile__("2:\n\t" UTVM_DW_Q15_FILL_STEP UTVM_DW_Q15_FILL_STEP UTVM_DW_Q15_FILL_STEP
                         "add %[d], %[d], %[dskip]\n\t"
                         "subs %[rows], %[rows], #1\n\t"
                         "bne 2b"
                         : [q] "+r"(src), [d] "+r"(d), [rows] "+r"(rows), [v0] "=&r"(v0), [v1] "=&r"(v1),
                           [e0] "=&r"(e0), [e1] "=&r"(e1), [t0] "=&r"(t0)
                         : [step] "r"(step), [offs] "r"(offs), [pb1] "r"(pb1), [pb3] "r"(pb3), [dskip] "r"(dskip)
                         : "cc", "memory");
    return;
  }
  if ((n3 * 3) == pairs) {
    /* rows of 3k pairs (VWW's and person_detect's rows of 6q positions, the 6x6 maps' 3 pairs):
     * no odd test, a third less loop per pair */
    __asm__ __volatile__("2:\n\t"
                         "ldr %[n], %[n3m]\n\t"
                         "1:\n\t" UTVM_DW_Q15_FILL_STEP UTVM_DW_Q15_FILL_STEP UTVM_DW_Q15_FILL_STEP
                         "subs %[n], %[n], #1\n\t"
                         "bne 1b\n\t" UTVM_DW_Q15_FILL_ROW_END
                         : UTVM_DW_Q15_FILL_ROW_OUTS
                         : UTVM_DW_Q15_FILL_ROW_INS, [n3m] "m"(n3)
                         : "cc", "memory");
    return;
  }
  __asm__ __volatile__("2:\n\t"
                       "ldr %[n], %[n2m]\n\t"
                       "ldr %[v0], %[oddm]\n\t"
                       "cmp %[v0], #0\n\t"
                       "bne 5f\n\t"
                       "1:\n\t" UTVM_DW_Q15_FILL_STEP "5:\n\t" UTVM_DW_Q15_FILL_STEP "subs %[n], %[n], #1\n\t"
                       "bne 1b\n\t" UTVM_DW_Q15_FILL_ROW_END
                       : UTVM_DW_Q15_FILL_ROW_OUTS
                       : UTVM_DW_Q15_FILL_ROW_INS, [oddm] "m"(odd), [n2m] "m"(n2)
                       : "cc", "memory");
}
#define UTVM_DW_Q15_FILL_ASM 1
#endif

/* n positions from src (step bytes apart) of channels 0..3 into d[0..n-1] of the four planes. */
static UTVM_DSP_INLINE void utvm_dw_q15_fill_run(uint16_t* d, int32_t plane, const int8_t* src, int32_t step,
                                                 int32_t n, int32_t offs) {
  uint16_t* const d2 = &d[2 * plane];
  const int32_t pairs = n / 2;
  int32_t i = 0;
#ifdef UTVM_DW_Q15_FILL_ASM
  utvm_dw_q15_fill_pairs(d, plane, src, step, pairs, offs);
  i = pairs;
#endif
  /* two positions per step: per plane one (possibly unaligned) word store; the words' halves
   * paired first (channels 0 and 1 of both positions, then 2 and 3), each SXTAB16 one channel */
  for (; i < pairs; ++i) {
    const int8_t* const q = &src[2 * i * step];
    const uint32_t v0 = (uint32_t)utvm_dsp_ld4(q);
    const uint32_t v1 = (uint32_t)utvm_dsp_ld4(&q[step]);
    const int32_t lo = (int32_t)utvm_dsp_pkhbt(v0, v1); /* bytes: c0, c1 of x, c0, c1 of x + 1 */
    const int32_t hi = (int32_t)utvm_dsp_pkhtb(v1, v0); /* c2, c3 of x, c2, c3 of x + 1 */
    const int32_t x = 2 * i;
    utvm_dw_q15_st2(&d[x], (uint32_t)__sxtab16(offs, lo));
    utvm_dw_q15_st2(&d[x + plane], (uint32_t)utvm_dsp_odd_add(offs, lo));
    utvm_dw_q15_st2(&d2[x], (uint32_t)__sxtab16(offs, hi));
    utvm_dw_q15_st2(&d2[x + plane], (uint32_t)utvm_dsp_odd_add(offs, hi));
  }
  if ((n & 1) != 0) {
    const int32_t x = n - 1;
    const int32_t v = utvm_dsp_ld4(&src[x * step]);
    const uint32_t e = (uint32_t)__sxtab16(offs, v);
    const uint32_t o = (uint32_t)utvm_dsp_odd_add(offs, v);
    d[x] = (uint16_t)(e & 0xFFFFu);
    d[x + plane] = (uint16_t)(o & 0xFFFFu);
    d2[x] = (uint16_t)(e >> 16u);
    d2[x + plane] = (uint16_t)(o >> 16u);
  }
}

/* The band of input rows iy0 .. iy0 + rows - 1, columns ix0 .. ix0 + cols - 1: its columns inside
 * the image [*x0, *x1) of 0..cols-1. */
static void utvm_dw_q15_cols(const utvm_dw_q15_params* p, int32_t ix0, int32_t* x0, int32_t* x1) {
  const int32_t cols = p->cols;
  *x0 = utvm_min_i32(utvm_max_i32(-ix0, 0), cols);
  *x1 = utvm_max_i32(utvm_min_i32(p->g.in_w - ix0, cols), *x0);
}

/* The positions of the band outside the image as 0 in the four planes of s, once per band (the
 * channel blocks overwrite only the positions inside). cols_too (the operator's first band): also
 * the columns left and right of the image in the rows inside it; without, only the rows outside
 * the image. Later bands find those columns still 0: a plane is rows x cols values with the same
 * cols in every band, so a position keeps its column whatever the band's rows, the first band's
 * four planes are the largest and span every later band's, and nothing writes a column outside
 * the image but this function (the fill writes the columns inside; a row outside the image was
 * zeroed whole). The columns are written one value at a time, rows inner (per band and row two
 * memset calls of a value or none cost about 60 cycles: 0.1 M in VWW); the rows outside by memset. */
static void utvm_dw_q15_pad(const utvm_dw_q15_params* p, int32_t iy0, int32_t rows, int32_t ix0, uint16_t* s,
                            bool cols_too) {
  const int32_t cols = p->cols;
  const int32_t plane = rows * cols;
  const int32_t r0 = utvm_max_i32(-iy0, 0); /* rows r0 .. r1 - 1 inside the image */
  const int32_t r1 = utvm_max_i32(utvm_min_i32(p->g.in_h - iy0, rows), r0);
  int32_t x0;
  int32_t x1;
  int32_t j;
  int32_t r;
  int32_t x;
  utvm_dw_q15_cols(p, ix0, &x0, &x1);
  for (j = 0; j < 4; ++j) {
    uint16_t* const d = &s[j * plane];
    if (r0 > 0) {
      (void)memset(d, 0, (size_t)(uint32_t)(r0 * cols) * sizeof(uint16_t));
    }
    if (rows > r1) {
      (void)memset(&d[r1 * cols], 0, (size_t)(uint32_t)((rows - r1) * cols) * sizeof(uint16_t));
    }
  }
  if (cols_too) {
    for (x = 0; x < cols; ++x) {
      if (x == x0) {
        x = x1; /* (the columns inside: not written) */
      }
      for (j = 0; (j < 4) && (x < cols); ++j) {
        uint16_t* const d = &s[(j * plane) + (r0 * cols) + x];
        for (r = 0; r < (r1 - r0); ++r) {
          d[r * cols] = 0u;
        }
      }
    }
  }
}

/* n positions of one input channel from src into d[0..n-1] (a depthwise convolution of depth
 * multiplier out_c, e.g. person_detect's first layer: one plane that every output channel reads).
 * Four positions per step: one input word, SXTAB16 of its even and odd bytes, two word stores. */
static UTVM_DSP_INLINE void utvm_dw_q15_fill_run1(uint16_t* d, const int8_t* src, int32_t n, int32_t offs) {
  int32_t x;
  for (x = 0; x <= (n - 4); x += 4) {
    const int32_t v = utvm_dsp_ld4(&src[x]);
    const uint32_t e = (uint32_t)__sxtab16(offs, v);        /* positions x and x + 2 */
    const uint32_t o = (uint32_t)utvm_dsp_odd_add(offs, v); /* x + 1 and x + 3 */
    utvm_dw_q15_st2(&d[x], utvm_dsp_pkhbt(e, o));
    utvm_dw_q15_st2(&d[x + 2], utvm_dsp_pkhtb(o, e));
  }
  for (; x < n; ++x) {
    d[x] = (uint16_t)(uint32_t)__sxtab16(offs, (int32_t)(uint8_t)src[x]); /* the low lane */
  }
}

/* Input rows iy0 .. iy0 + rows - 1, columns ix0 .. ix0 + cols - 1 of channels c..c+3 (one input
 * channel: of channel 0, into one plane), the positions inside the image, into four planes of s
 * (plane j: channel c + j, rows x cols int16 values, row by row; the positions outside:
 * utvm_dw_q15_pad). */
static UTVM_DSP_HOT void utvm_dw_q15_fill(const utvm_dw_q15_params* p, const int8_t* in_b, int32_t c, int32_t iy0,
                                          int32_t rows, int32_t ix0, uint16_t* s) {
  const utvm_conv_geom* g = &p->g;
  const uint32_t off16 = (uint32_t)p->input_offset & 0xFFFFu;
  const int32_t offs = (int32_t)((off16 << 16u) | off16);
  const int32_t cols = p->cols;
  const int32_t plane = rows * cols;
  const int32_t in_c = g->in_c;
  const int32_t in_sx = p->in_sx;
  const int32_t r0 = utvm_max_i32(-iy0, 0);
  const int32_t r1 = utvm_max_i32(utvm_min_i32(g->in_h - iy0, rows), r0);
  const int32_t in_sy = p->in_sy;
  int32_t x0;
  int32_t x1;
  int32_t r;
  int32_t n;
  int32_t src;
  int32_t dst;
  utvm_dw_q15_cols(p, ix0, &x0, &x1);
  /* (the channel count tested once, not per row: GCC -O2 does not unswitch the loop; the rows'
   * offsets stepped as integers, no pointer formed past the input; in_c 1: in_sx 1, c 0) */
  n = x1 - x0;
  src = ((iy0 + r0) * in_sy) + ((ix0 + x0) * in_sx) + c;
  dst = (r0 * cols) + x0;
  if (in_c == 1) {
    for (r = r1 - r0; r > 0; --r) {
      utvm_dw_q15_fill_run1(&s[dst], &in_b[src], n, offs);
      src += in_sy;
      dst += cols;
    }
  } else {
#ifdef UTVM_DW_Q15_FILL_ASM
    if (((n & 1) == 0) && (n >= 2) && (r1 > r0)) {
      utvm_dw_q15_fill_rows(&s[dst], plane, &in_b[src], in_sx, n / 2, offs, r1 - r0, in_sy - (n * in_sx),
                            2 * (cols - n));
      return;
    }
#endif
    for (r = r1 - r0; r > 0; --r) {
      utvm_dw_q15_fill_run(&s[dst], plane, &in_b[src], in_sx, n, offs);
      src += in_sy;
      dst += cols;
    }
  }
}

/* Two q15 values s[0], s[1] as the lanes of one word (one LDR; the address may be 2 mod 4). */
static UTVM_DSP_INLINE int32_t utvm_dw_q15_ld2(const uint16_t* s) {
  uint32_t v;
  (void)memcpy(&v, s, sizeof v);
  return (int32_t)v;
}

/* One channel of a band, 3x3 filters with dilation_w 1: its constants and the row loop's state,
 * in memory (the int8 stores may alias it, so the compiler reloads it per row and keeps its
 * registers for the pixel loop; with everything in registers GCC spills in that loop). */
typedef struct {
  int32_t bias;       /* the model's bias */
  int32_t rq[3];      /* (m, k, sh) of utvm_dsp_rq3 */
  int32_t rs;         /* values between filter rows in the plane */
  int32_t xs;         /* values between output pixels in the plane */
  int32_t ys;         /* values between output rows in the plane */
  int32_t out_c;      /* bytes between output pixels */
  int32_t y_row;      /* bytes between output rows */
  int32_t n;          /* output pixels per row */
  int32_t rows;       /* output rows left */
  int32_t zp;         /* output offset, clamp range */
  int32_t lo;
  int32_t hi;
  const uint16_t* s;  /* the plane at the current row */
  int8_t* y;          /* the current output row */
  /* the assembly steps' fields (utvm_dw_q15_quad1 ...: their offsets as immediates) */
  uint16_t wq[10];    /* the taps row by row (w0, w1, w2): (w0, w1) of row r the word at wq[3r],
                       * (w1, w2) at wq[3r + 1] (possibly unaligned words); wq[9] unused */
  int32_t rsb;        /* bytes between filter rows in the plane (a register operand of the steps) */
  /* utvm_dw_q15_rows4: from where a row's steps leave the plane position and the output address
   * to the next row's first (values, bytes) */
  int32_t pskip;
  int32_t yskip;
  int32_t sixes; /* n / 6 for rows of 6q pixels, else 0 */
  /* the 6-pixel block's advances (bytes): of p from the third filter row's position to the next
   * block's (2 npos - 2 rsb), of the output address (6 out_c); rows of one block (sixes 1) include
   * the row skips (2 pskip, yskip), so that their row loop is a counter alone */
  int32_t badv;
  int32_t yadv;
  /* utvm_dw_q15_rows_full1/2: channels after this one in the same call (0..3; 0 outside such a
   * call), the next one's taps, bias and triplet, and the values between two channels' planes */
  int32_t more;
  const uint8_t* wn;
  const int32_t* bn;
  const int32_t* rqn;
  int32_t plane;
  /* rows of 6q pixels: blocks per run and runs (sixes, rows; rows of one block: rows, 1), per band */
  int32_t nb6;
  int32_t nr6;
} utvm_dw_q15_ch3;

/* Four output pixels of a row at stride 1 (3x3, dilation_w 1, UTVM_DSP_RQ_FULL) in one inline
 * assembly block: per filter row three input words A = (x, x+1), C = (x+2, x+3), E = (x+4, x+5)
 * and the weight words W01 = (w0, w1), W12 = (w1, w2) (two LDRs: an LDR after a load pipelines on
 * the M4, after an LDRD it does not), eight multiply-accumulates for
 * the 12 MACs (pixel x: A.W01 + C.lo w2; x+1: A.hi w0 + C.W12; x+2: C.W01 + E.lo w2; x+3: C.hi w0
 * + E.W12), then the four requantizations of twice the sums (UTVM_DW_Q15_RQ_FULL2: dsp_s8.h
 * UTVM_DSP_RQ2_TEXT, ADD, SMMLAR, ASR, SSAT) and byte stores at y, y + out_c, y + 2 out_c, y + 3 out_c. The
 * constants are read from the channel's state c (its field offsets as immediates); p steps by
 * 4 positions (stride 2: 8, UTVM_DW_Q15_QROW2). y is an integer: after a row's last step it lies
 * past the row. The same block for the 3 or 2 pixels left in a row (ST3, PROW / ST2). 9 scratch
 * registers + p, y, c and rsb: 13 (the C loop around it adds its counter: 14 of 14); GCC at -O1
 * and above without a frame pointer (Clang and other compilers, -O0, UTVM_NO_INLINE_ASM: the C pair loop).
 * About 92 estimated M4 cycles per 4-pixel step against about 120 for two C pairs
 * (docs/kernel-guide.md). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__) && !defined(UTVM_NO_INLINE_ASM)
#define UTVM_DW_Q15_QUAD 1
#define UTVM_DW_Q15_OFF(f) ((int32_t)offsetof(utvm_dw_q15_ch3, f))
/* both strides: the words (x, x+1), (x+2, x+3), (x+4, x+5) of a filter row and its weight words */
#define UTVM_DW_Q15_QLOAD(W)                \
  "ldr %[i0], [%[p]]\n\t"                   \
  "ldr %[i1], [%[p], #4]\n\t"               \
  "ldr %[i2], [%[p], #8]\n\t"               \
  "ldr %[wa], [%[c], %[" W "]]\n\t"          \
  "ldr %[wb], [%[c], %[" W "]+2]\n\t"
/* stride 1, the 2-pixel step: the words (x, x+1), (x+2, x+3) alone */
#define UTVM_DW_Q15_PLOAD(W)                \
  "ldr %[i0], [%[p]]\n\t"                   \
  "ldr %[i1], [%[p], #4]\n\t"               \
  "ldr %[wa], [%[c], %[" W "]]\n\t"          \
  "ldr %[wb], [%[c], %[" W "]+2]\n\t"
/* stride 1, the second and third filter rows: pixels x and x+1 (the 2-pixel step), then x+2, x+3 */
#define UTVM_DW_Q15_PMAC                    \
  "smlad %[a0], %[i0], %[wa], %[a0]\n\t"     \
  "smlabt %[a0], %[i1], %[wb], %[a0]\n\t"    \
  "smlatb %[a1], %[i0], %[wa], %[a1]\n\t"    \
  "smlad %[a1], %[i1], %[wb], %[a1]\n\t"
#define UTVM_DW_Q15_PROW(W) UTVM_DW_Q15_PLOAD(W) UTVM_DW_Q15_PMAC
#define UTVM_DW_Q15_QROW(W)                 \
  UTVM_DW_Q15_QLOAD(W)                      \
  UTVM_DW_Q15_PMAC                          \
  "smlad %[a2], %[i1], %[wa], %[a2]\n\t"     \
  "smlabt %[a2], %[i2], %[wb], %[a2]\n\t"    \
  "smlatb %[a3], %[i1], %[wa], %[a3]\n\t"    \
  "smlad %[a3], %[i2], %[wb], %[a3]\n\t"
/* stride 1, the first filter row from the bias in a0 (pixel x's sum last: no copies of the bias);
 * _A13: pixels x+1 .. x+3 (the 6-pixel block seeds x+4 and x+5 from the bias too, then x) */
#define UTVM_DW_Q15_QROW0_A12               \
  "ldr %[a0], [%[c], %[obias]]\n\t"         \
  UTVM_DW_Q15_QLOAD("ow0")                  \
  "smlatb %[a1], %[i0], %[wa], %[a0]\n\t"    \
  "smlad %[a1], %[i1], %[wb], %[a1]\n\t"     \
  "smlad %[a2], %[i1], %[wa], %[a0]\n\t"     \
  "smlabt %[a2], %[i2], %[wb], %[a2]\n\t"
#define UTVM_DW_Q15_QROW0_A13               \
  UTVM_DW_Q15_QROW0_A12                     \
  "smlatb %[a3], %[i1], %[wa], %[a0]\n\t"    \
  "smlad %[a3], %[i2], %[wb], %[a3]\n\t"
#define UTVM_DW_Q15_QROW0_A0                \
  "smlad %[a0], %[i0], %[wa], %[a0]\n\t"     \
  "smlabt %[a0], %[i1], %[wb], %[a0]\n\t"
#define UTVM_DW_Q15_QROW0 UTVM_DW_Q15_QROW0_A13 UTVM_DW_Q15_QROW0_A0
/* stride 1, the 2-pixel step's first filter row */
#define UTVM_DW_Q15_PROW0                   \
  "ldr %[a0], [%[c], %[obias]]\n\t"         \
  UTVM_DW_Q15_PLOAD("ow0")                  \
  "smlatb %[a1], %[i0], %[wa], %[a0]\n\t"    \
  "smlad %[a1], %[i1], %[wb], %[a1]\n\t"     \
  "smlad %[a0], %[i0], %[wa], %[a0]\n\t"     \
  "smlabt %[a0], %[i1], %[wb], %[a0]\n\t"
/* requantize ACC, twice the sum, in place (temp wa; the triplet (m, 2k, sh + 1) in i0, i1, i2:
 * UTVM_DW_Q15_RQ_FULL2, dsp_s8.h UTVM_DSP_RQ2_TEXT, 4 instructions) */
#if (UTVM_DW_Q15_SIGN & 2u) != 0u
#define UTVM_DW_Q15_QRQ_R(ACC, T, M, K, S) UTVM_DSP_RQ2_TEXT(ACC, T, M, K, S)
#else
/* every layer of the file at output zero point -128: without the sign term, 3 instructions
 * (UTVM_DW_Q15_SIGN; bit-exact: for ACC < 0 the result stays at or below the zero point, -128) */
#define UTVM_DW_Q15_QRQ_R(ACC, T, M, K, S)                                                  \
  "smmlar %[" T "], %[" ACC "], %[" M "], %[" K "]\n\tasr %[" T "], %[" T "], %[" S "]\n\t" \
  "ssat %[" ACC "], #8, %[" T "]\n\t"
#endif
/* (the 6-pixel blocks hold the triplet in other registers: UTVM_DW_Q15_SIX_FN) */
#define UTVM_DW_Q15_QRQ(ACC) UTVM_DW_Q15_QRQ_R(ACC, "wa", "i0", "i1", "i2")

/* stride 2: per filter row five input words (x, x+1) .. (x+8, x+9) (the last lane read is not
 * used; past a band's last plane it lies in the scratch's 16 spare bytes), pixel j = word j . W01
 * + word (j+1).lo w2 */
#define UTVM_DW_Q15_PROW2(W)                 \
  UTVM_DW_Q15_QLOAD(W)                       \
  "smlad %[a0], %[i0], %[wa], %[a0]\n\t"     \
  "smlabt %[a0], %[i1], %[wb], %[a0]\n\t"    \
  "smlad %[a1], %[i1], %[wa], %[a1]\n\t"     \
  "smlabt %[a1], %[i2], %[wb], %[a1]\n\t"
#define UTVM_DW_Q15_QROW2(W)                 \
  UTVM_DW_Q15_PROW2(W)                       \
  "ldr %[i0], [%[p], #12]\n\t"              \
  "ldr %[i1], [%[p], #16]\n\t"              \
  "smlad %[a2], %[i2], %[wa], %[a2]\n\t"     \
  "smlabt %[a2], %[i0], %[wb], %[a2]\n\t"    \
  "smlad %[a3], %[i0], %[wa], %[a3]\n\t"     \
  "smlabt %[a3], %[i1], %[wb], %[a3]\n\t"
/* stride 2, the 2-pixel step's first filter row */
#define UTVM_DW_Q15_PROW20                   \
  "ldr %[a0], [%[c], %[obias]]\n\t"          \
  UTVM_DW_Q15_QLOAD("ow0")                   \
  "smlad %[a1], %[i1], %[wa], %[a0]\n\t"     \
  "smlabt %[a1], %[i2], %[wb], %[a1]\n\t"    \
  "smlad %[a0], %[i0], %[wa], %[a0]\n\t"     \
  "smlabt %[a0], %[i1], %[wb], %[a0]\n\t"
/* the requantizations of a0, a1, then for 3 and 4 pixels a2 and a3 (each in place), then the
 * stores in a run (a store right after another pipelines on the M4): y, y +
 * out_c, y + 2 out_c, y + 3 out_c (out_c into i0 once m, k, sh are dead); y advanced by 2 out_c (2
 * and 3 pixels: the 3-pixel step's third output is the row's last) or 4 out_c */
#define UTVM_DW_Q15_RQ2 UTVM_DW_Q15_QRQ("a0") UTVM_DW_Q15_QRQ("a1")
#define UTVM_DW_Q15_RQ3 UTVM_DW_Q15_RQ2 UTVM_DW_Q15_QRQ("a2")
#define UTVM_DW_Q15_ST2                     \
  UTVM_DW_Q15_RQ2                           \
  "ldr %[i0], [%[c], %[ooc]]\n\t"          \
  "strb %[a0], [%[y]]\n\t"                 \
  "strb %[a1], [%[y], %[i0]]\n\t"          \
  "add %[y], %[y], %[i0], lsl #1\n\t"
#define UTVM_DW_Q15_ST3                     \
  UTVM_DW_Q15_RQ3                           \
  "ldr %[i0], [%[c], %[ooc]]\n\t"          \
  "strb %[a0], [%[y]]\n\t"                 \
  "strb %[a1], [%[y], %[i0]]\n\t"          \
  "strb %[a2], [%[y], %[i0], lsl #1]\n\t"  \
  "add %[y], %[y], %[i0], lsl #1\n\t"
#define UTVM_DW_Q15_ST4                     \
  UTVM_DW_Q15_RQ3                           \
  UTVM_DW_Q15_QRQ("a3")                     \
  "ldr %[i0], [%[c], %[ooc]]\n\t"          \
  "add %[i1], %[i0], %[i0], lsl #1\n\t"    \
  "strb %[a0], [%[y]]\n\t"                 \
  "strb %[a1], [%[y], %[i0]]\n\t"          \
  "strb %[a2], [%[y], %[i0], lsl #1]\n\t"  \
  "strb %[a3], [%[y], %[i1]]\n\t"          \
  "add %[y], %[y], %[i0], lsl #2\n\t"
/* stride 2, the first filter row from the bias in a0 */
/* (pixels x+1, x, and x+2's first tap pair, from the bias in a0) */
#define UTVM_DW_Q15_R20_A012                 \
  "smlad %[a1], %[i1], %[wa], %[a0]\n\t"     \
  "smlabt %[a1], %[i2], %[wb], %[a1]\n\t"    \
  "smlad %[a2], %[i2], %[wa], %[a0]\n\t"     \
  "smlad %[a0], %[i0], %[wa], %[a0]\n\t"     \
  "smlabt %[a0], %[i1], %[wb], %[a0]\n\t"
#define UTVM_DW_Q15_QROW20                   \
  "ldr %[a0], [%[c], %[obias]]\n\t"          \
  UTVM_DW_Q15_QLOAD("ow0")                   \
  "mov %[a3], %[a0]\n\t"                     \
  UTVM_DW_Q15_R20_A012                       \
  "ldr %[i0], [%[p], #12]\n\t"              \
  "ldr %[i1], [%[p], #16]\n\t"              \
  "smlabt %[a2], %[i0], %[wb], %[a2]\n\t"    \
  "smlad %[a3], %[i0], %[wa], %[a3]\n\t"     \
  "smlabt %[a3], %[i1], %[wb], %[a3]\n\t"

/* the steps' scratch registers (sums, input words, weight words; the 6-pixel block adds a4, a5) */
#define UTVM_DW_Q15_STEP_REGS \
  int32_t a0;                 \
  int32_t a1;                 \
  int32_t a2;                 \
  int32_t a3;                 \
  int32_t i0;                 \
  int32_t i1;                 \
  int32_t i2;                 \
  int32_t wa;                 \
  int32_t wb;

/* NAME(c, p, y): the 4-pixel step with ROW0 / ROW (UTVM_DW_Q15_QROW0 / _QROW, _QROW20 / _QROW2), p
 * advanced by rsb (a register: the 14th, GCC loads it before the block when it has none to keep it
 * in) between filter rows and by BACK - 2 rsb bytes after the third (BACK: the step's positions
 * times 2, a constant); returns p (the next step's), *y advanced
 * by 4 out_c (an integer: past the row after its last step). The output step out_c is loaded once
 * (into wb after the first store), the stores address y + out_c, then y + 2 out_c + 0 / out_c. */
#define UTVM_DW_Q15_QUAD_FN(NAME, ROW0, ROW, ST, BACK)                                                           \
  static UTVM_DSP_INLINE const uint16_t* NAME(const utvm_dw_q15_ch3* c, const uint16_t* p, uintptr_t* y) {    \
    uintptr_t yy = *y;                                                                                        \
    UTVM_DW_Q15_STEP_REGS                                                                                     \
    /* volatile: it stores the outputs (its register results alone may be unused) */                         \
    __asm__ __volatile__(                                                                                     \
        ROW0 "add %[p], %[p], %[rsb]\n\t" ROW("ow1") "add %[p], %[p], %[rsb]\n\t" ROW("ow2")                  \
        "sub %[p], %[p], %[rsb], lsl #1\n\t"                                                                   \
        "add %[p], %[p], %[back]\n\t"                                                                         \
        "ldr %[i0], [%[c], %[orq]]\n\t"                                                                       \
        "ldr %[i1], [%[c], %[orq]+4]\n\t"                                                                     \
        "ldr %[i2], [%[c], %[osh]]\n\t" ST \
        : [p] "+r"(p), [y] "+r"(yy), [a0] "=&r"(a0), [a1] "=&r"(a1), [a2] "=&r"(a2), [a3] "=&r"(a3),         \
          [i0] "=&r"(i0), [i1] "=&r"(i1), [i2] "=&r"(i2), [wa] "=&r"(wa), [wb] "=&r"(wb)                      \
        : [c] "r"(c), [obias] "i"(UTVM_DW_Q15_OFF(bias)), [orq] "i"(UTVM_DW_Q15_OFF(rq[0])),                  \
          [osh] "i"(UTVM_DW_Q15_OFF(rq[2])), [ow0] "i"(UTVM_DW_Q15_OFF(wq[0])),                              \
          [ow1] "i"(UTVM_DW_Q15_OFF(wq[3])), [ow2] "i"(UTVM_DW_Q15_OFF(wq[6])),                              \
          [rsb] "r"(c->rsb), [back] "i"(BACK),                                                                \
          [ooc] "i"(UTVM_DW_Q15_OFF(out_c))                                                                   \
        : "memory");                                                                                          \
    *y = yy;                                                                                                  \
    return p;                                                                                                 \
  }

UTVM_DW_Q15_QUAD_FN(utvm_dw_q15_quad1, UTVM_DW_Q15_QROW0, UTVM_DW_Q15_QROW, UTVM_DW_Q15_ST4, 8)
UTVM_DW_Q15_QUAD_FN(utvm_dw_q15_quad2, UTVM_DW_Q15_QROW20, UTVM_DW_Q15_QROW2, UTVM_DW_Q15_ST4, 16)
/* the 3-pixel steps (the last 3 pixels of a row): three sums, six multiply-accumulates per filter row
 * (pixel x+2: C.W01 + E.lo w2 at stride 1; at stride 2 the words (x, x+1) .. (x+6, x+7)); a3 unused;
 * p advanced by 4 positions as the 4-pixel step's (pskip counts so) */
#define UTVM_DW_Q15_TROW(W)                  \
  UTVM_DW_Q15_QLOAD(W)                       \
  UTVM_DW_Q15_PMAC                           \
  "smlad %[a2], %[i1], %[wa], %[a2]\n\t"     \
  "smlabt %[a2], %[i2], %[wb], %[a2]\n\t"
#define UTVM_DW_Q15_TROW0 UTVM_DW_Q15_QROW0_A12 UTVM_DW_Q15_QROW0_A0
#define UTVM_DW_Q15_TROW2(W)                 \
  UTVM_DW_Q15_PROW2(W)                       \
  "ldr %[i0], [%[p], #12]\n\t"              \
  "smlad %[a2], %[i2], %[wa], %[a2]\n\t"     \
  "smlabt %[a2], %[i0], %[wb], %[a2]\n\t"
#define UTVM_DW_Q15_TROW20                   \
  "ldr %[a0], [%[c], %[obias]]\n\t"          \
  UTVM_DW_Q15_QLOAD("ow0")                   \
  UTVM_DW_Q15_R20_A012                       \
  "ldr %[i0], [%[p], #12]\n\t"              \
  "smlabt %[a2], %[i0], %[wb], %[a2]\n\t"
UTVM_DW_Q15_QUAD_FN(utvm_dw_q15_three1, UTVM_DW_Q15_TROW0, UTVM_DW_Q15_TROW, UTVM_DW_Q15_ST3, 8)
UTVM_DW_Q15_QUAD_FN(utvm_dw_q15_three2, UTVM_DW_Q15_TROW20, UTVM_DW_Q15_TROW2, UTVM_DW_Q15_ST3, 16)
UTVM_DW_Q15_QUAD_FN(utvm_dw_q15_pair1, UTVM_DW_Q15_PROW0, UTVM_DW_Q15_PROW, UTVM_DW_Q15_ST2, 4)
UTVM_DW_Q15_QUAD_FN(utvm_dw_q15_pair2, UTVM_DW_Q15_PROW20, UTVM_DW_Q15_PROW2, UTVM_DW_Q15_ST2, 8)

/* Six output pixels of a row in one block (the rows' steps, utvm_dw_q15_rows4: a row of 6q pixels
 * is q such blocks, of about 120 estimated cycles at stride 1 against 1.5 4-pixel steps of about
 * 95 plus the loop). 13 registers: six sums, i0..i2, wa, wb, p and c; the output address is not one
 * of them: a memory operand, loaded into i0 once the six sums are requantized (in place), then the
 * six stores in a run and the address written back yadv on (the state's: 6 out_c, or to the next
 * row for rows of one block). p advances by the row step between filter rows (in the register RSB:
 * each row loads it) and then by the state's badv (returned): 6 positions (stride 2: 12) in all,
 * or to the next row's first block.
 * Stride 1 (UTVM_DW_Q15_SROW): per filter row the words (x, x+1) .. (x+4, x+5) in i0..i2 and,
 * once i0 is dead, (x+6, x+7) in i0 (its last lane is the next block's or the row's padding);
 * stride 2 (UTVM_DW_Q15_SROW2): the words (x, x+1) .. (x+12, x+13) through i0..i2, pixel j = word
 * j . W01 + word (j+1).lo w2 (the last lane read is past the row: the next row's or the scratch's
 * spare bytes). The first filter row (ROW0) seeds every sum from the bias in a0, a0's own last.
 * The third filter row (ROWL) loads the requantization triplet into the registers its last words
 * leave free, in the same run of loads (an LDR after a load pipelines: the run's first costs 2),
 * instead of the row step the next row would take; TRIP loads the rest after its last
 * multiply-accumulate, the names T, M, K, S of the temporary and the triplet (m, 2k, sh + 1); p
 * advances by badv after the stores (a load right after a store). */
/* a filter row after the first: the loads into the registers its last words leave free, LOADS (at
 * stride 1 one of i1, i2, wa; at stride 2 i1), in the run of the last words' loads */
#define UTVM_DW_Q15_SROWX(W, LOADS)          \
  UTVM_DW_Q15_TROW(W)                        \
  "smlatb %[a3], %[i1], %[wa], %[a3]\n\t"    \
  "smlad %[a3], %[i2], %[wb], %[a3]\n\t"     \
  "smlad %[a4], %[i2], %[wa], %[a4]\n\t"     \
  "smlatb %[a5], %[i2], %[wa], %[a5]\n\t"    \
  "ldr %[i0], [%[p], #12]\n\t" LOADS        \
  "smlabt %[a4], %[i0], %[wb], %[a4]\n\t"    \
  "smlad %[a5], %[i0], %[wb], %[a5]\n\t"
#define UTVM_DW_Q15_SROW2X(W, LOADS)         \
  UTVM_DW_Q15_QROW2(W)                       \
  "smlad %[a4], %[i1], %[wa], %[a4]\n\t"     \
  "ldr %[i2], [%[p], #20]\n\t"              \
  "ldr %[i0], [%[p], #24]\n\t" LOADS        \
  "smlabt %[a4], %[i2], %[wb], %[a4]\n\t"    \
  "smlad %[a5], %[i2], %[wa], %[a5]\n\t"     \
  "smlabt %[a5], %[i0], %[wb], %[a5]\n\t"
/* the second filter row: the row step (to the third) */
#define UTVM_DW_Q15_SROW(W) UTVM_DW_Q15_SROWX(W, "ldr %[wa], [%[c], %[orsb]]\n\t")
#define UTVM_DW_Q15_SROW2(W) UTVM_DW_Q15_SROW2X(W, "ldr %[i1], [%[c], %[orsb]]\n\t")
/* the third filter row: stride 1, (m, 2k, sh + 1) into i1, i2, wa (dead there); stride 2, m into i1
 * (the rest after the row: UTVM_DW_Q15_STRIP2) */
#define UTVM_DW_Q15_SROWL(W)                                                                           \
  UTVM_DW_Q15_SROWX(W, "ldr %[i1], [%[c], %[orq]]\n\tldr %[i2], [%[c], %[orq]+4]\n\t"             \
                       "ldr %[wa], [%[c], %[osh]]\n\t")
#define UTVM_DW_Q15_SROW2L(W) UTVM_DW_Q15_SROW2X(W, "ldr %[i1], [%[c], %[orq]]\n\t")
#define UTVM_DW_Q15_STRIP2                   \
  "ldr %[i2], [%[c], %[orq]+4]\n\t"         \
  "ldr %[wb], [%[c], %[osh]]\n\t"
/* stride 1's first filter row: every load in one run (an LDR after a load pipelines: one run's
 * first LDR costs 2), the fourth word (x+6, x+7) into a3 and the row step into a2 while those sums
 * are not yet written, p stepped to the second filter row; pixels 4 and 5 first (they read a3) */
#define UTVM_DW_Q15_SROW0                    \
  "ldr %[a0], [%[c], %[obias]]\n\t"          \
  UTVM_DW_Q15_QLOAD("ow0")                   \
  "ldr %[a3], [%[p], #12]\n\t"              \
  "ldr %[a2], [%[c], %[orsb]]\n\t"          \
  "add %[p], %[p], %[a2]\n\t"               \
  "smlad %[a4], %[i2], %[wa], %[a0]\n\t"     \
  "smlabt %[a4], %[a3], %[wb], %[a4]\n\t"    \
  "smlatb %[a5], %[i2], %[wa], %[a0]\n\t"    \
  "smlad %[a5], %[a3], %[wb], %[a5]\n\t"     \
  "smlatb %[a3], %[i1], %[wa], %[a0]\n\t"    \
  "smlad %[a3], %[i2], %[wb], %[a3]\n\t"     \
  "smlad %[a2], %[i1], %[wa], %[a0]\n\t"     \
  "smlabt %[a2], %[i2], %[wb], %[a2]\n\t"    \
  "smlatb %[a1], %[i0], %[wa], %[a0]\n\t"    \
  "smlad %[a1], %[i1], %[wb], %[a1]\n\t"     \
  "smlad %[a0], %[i0], %[wa], %[a0]\n\t"     \
  "smlabt %[a0], %[i1], %[wb], %[a0]\n\t"
/* stride 2's first filter row: every load in one run, words 3..5 in a3..a5 while the bias is live,
 * word 6 in a1 and the row step in a2 (p stepped to the second filter row at once); pixels 2..5,
 * then 1 (it overwrites word 6) and 0 */
#define UTVM_DW_Q15_SROW20                   \
  "ldr %[a0], [%[c], %[obias]]\n\t"          \
  UTVM_DW_Q15_QLOAD("ow0")                   \
  "ldr %[a3], [%[p], #12]\n\t"              \
  "ldr %[a4], [%[p], #16]\n\t"              \
  "ldr %[a5], [%[p], #20]\n\t"              \
  "ldr %[a1], [%[p], #24]\n\t"              \
  "ldr %[a2], [%[c], %[orsb]]\n\t"          \
  "add %[p], %[p], %[a2]\n\t"               \
  "smlad %[a2], %[i2], %[wa], %[a0]\n\t"     \
  "smlabt %[a2], %[a3], %[wb], %[a2]\n\t"    \
  "smlad %[a3], %[a3], %[wa], %[a0]\n\t"     \
  "smlabt %[a3], %[a4], %[wb], %[a3]\n\t"    \
  "smlad %[a4], %[a4], %[wa], %[a0]\n\t"     \
  "smlabt %[a4], %[a5], %[wb], %[a4]\n\t"    \
  "smlad %[a5], %[a5], %[wa], %[a0]\n\t"     \
  "smlabt %[a5], %[a1], %[wb], %[a5]\n\t"    \
  "smlad %[a1], %[i1], %[wa], %[a0]\n\t"     \
  "smlabt %[a1], %[i2], %[wb], %[a1]\n\t"    \
  "smlad %[a0], %[i0], %[wa], %[a0]\n\t"     \
  "smlabt %[a0], %[i1], %[wb], %[a0]\n\t"
#define UTVM_DW_Q15_SIX_FN(NAME, ROW0, ROW, ROWL, TRIP, T, M, K, S, RSB)                                                              \
  static UTVM_DSP_INLINE const uint16_t* NAME(const utvm_dw_q15_ch3* c, const uint16_t* p, uintptr_t* y) {    \
    UTVM_DW_Q15_STEP_REGS                                                                                     \
    int32_t a4;                                                                                               \
    int32_t a5;                                                                                               \
    /* volatile: it stores the outputs (its register results alone may be unused) */                         \
    __asm__ __volatile__(                                                                                     \
        ROW0 ROW("ow1")                                                                                       \
        "add %[p], %[p], %[" RSB "]\n\t" ROWL("ow2") TRIP                                                    \
        UTVM_DW_Q15_QRQ_R("a0", T, M, K, S) UTVM_DW_Q15_QRQ_R("a1", T, M, K, S)                               \
        UTVM_DW_Q15_QRQ_R("a2", T, M, K, S) UTVM_DW_Q15_QRQ_R("a3", T, M, K, S)                               \
        UTVM_DW_Q15_QRQ_R("a4", T, M, K, S) UTVM_DW_Q15_QRQ_R("a5", T, M, K, S)                               \
        "ldr %[i0], %[ym]\n\t"                                                                                \
        "ldr %[i1], [%[c], %[ooc]]\n\t"                                                                       \
        "ldr %[wb], [%[c], %[oyadv]]\n\t"                                                                     \
        "add %[i2], %[i1], %[i1], lsl #1\n\t"                                                                 \
        "add %[wa], %[i1], %[i1], lsl #2\n\t"                                                                 \
        "add %[wb], %[wb], %[i0]\n\t"                                                                         \
        "strb %[a0], [%[i0]]\n\t"                                                                             \
        "strb %[a1], [%[i0], %[i1]]\n\t"                                                                      \
        "strb %[a2], [%[i0], %[i1], lsl #1]\n\t"                                                              \
        "strb %[a3], [%[i0], %[i2]]\n\t"                                                                      \
        "strb %[a4], [%[i0], %[i1], lsl #2]\n\t"                                                              \
        "strb %[a5], [%[i0], %[wa]]\n\t"                                                                      \
        "str %[wb], %[ym]\n\t"                                                                                \
        "ldr %[wb], [%[c], %[obadv]]\n\t"                                                                     \
        "add %[p], %[p], %[wb]\n\t"                                                                           \
        : [p] "+r"(p), [ym] "+m"(*y), [a0] "=&r"(a0), [a1] "=&r"(a1), [a2] "=&r"(a2), [a3] "=&r"(a3),        \
          [a4] "=&r"(a4), [a5] "=&r"(a5), [i0] "=&r"(i0), [i1] "=&r"(i1), [i2] "=&r"(i2), [wa] "=&r"(wa),     \
          [wb] "=&r"(wb)                                                                                      \
        : [c] "r"(c), [obias] "i"(UTVM_DW_Q15_OFF(bias)), [orq] "i"(UTVM_DW_Q15_OFF(rq[0])),                  \
          [osh] "i"(UTVM_DW_Q15_OFF(rq[2])), [ow0] "i"(UTVM_DW_Q15_OFF(wq[0])),                              \
          [ow1] "i"(UTVM_DW_Q15_OFF(wq[3])), [ow2] "i"(UTVM_DW_Q15_OFF(wq[6])),                              \
          [orsb] "i"(UTVM_DW_Q15_OFF(rsb)), [ooc] "i"(UTVM_DW_Q15_OFF(out_c)),                                    \
          [obadv] "i"(UTVM_DW_Q15_OFF(badv)), [oyadv] "i"(UTVM_DW_Q15_OFF(yadv))                                \
        : "memory");                                                                                          \
    return p;                                                                                                 \
  }

/* the row step: the rows load it right after their last input word (a load after a load), into a
 * register dead there: wa at stride 1, i1 at stride 2 */
UTVM_DW_Q15_SIX_FN(utvm_dw_q15_six1, UTVM_DW_Q15_SROW0, UTVM_DW_Q15_SROW, UTVM_DW_Q15_SROWL, "", "i0", "i1", "i2",
                   "wa", "wa")
UTVM_DW_Q15_SIX_FN(utvm_dw_q15_six2, UTVM_DW_Q15_SROW20, UTVM_DW_Q15_SROW2, UTVM_DW_Q15_SROW2L, UTVM_DW_Q15_STRIP2,
                   "wa", "i1", "i2", "wb", "i1")
#endif

/* A 3x3 channel's 9 taps (int16, 18 bytes at src, 2-aligned) into d: four word loads and a halfword,
 * no more (a memcpy of 18 bytes became a loop). */
static UTVM_DSP_INLINE void utvm_dw_q15_taps9(uint16_t* d, const uint8_t* src) {
  uint32_t v0;
  uint32_t v1;
  uint32_t v2;
  uint32_t v3;
  (void)memcpy(&v0, src, 4u);
  (void)memcpy(&v1, &src[4], 4u);
  (void)memcpy(&v2, &src[8], 4u);
  (void)memcpy(&v3, &src[12], 4u);
  (void)memcpy(d, &v0, 4u);
  (void)memcpy(&d[2], &v1, 4u);
  (void)memcpy(&d[4], &v2, 4u);
  (void)memcpy(&d[6], &v3, 4u);
  (void)memcpy(&d[8], &src[16], 2u);
}

#ifdef UTVM_DW_Q15_QUAD
/* A channel's rows by the assembly steps alone (rows of 4k, 4k + 2 or 4k + 3 pixels): the plane
 * position and the output address carried from one row's last step to the next row's first
 * (pskip, yskip), the row count in a local, nothing stored back into the state per row. Rows of 6q
 * pixels (VWW's and person_detect's 48, 24, 12 and 6): q 6-pixel blocks (the output address in
 * memory: the blocks' operand). Other rows: 4-pixel steps, then for 3 pixels left a 4-pixel step
 * storing three (its reads past the row stay in the scratch: kernel_table.py, 16 bytes beyond the
 * planes), for 2 a 2-pixel step; (1: utvm_dw_q15_ch3x3's C code). */
static UTVM_DSP_INLINE void utvm_dw_q15_rows4_ch(const utvm_dw_q15_ch3* c, int32_t quad) {
  const uint16_t* p = c->s;
  const int32_t tail = c->n & 3;
  int32_t rows = c->rows;
  if (c->sixes != 0) {
    /* rows of one block: one run of rows blocks (their advances include the row skips: badv,
     * yadv), no row loop; one copy of each block all the same (flash) */
    const int32_t nb = c->nb6;
    uintptr_t my = (uintptr_t)c->y;
    rows = c->nr6;
    for (;;) {
      int32_t j = nb;
      do {
        p = (quad == 1) ? utvm_dw_q15_six1(c, p, &my) : utvm_dw_q15_six2(c, p, &my);
        j -= 1;
      } while (j != 0); /* (nb >= 1) */
      rows -= 1;
      if (rows == 0) { /* (rows >= 1: the band's) */
        return;
      }
      p = &p[c->pskip];
      if (c->yskip != 0) { /* (0 unless the map runs transposed: no load and store of my) */
        my += (uintptr_t)(intptr_t)c->yskip;
      }
    }
  } else {
    uintptr_t qy = (uintptr_t)c->y;
    for (;;) {
      int32_t k;
      for (k = c->n >> 2; k > 0; --k) {
        p = (quad == 1) ? utvm_dw_q15_quad1(c, p, &qy) : utvm_dw_q15_quad2(c, p, &qy);
      }
      if (tail == 3) {
        p = (quad == 1) ? utvm_dw_q15_three1(c, p, &qy) : utvm_dw_q15_three2(c, p, &qy);
      } else if (tail == 2) {
        p = (quad == 1) ? utvm_dw_q15_pair1(c, p, &qy) : utvm_dw_q15_pair2(c, p, &qy);
      } else {
        /* (rows of 4k pixels) */
      }
      rows -= 1;
      if (rows == 0) { /* (rows >= 1: the band's) */
        return;
      }
      p = &p[c->pskip];
      qy += (uintptr_t)(intptr_t)c->yskip;
    }
  }
}
#endif

/* Per filter row one word of input taps 0 and 1 (SMLAD) and tap 2 (SMLABT / SMLATT), two pixels per
 * step (each weight word loaded once for both; the weights are loaded per step). xs1: stride_w is
 * 1 (a constant in that copy: every load at an immediate offset). */
static UTVM_DSP_INLINE void utvm_dw_q15_ch3x3(utvm_dw_q15_ch3* c, int32_t mode, bool xs1, int32_t quad) {
  while (c->rows > 0) {
    const uint16_t* p0 = c->s;
    int32_t yo = 0;
#ifdef UTVM_DW_Q15_QUAD
    if (quad != 0) {
      /* the row's pixels by fours first (before the row's constants are loaded: nothing else is
       * live), the rest by the pairs below; the output address an integer (past the row after its
       * last step) */
      uintptr_t qy = (uintptr_t)c->y;
      const int32_t nq = c->n >> 2;
      int32_t k;
      for (k = nq; k > 0; --k) {
        if (quad == 1) {
          p0 = utvm_dw_q15_quad1(c, p0, &qy);
        } else {
          p0 = utvm_dw_q15_quad2(c, p0, &qy);
        }
      }
      yo = 4 * nq * c->out_c; /* (rows of 4k + 1 pixels here: the others take utvm_dw_q15_rows4) */
    }
#else
    (void)quad;
#endif
    if (yo < (c->n * c->out_c)) { /* pixels left after the 4-pixel steps */
      const int32_t bias = c->bias;
      const int32_t m = c->rq[0];
      const int32_t k = c->rq[1];
      const int32_t sh = c->rq[2];
      const int32_t rs = c->rs;
      const int32_t xs = xs1 ? 1 : c->xs;
      const int32_t out_c = c->out_c;
      const int32_t zp = c->zp;
      const int32_t lo = c->lo;
      const int32_t hi = c->hi;
      const uint16_t* w = c->wq; /* (w0, w1) of filter row r at w[3r], (w1, w2) at w[3r + 1]: tap 2 high */
      const uint16_t* p1 = &p0[rs];
      const uint16_t* p2 = &p1[rs];
      int8_t* const py = c->y;
      const int32_t last = (c->n - 1) * out_c; /* offsets, not pointers: none past the output */
      while (yo < last) {
        int32_t wv = utvm_dw_q15_ld2(w);
        int32_t a0 = __smlad(utvm_dw_q15_ld2(p0), wv, bias);
        int32_t a1 = __smlad(utvm_dw_q15_ld2(&p0[xs]), wv, bias);
        wv = utvm_dw_q15_ld2(&w[3]);
        a0 = __smlad(utvm_dw_q15_ld2(p1), wv, a0);
        a1 = __smlad(utvm_dw_q15_ld2(&p1[xs]), wv, a1);
        wv = utvm_dw_q15_ld2(&w[6]);
        a0 = __smlad(utvm_dw_q15_ld2(p2), wv, a0);
        a1 = __smlad(utvm_dw_q15_ld2(&p2[xs]), wv, a1);
        if (xs1) {
          /* stride 1: tap 2 of both pixels in one word per filter row */
          int32_t t = utvm_dw_q15_ld2(&p0[2]);
          wv = utvm_dw_q15_ld2(&w[1]);
          a0 = __smlabt(t, wv, a0);
          a1 = __smlatt(t, wv, a1);
          t = utvm_dw_q15_ld2(&p1[2]);
          wv = utvm_dw_q15_ld2(&w[4]);
          a0 = __smlabt(t, wv, a0);
          a1 = __smlatt(t, wv, a1);
          t = utvm_dw_q15_ld2(&p2[2]);
          wv = utvm_dw_q15_ld2(&w[7]);
          a0 = __smlabt(t, wv, a0);
          a1 = __smlatt(t, wv, a1);
        } else {
          wv = utvm_dw_q15_ld2(&w[1]);
          a0 = __smlabt((int32_t)p0[2], wv, a0);
          a1 = __smlabt((int32_t)p0[xs + 2], wv, a1);
          wv = utvm_dw_q15_ld2(&w[4]);
          a0 = __smlabt((int32_t)p1[2], wv, a0);
          a1 = __smlabt((int32_t)p1[xs + 2], wv, a1);
          wv = utvm_dw_q15_ld2(&w[7]);
          a0 = __smlabt((int32_t)p2[2], wv, a0);
          a1 = __smlabt((int32_t)p2[xs + 2], wv, a1);
        }
        py[yo] = utvm_dw_q15_rq(a0, mode, m, k, sh, zp, lo, hi);
        py[yo + out_c] = utvm_dw_q15_rq(a1, mode, m, k, sh, zp, lo, hi);
        yo += 2 * out_c;
        p0 = &p0[2 * xs];
        p1 = &p1[2 * xs];
        p2 = &p2[2 * xs];
      }
      if (yo == last) {
        int32_t acc = __smlad(utvm_dw_q15_ld2(p0), utvm_dw_q15_ld2(w), bias);
        acc = __smlabt((int32_t)p0[2], utvm_dw_q15_ld2(&w[1]), acc);
        acc = __smlad(utvm_dw_q15_ld2(p1), utvm_dw_q15_ld2(&w[3]), acc);
        acc = __smlabt((int32_t)p1[2], utvm_dw_q15_ld2(&w[4]), acc);
        acc = __smlad(utvm_dw_q15_ld2(p2), utvm_dw_q15_ld2(&w[6]), acc);
        acc = __smlabt((int32_t)p2[2], utvm_dw_q15_ld2(&w[7]), acc);
        py[yo] = utvm_dw_q15_rq(acc, mode, m, k, sh, zp, lo, hi);
      }
    }
    c->rows -= 1;
    if (c->rows > 0) { /* the next row (formed only when it exists) */
      c->s = &c->s[c->ys];
      c->y = &c->y[c->y_row];
    }
  }
}

/* The loops specialized for UTVM_DSP_RQ_FULL (GCC: -O2). With the assembly steps: rows of 4k, 4k + 2
 * and 4k + 3 pixels at stride 1 and 2 by the steps alone (utvm_dw_q15_rows4), rows of 4k + 1 at
 * stride 1 by 4-pixel steps and the C code (KWS's transposed rows of 25), each its own function
 * (inlined together, GCC spilled the 4-pixel loop's counter: KWS +3 %); the other strides and rows
 * of 4k + 1 at stride 2 take utvm_dw_q15_ch3x3_other (no C copy of the pair loop for them, flash).
 * Without: the C pair loop at stride 1 and at any other. */
#ifdef UTVM_DW_Q15_QUAD
/* A channel's rows, then those of the c->more channels after it (the band's four channels of mode
 * UTVM_DW_Q15_RQ_FULL2 in one call: one call, one register save and one row set-up test per four
 * channels instead of per channel); the next channel's taps, bias and triplet copied into the
 * state here. */
static UTVM_DSP_INLINE void utvm_dw_q15_rows4(utvm_dw_q15_ch3* c, int32_t quad) {
  for (;;) {
    utvm_dw_q15_rows4_ch(c, quad);
    if (c->more == 0) {
      return;
    }
    c->more -= 1;
    utvm_dw_q15_taps9(c->wq, c->wn);
    c->wn = &c->wn[18];
    c->bias = *c->bn;
    c->bn = &c->bn[1];
    c->rq[0] = c->rqn[0];
    c->rq[1] = c->rqn[1];
    c->rq[2] = c->rqn[2];
    c->rqn = &c->rqn[3];
    c->s = &c->s[c->plane];
    c->y = &c->y[1];
  }
}

static UTVM_DSP_HOT void utvm_dw_q15_rows_full1(utvm_dw_q15_ch3* c) {
  utvm_dw_q15_rows4(c, 1);
}

static UTVM_DSP_HOT void utvm_dw_q15_rows_full2(utvm_dw_q15_ch3* c) {
  utvm_dw_q15_rows4(c, 2);
}

static UTVM_DSP_HOT void utvm_dw_q15_ch3x3_full1(utvm_dw_q15_ch3* c) {
  utvm_dw_q15_ch3x3(c, UTVM_DW_Q15_RQ_FULL2, true, 1);
}
#else
static UTVM_DSP_HOT void utvm_dw_q15_ch3x3_full1(utvm_dw_q15_ch3* c) {
  utvm_dw_q15_ch3x3(c, UTVM_DW_Q15_RQ_FULL2, true, 0);
}

static UTVM_DSP_HOT void utvm_dw_q15_ch3x3_full(utvm_dw_q15_ch3* c) {
  utvm_dw_q15_ch3x3(c, UTVM_DW_Q15_RQ_FULL2, false, 0);
}
#endif

/* The other modes: one copy, the mode tested per output (flash). */
static UTVM_DSP_NOINLINE void utvm_dw_q15_ch3x3_other(utvm_dw_q15_ch3* c, int32_t mode) {
  utvm_dw_q15_ch3x3(c, mode, false, 0);
}

/* One channel of a band, any filter (weights wh: the channel's taps as int16, row by row); one
 * copy for every requantization mode (the mode is tested per output: this path is not the
 * common one). */
static UTVM_DSP_NOINLINE void utvm_dw_q15_ch(const utvm_dw_q15_params* p, const uint16_t* s, const uint8_t* wh,
                                             int32_t bias, const int32_t* rq, int8_t* y, int32_t rows) {
  const utvm_conv_geom* g = &p->g;
  const int32_t mode = p->rq_mode;
  const int32_t m = rq[0];
  const int32_t k = rq[1];
  const int32_t sh = rq[2];
  const int32_t zp = p->output_offset;
  const int32_t lo = p->act_min;
  const int32_t hi = p->act_max;
  const int32_t cols = p->cols;
  const int32_t rs = cols * g->dilation_h;
  const int32_t cs = g->dilation_w;
  const int32_t fh = g->filter_h;
  const int32_t fw = g->filter_w;
  const int32_t out_w = g->out_w;
  int32_t r;
  int32_t ox;
  int32_t ky;
  int32_t kx;
  for (r = 0; r < rows; ++r) {
    for (ox = 0; ox < out_w; ++ox) {
      const uint16_t* const px = &s[(r * cols * g->stride_h) + (ox * g->stride_w)];
      int32_t acc = bias;
      int8_t v;
      for (ky = 0; ky < fh; ++ky) {
        for (kx = 0; kx < fw; ++kx) {
          uint16_t wv;
          (void)memcpy(&wv, &wh[2 * ((ky * fw) + kx)], sizeof wv);
          acc = __smlabb((int32_t)px[(ky * rs) + (kx * cs)], (int32_t)wv, acc);
        }
      }
      if (mode == UTVM_DSP_RQ_FULL) {
        v = utvm_dsp_rq3(acc, UTVM_DSP_RQ_FULL, m, k, sh, zp, lo, hi);
      } else if (mode == UTVM_DSP_RQ_FAST) {
        v = utvm_dsp_rq3(acc, UTVM_DSP_RQ_FAST, m, k, sh, zp, lo, hi);
      } else {
        v = utvm_dsp_rq3(acc, UTVM_DSP_RQ_ANY, m, k, sh, zp, lo, hi);
      }
      y[(r * p->out_sy) + (ox * p->out_sx)] = v;
    }
  }
}

/* The requantization mode of one channel, its triplet rq (m, k, sh) rewritten in place: under
 * UTVM_DSP_RQ_ANY (some channel of the operator has a shift outside -22..-2, e.g. person_detect's
 * first 3x3 depthwise: one channel of eight at -1), a channel whose own shift is in -22..-2 gets
 * the triplet _rq_triplets (ops/conv.py) would have given it, (m, 2^(e-2) + zp 2^(e-1), e - 1), and
 * the fast mode: the channels run one at a time, so each can take its own copy of the loop. */
static UTVM_DSP_NOINLINE int32_t utvm_dw_q15_channel_mode(const utvm_dw_q15_params* p, int32_t* rq) {
  const int32_t e = -rq[2];
  int32_t mode = p->rq_mode;
  if ((mode == UTVM_DSP_RQ_ANY) && (e >= 2) && (e <= 22)) {
    /* |zp| <= 128, e <= 22: the constant stays below 2^29 in magnitude */
    rq[1] = (int32_t)(1u << (uint32_t)(e - 2)) + (p->output_offset * (int32_t)(1u << (uint32_t)(e - 1)));
    rq[2] = e - 1;
    mode = ((p->act_min == -128) && (p->act_max == 127)) ? UTVM_DSP_RQ_FULL : UTVM_DSP_RQ_FAST;
  } else if ((mode == UTVM_DW_Q15_RQ_ANY2) && (e >= 2) && (e <= 22)) {
    /* the doubled sums (the full range: the generator's condition): (m, 2k, sh + 1) of the above */
    rq[1] = (int32_t)(1u << (uint32_t)(e - 1)) + (p->output_offset * (int32_t)(1u << (uint32_t)e));
    rq[2] = e;
    mode = UTVM_DW_Q15_RQ_FULL2;
  } else {
    /* (the channel keeps the operator's mode) */
  }
  return mode;
}

/* Channels c..c+3 of a band (s: their four planes of plane values each) into y (channel c). */
/* The fields of a channel's state that hold for the whole operator (once per call). */
static void utvm_dw_q15_ch3_init(const utvm_dw_q15_params* p, utvm_dw_q15_ch3* st) {
  const utvm_conv_geom* g = &p->g;
  st->rs = p->cols * g->dilation_h;
  st->rsb = 2 * st->rs;
  st->xs = g->stride_w;
  st->ys = p->cols * g->stride_h;
  st->out_c = p->out_sx;
  st->y_row = p->out_sy;
  st->n = g->out_w;
  st->zp = p->output_offset;
  st->lo = p->act_min;
  st->hi = p->act_max;
  st->sixes = ((g->out_w % 6) == 0) ? (g->out_w / 6) : 0;
  {
    /* where a row's steps leave p and y (utvm_dw_q15_rows4): n positions on (3 pixels left: the
     * 4-pixel step, one more), y n out_c on (3 left: the third store does not advance it) */
    const int32_t t3 = ((g->out_w & 3) == 3) ? 1 : 0;
    st->pskip = st->ys - (g->stride_w * (g->out_w + t3));
    st->yskip = p->out_sy - (p->out_sx * (g->out_w - t3));
  }
  /* the 6-pixel block's advances (rows of one block: to the next row's first block) */
  st->badv = (12 * g->stride_w) - (2 * st->rsb) + ((st->sixes == 1) ? (2 * st->pskip) : 0);
  st->yadv = (6 * p->out_sx) + ((st->sixes == 1) ? st->yskip : 0);
  st->more = 0;
}

/* A channel's loop at UTVM_DW_Q15_RQ_FULL2 (NULL: none, the C form takes the channel), chosen once per
 * operator. */
typedef void (*utvm_dw_q15_chfn)(utvm_dw_q15_ch3*);
static utvm_dw_q15_chfn utvm_dw_q15_full_fn(const utvm_dw_q15_params* p, const utvm_dw_q15_ch3* st) {
#ifdef UTVM_DW_Q15_QUAD
  return (((UTVM_DW_Q15_SIGN & 2u) == 0u) && (p->output_offset != -128)) /* (the sign term left out) */
             ? NULL
         : ((st->n & 3) != 1) /* rows by the assembly steps alone (utvm_dw_q15_rows4) */
             ? ((st->xs == 1) ? utvm_dw_q15_rows_full1 : ((st->xs == 2) ? utvm_dw_q15_rows_full2 : NULL))
             : ((st->xs == 1) ? utvm_dw_q15_ch3x3_full1 : NULL);
#else
  (void)p;
  return (st->xs == 1) ? utvm_dw_q15_ch3x3_full1 : utvm_dw_q15_ch3x3_full;
#endif
}

#ifdef UTVM_DW_Q15_QUAD
/* Channels c..c+3 of a band when every channel takes the assembly steps (the operator's mode FULL2,
 * 3x3 filters, rows not of 4k + 1 pixels: utvm_dw_q15_four): the first channel's taps, bias and
 * triplet, the sources of the next three's, one call of the rows function for the four
 * (utvm_dw_q15_rows4); no per-channel mode, no test of the filter. */
static void utvm_dw_q15_band4(utvm_dw_q15_ch3* st, utvm_dw_q15_chfn full, const uint16_t* s, int32_t plane,
                              const int32_t* w, const int32_t* bias, const int32_t* rq, int8_t* y, int32_t c,
                              int32_t rows) {
  const uint8_t* const wb = (const uint8_t*)(const void*)w;
  utvm_dw_q15_taps9(st->wq, &wb[18 * c]);
  st->bias = bias[c];
  st->rq[0] = rq[3 * c];
  st->rq[1] = rq[(3 * c) + 1];
  st->rq[2] = rq[(3 * c) + 2];
  st->rows = rows;
  st->nb6 = (st->sixes == 1) ? rows : st->sixes;
  st->nr6 = (st->sixes == 1) ? 1 : rows;
  st->s = s;
  st->y = y;
  st->more = 3;
  st->wn = &wb[18 * (c + 1)];
  st->bn = &bias[c + 1];
  st->rqn = &rq[3 * (c + 1)];
  st->plane = plane;
  full(st);
}
#endif

/* Channels c..c+3 of a band (s: their four planes of plane values each) into y (channel c); st: the
 * channel state with the operator's fields set. */
static void utvm_dw_q15_band(const utvm_dw_q15_params* p, utvm_dw_q15_ch3* st, const uint16_t* s, int32_t plane,
                             const int32_t* w, const int32_t* bias, const int32_t* rq, int8_t* y, int32_t c,
                             int32_t rows) {
  const utvm_conv_geom* g = &p->g;
  const utvm_dw_q15_chfn full = utvm_dw_q15_full_fn(p, st); /* (chosen once for the four) */
  const int32_t taps = g->filter_h * g->filter_w;
  const int32_t mode = p->rq_mode;
  const bool f3x3 = (g->filter_h == 3) && (g->filter_w == 3) && (g->dilation_w == 1);
  int32_t cm;
  int32_t j;
  for (j = 0; j < 4; ++j) {
    const int32_t ch = c + j;
    if (f3x3) {
      /* the channel's 9 taps as they are (the steps read (w0, w1) and (w1, w2) of a row from them) */
      utvm_dw_q15_taps9(st->wq, &((const uint8_t*)(const void*)w)[18 * ch]);
      st->bias = bias[ch];
      st->rq[0] = rq[3 * ch];
      st->rq[1] = rq[(3 * ch) + 1];
      st->rq[2] = rq[(3 * ch) + 2];
      cm = ((mode == UTVM_DSP_RQ_ANY) || (mode == UTVM_DW_Q15_RQ_ANY2)) ? utvm_dw_q15_channel_mode(p, st->rq)
                                                                         : mode; /* (no call otherwise) */
      st->rows = rows;
      st->nb6 = (st->sixes == 1) ? rows : st->sixes;
      st->nr6 = (st->sixes == 1) ? 1 : rows;
      st->s = &s[j * plane];
      st->y = &y[j];
      if ((cm == UTVM_DW_Q15_RQ_FULL2) && (full != NULL)) {
        full(st);
      } else {
        utvm_dw_q15_ch3x3_other(st, cm);
      }
    } else {
      const uint8_t* wh = &((const uint8_t*)(const void*)w)[2 * ch * taps];
      utvm_dw_q15_ch(p, &s[j * plane], wh, bias[ch], &rq[3 * ch], &y[j], rows);
    }
  }
}

static void utvm_depthwise_conv2d_s8_q15(const utvm_dw_q15_params* p, const int8_t* in, const int32_t* w,
                                         const int32_t* bias, const int32_t* rq, void* scratch, int8_t* out) {
  const utvm_conv_geom* g = &p->g;
  uint8_t* const raw = (uint8_t*)scratch;
  uint16_t* const s = (uint16_t*)(void*)&raw[(4u - ((uintptr_t)raw & 3u)) & 3u];
  utvm_dw_q15_ch3 st;
  int32_t c;
  int32_t b;
  int32_t oy0;
  bool padded = false; /* the columns outside the image written (the first band's pad) */
#ifdef UTVM_DW_Q15_QUAD
  utvm_dw_q15_chfn four = NULL; /* every channel block by utvm_dw_q15_band4 with this loop */
#endif
  utvm_dw_q15_ch3_init(p, &st);
#ifdef UTVM_DW_Q15_QUAD
  if ((p->rq_mode == UTVM_DW_Q15_RQ_FULL2) && ((st.n & 3) != 1) && (g->filter_h == 3) && (g->filter_w == 3) &&
      (g->dilation_w == 1)) {
    four = utvm_dw_q15_full_fn(p, &st);
  }
#endif
  for (b = 0; b < g->batches; ++b) {
    const int8_t* in_b = &in[b * g->in_h * g->in_w * g->in_c];
    for (oy0 = 0; oy0 < g->out_h; oy0 += p->band_rows) {
      const int32_t rows = utvm_min_i32(p->band_rows, g->out_h - oy0);
      const int32_t rows_in = ((rows - 1) * g->stride_h) + ((g->filter_h - 1) * g->dilation_h) + 1;
      const int32_t plane = rows_in * p->cols;
      const int32_t iy0 = (oy0 * g->stride_h) - g->pad_h;
      /* one input channel: one plane, filled once, that every channel block reads (plane step 0;
       * one call site each, so that GCC keeps inlining the band) */
      const bool planes = g->in_c != 1;
      const int32_t pstep = planes ? plane : 0;
      utvm_dw_q15_pad(p, iy0, rows_in, -g->pad_w, s, !padded);
      padded = true;
      for (c = 0; c < g->out_c; c += 4) {
        int8_t* y = &out[(b * g->out_h * g->out_w * g->out_c) + (oy0 * p->out_sy) + c];
        if (planes || (c == 0)) {
          utvm_dw_q15_fill(p, in_b, c, iy0, rows_in, -g->pad_w, s);
        }
#ifdef UTVM_DW_Q15_QUAD
        if (four != NULL) {
          utvm_dw_q15_band4(&st, four, s, pstep, w, bias, rq, y, c, rows);
          continue;
        }
#endif
        utvm_dw_q15_band(p, &st, s, pstep, w, bias, rq, y, c, rows);
      }
    }
  }
}

#endif /* UTVM_KERNELS_ARM_DSP_DEPTHWISE_CONV2D_S8_Q15_H_ */
