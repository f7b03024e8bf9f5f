/* utvm-build kernels, DSP extension: DEPTHWISE_CONV_2D, int8 (TFLite DepthwiseConvPerChannel), depth
 * multiplier 1, channels a multiple of 4, a 3x3 filter without dilation, input rows of 2 columns or
 * more, the full int8 range, on tiny
 * output maps (ops/conv.py depthwise_tiny_call: at most DW_TINY_MAX_PIXELS output pixels, e.g. VWW's
 * and person_detect's 3x3x256 and 6x6 -> 3x3 layers), where depthwise_conv2d_s8_q15.h's per-channel
 * band fill and set-up outweigh the multiply-accumulates.
 *
 * Direct, pixel by pixel: the taps of an output pixel inside the image (the reference skips the
 * others) are a rectangle of rows x cols (1..3 rows; 2 or 3 columns, as every SAME or VALID pixel of a
 * 3x3 filter has on input rows of 2 columns or more), the same for all its channels; per block of 4
 * channels 4 int32 sums from the model's biases, per tap one word of the 4 channels' input bytes (NHWC:
 * adjacent) widened by SXTAB16 with the input offset pair into lanes (c0, c2) and (c1, c3), the tap's 4
 * int8 weights widened the same way by SXTB16, SMLABB / SMLATT into the 4 sums; the block loop is
 * compiled once per column count (a constant there: the taps of a row unrolled, the input columns at
 * x, x + C and x + 2C, the weights at immediate offsets). The generator lays the weights out per block
 * of 4 channels ([C/4][KH][KW][4]: ops/conv.py depthwise_tiny_call), so that a block's 9 taps are 36
 * contiguous bytes and a row of taps 12. Requantization of twice the sum (dsp_s8.h UTVM_DSP_RQ2_TEXT /
 * utvm_dsp_rq2, the triplets of ops/conv.py rq2_triplets; the generator checks that twice every sum
 * fits int32): the sum doubled by one LSL, then 3 instructions (SMMLAR, ASR, SSAT) when every layer of
 * the file has the output zero point -128 (UTVM_DW_TINY_SIGN, as depthwise_conv2d_s8_q15.h's
 * UTVM_DW_Q15_SIGN), 4 with the sign term otherwise; the 4 bytes stored one by one (STRB: fewer
 * instructions than packing a word, measured). No scratch, the model's own int8 weights.
 */
#ifndef UTVM_KERNELS_ARM_DSP_DEPTHWISE_CONV2D_S8_TINY_H_
#define UTVM_KERNELS_ARM_DSP_DEPTHWISE_CONV2D_S8_TINY_H_

#if !defined(__ARM_FEATURE_DSP) || (__ARM_FEATURE_DSP != 1)
#error "utvm-build: these kernels were generated for a DSP target (--target cortex-m4/m7/m33/m55) but compiled without the DSP extension; use --target generic"
#endif

#include "conv.h"
#include "dsp_s8.h"

typedef struct {
  utvm_conv_geom g;
  int32_t input_offset;  /* -input zero point */
  int32_t output_offset; /* -128 or another (the sign term, UTVM_DW_TINY_SIGN) */
} utvm_dw_tiny_params;

/* The output zero points of the file's tiny layers (ops/conv.py depthwise_tiny_call, Params.selects_values;
 * both when not defined): bit 0, -128; bit 1, any other. Without bit 1 the requantization leaves
 * out the sign term (bit-exact at zero point -128: a negative doubled sum lands at or below the zero
 * point, which SSAT turns into -128 as TFLite's clamp does; depthwise_conv2d_s8_q15.h's proof). */
#ifndef UTVM_DW_TINY_SIGN
#define UTVM_DW_TINY_SIGN 0x3u
#endif

/* One output pixel: its first tap's input (block 0) and weights (block 0: the tap's offset in the
 * block's 36 bytes), rows x cols taps, the input row step, the channel count. */
typedef struct {
  int32_t c4;   /* channels (a multiple of 4): the input's column step */
  int32_t xrow; /* the input's row step (in_w x channels) */
  int32_t rows; /* 1..3 */
  int32_t off2; /* (input offset, input offset) as two int16 lanes for SXTAB16 */
} utvm_dw_tiny_px;

#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__) && !defined(UTVM_NO_INLINE_ASM)
#define UTVM_DW_TINY_ASM 1
#endif

#if defined(UTVM_DW_TINY_ASM)
/* The block loop of one pixel as one inline assembly statement per column count (GCC with
 * optimization; 13 registers: the walkers x and w, c4, xrow, off2, the sums s0..s3, the temporaries
 * t0..t3; the loop's other values in the frame as memory operands). Per block: the 4 biases from the
 * block's record of the stream q (4 biases, then 4 triplets (m, 2k, sh + 1): 64 bytes), the rows of taps
 * entered at the first one the pixel has (3 - rows of them skipped: w starts 12 bytes a skipped row
 * earlier, so that every row reads its weights at fixed offsets; x walks by xrow), each tap one input
 * word at x, x + c4 or x + 2 c4 and one weight word, 2 SXTAB16, 2 SXTB16, 2 SMLABB, 2 SMLATT; then each
 * sum doubled (LSL) and requantized in place (dsp_s8.h UTVM_DSP_RQ2_TEXT with its temporary in the
 * triplet's 2k register), the 4 bytes stored, x stepped back to the next block's first row (xback =
 * 4 - rows xrow), w by the block's 36 bytes, until x reaches xend. */
#define UTVM_DW_TINY_TAP(XA, WOFF)                             \
  "ldr %[t0], " XA "\n\t"                                      \
  "ldr %[t1], [%[w], #" WOFF "]\n\t"                           \
  "sxtab16 %[t2], %[off2], %[t0]\n\t"                          \
  "sxtb16 %[t3], %[t1]\n\t"                                    \
  "smlabb %[s0], %[t2], %[t3], %[s0]\n\t"                      \
  "smlatt %[s2], %[t2], %[t3], %[s2]\n\t"                      \
  "sxtab16 %[t2], %[off2], %[t0], ror #8\n\t"                  \
  "sxtb16 %[t3], %[t1], ror #8\n\t"                            \
  "smlabb %[s1], %[t2], %[t3], %[s1]\n\t"                      \
  "smlatt %[s3], %[t2], %[t3], %[s3]\n\t"
#define UTVM_DW_TINY_X0 "[%[x]]"
#define UTVM_DW_TINY_X1 "[%[x], %[c4]]"
#define UTVM_DW_TINY_X2 "[%[x], %[c4], lsl #1]"
#define UTVM_DW_TINY_NEXT_ROW "add %[x], %[x], %[xrow]\n\t"
/* a row of 3 or 2 taps; W0..W2 its weights' offsets in the block */
#define UTVM_DW_TINY_ROW3(W0, W1, W2)                                                                        \
  UTVM_DW_TINY_TAP(UTVM_DW_TINY_X0, W0) UTVM_DW_TINY_TAP(UTVM_DW_TINY_X1, W1) UTVM_DW_TINY_TAP(UTVM_DW_TINY_X2, W2) \
  UTVM_DW_TINY_NEXT_ROW
#define UTVM_DW_TINY_ROW2(W0, W1, W2) \
  UTVM_DW_TINY_TAP(UTVM_DW_TINY_X0, W0) UTVM_DW_TINY_TAP(UTVM_DW_TINY_X1, W1) UTVM_DW_TINY_NEXT_ROW
#if (UTVM_DW_TINY_SIGN & 2u) != 0u
#define UTVM_DW_TINY_SIGN_TERM(S) "add %[t2], %[t2], %[" S "], asr #31\n\t"
#else
#define UTVM_DW_TINY_SIGN_TERM(S) ""
#endif
/* sum S doubled and requantized in place, its triplet at OFF in the block's record (t0) */
#define UTVM_DW_TINY_RQ(S, OFF, OFF4, OFF8)                                             \
  "ldr %[t1], [%[t0], #" OFF "]\n\t"                                                    \
  "ldr %[t2], [%[t0], #" OFF4 "]\n\t"                                                   \
  "ldr %[t3], [%[t0], #" OFF8 "]\n\t"                                                   \
  "lsl %[" S "], %[" S "], #1\n\t" UTVM_DW_TINY_SIGN_TERM(S)                            \
  "smmlar %[t2], %[" S "], %[t1], %[t2]\n\t"                                            \
  "asr %[t2], %[t2], %[t3]\n\t"                                                         \
  "ssat %[" S "], #8, %[t2]\n\t"
#define UTVM_DW_TINY_BLOCKS(ROW)                                                                       \
  __asm__ volatile(                                                                                    \
      "1:\n\t"                                                                                         \
      "ldr %[t0], %[q]\n\t"                                                                            \
      "ldr %[t1], %[rows]\n\t"                                                                         \
      "ldr %[s0], [%[t0]]\n\t"                                                                         \
      "ldr %[s1], [%[t0], #4]\n\t"                                                                     \
      "ldr %[s2], [%[t0], #8]\n\t"                                                                     \
      "ldr %[s3], [%[t0], #12]\n\t"                                                                    \
      "cmp %[t1], #2\n\t"                                                                              \
      "beq 3f\n\t"                                                                                     \
      "blt 4f\n\t" ROW("0", "4", "8") "3:\n\t" ROW("12", "16", "20") "4:\n\t" ROW("24", "28", "32")     \
      "ldr %[t0], %[q]\n\t" UTVM_DW_TINY_RQ("s0", "16", "20", "24") UTVM_DW_TINY_RQ("s1", "28", "32", "36") \
      UTVM_DW_TINY_RQ("s2", "40", "44", "48") UTVM_DW_TINY_RQ("s3", "52", "56", "60")                  \
      "ldr %[t1], %[y]\n\t"                                                                            \
      "ldr %[t2], %[xback]\n\t"                                                                        \
      "ldr %[t3], %[xend]\n\t"                                                                         \
      "strb %[s0], [%[t1]]\n\t"                                                                        \
      "strb %[s1], [%[t1], #1]\n\t"                                                                    \
      "strb %[s2], [%[t1], #2]\n\t"                                                                    \
      "strb %[s3], [%[t1], #3]\n\t"                                                                    \
      "add %[t1], %[t1], #4\n\t"                                                                       \
      "add %[t0], %[t0], #64\n\t"                                                                      \
      "str %[t1], %[y]\n\t"                                                                            \
      "str %[t0], %[q]\n\t"                                                                            \
      "add %[x], %[x], %[t2]\n\t"                                                                      \
      "add %[w], %[w], #36\n\t"                                                                        \
      "cmp %[x], %[t3]\n\t"                                                                            \
      "bne 1b\n\t"                                                                                     \
      : [x] "+r"(xa), [w] "+r"(wa), [s0] "=&r"(s0), [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3),    \
        [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [q] "+m"(qa), [y] "+m"(ya)     \
      : [c4] "r"(c4), [xrow] "r"(xrow), [off2] "r"(off2), [rows] "m"(rows), [xback] "m"(xback),        \
        [xend] "m"(xend)                                                                               \
      : "cc", "memory")
#endif

/* Twice the sum s requantized (dsp_s8.h utvm_dsp_rq2; t = (m, 2k, sh + 1)): the C form. */
static UTVM_DSP_INLINE int8_t utvm_dw_tiny_rq(int32_t s, const int32_t* t) {
  return utvm_dsp_rq2((int32_t)((uint32_t)s << 1u), t); /* |2 s| < 2^31: ops/conv.py doubled_sums_fit */
}

/* One tap of a block (the C form): S0..S3 += the 4 channels' (input + offset) x weight. */
#define UTVM_DW_TINY_TAP_C(XA, WA)                   \
  do {                                               \
    const int32_t xv_ = utvm_dsp_ld4(XA);            \
    const int32_t wv_ = utvm_dsp_ld4(WA);            \
    const int32_t xe_ = __sxtab16(off2, xv_);        \
    const int32_t xo_ = utvm_dsp_odd_add(off2, xv_); \
    const int32_t we_ = utvm_dsp_even(wv_);          \
    const int32_t wo_ = utvm_dsp_odd(wv_);           \
    s0 = __smlabb(xe_, we_, s0);                     \
    s2 = __smlatt(xe_, we_, s2);                     \
    s1 = __smlabb(xo_, wo_, s1);                     \
    s3 = __smlatt(xo_, wo_, s3);                     \
  } while (0)

#if !defined(UTVM_DW_TINY_ASM)
/* Every block of 4 channels of one pixel (the C form: Clang, -O0, UTVM_NO_INLINE_ASM): x, w its first
 * tap's input and weights in block 0, q the stream of the blocks' records. */
static void utvm_dw_tiny_pixel_c(const utvm_dw_tiny_px* px, const int8_t* x, const int8_t* w, const int32_t* q,
                                 int8_t* y, int32_t cols) {
  const int32_t c4 = px->c4;
  const int32_t off2 = px->off2;
  int32_t c;
  for (c = 0; c < c4; c += 4) {
    int32_t s0 = q[0];
    int32_t s1 = q[1];
    int32_t s2 = q[2];
    int32_t s3 = q[3];
    int32_t r;
    for (r = 0; r < px->rows; ++r) {
      int32_t k;
      for (k = 0; k < cols; ++k) {
        UTVM_DW_TINY_TAP_C(&x[(r * px->xrow) + (k * c4) + c], &w[(9 * c) + (12 * r) + (4 * k)]);
      }
    }
    y[c] = utvm_dw_tiny_rq(s0, &q[4]);
    y[c + 1] = utvm_dw_tiny_rq(s1, &q[7]);
    y[c + 2] = utvm_dw_tiny_rq(s2, &q[10]);
    y[c + 3] = utvm_dw_tiny_rq(s3, &q[13]);
    q = &q[16];
  }
}
#endif

static UTVM_DSP_HOT void utvm_dw_tiny_pixel(const utvm_dw_tiny_px* px, const int8_t* x, const int8_t* w,
                                            const int32_t* q, int8_t* y, int32_t cols) {
#if defined(UTVM_DW_TINY_ASM)
  const int32_t* qa = q; /* (the stream and the output in the frame: memory operands) */
  int8_t* ya = y;
  const int32_t c4 = px->c4;
  const int32_t xrow = px->xrow;
  const int32_t off2 = px->off2;
  const int32_t rows = px->rows;
  const int32_t xback = 4 - (rows * xrow);
  const uintptr_t xend = (uintptr_t)&x[c4];
  uintptr_t xa = (uintptr_t)x;
  uintptr_t wa = (uintptr_t)w - (uintptr_t)(12 * (3 - rows)); /* rows skipped before the first (see above) */
  int32_t s0;
  int32_t s1;
  int32_t s2;
  int32_t s3;
  int32_t t0;
  int32_t t1;
  int32_t t2;
  int32_t t3;
  if (cols == 3) {
    UTVM_DW_TINY_BLOCKS(UTVM_DW_TINY_ROW3);
  } else {
    /* (2: an input row of at least 2 columns, ops/conv.py depthwise_tiny_call, gives every SAME or
     * VALID pixel of a 3x3 filter 2 or 3 columns) */
    UTVM_DW_TINY_BLOCKS(UTVM_DW_TINY_ROW2);
  }
#else
  utvm_dw_tiny_pixel_c(px, x, w, q, y, cols);
#endif
}

static void utvm_depthwise_conv2d_s8_tiny(const utvm_dw_tiny_params* p, const int8_t* in, const int8_t* w,
                                          const int32_t* q, int8_t* out) {
  const utvm_conv_geom* g = &p->g;
  const int32_t c4 = g->in_c;
  utvm_dw_tiny_px px;
  int32_t b;
  int32_t oy;
  int32_t ox;
  px.c4 = c4;
  px.xrow = g->in_w * c4;
  px.off2 = (int32_t)(((uint32_t)p->input_offset & 0xFFFFu) | ((uint32_t)p->input_offset << 16u));
  for (b = 0; b < g->batches; ++b) {
    const int8_t* in_b = &in[b * g->in_h * px.xrow];
    for (oy = 0; oy < g->out_h; ++oy) {
      int32_t ky0;
      int32_t ky1;
      const int32_t iy = (oy * g->stride_h) - g->pad_h;
      utvm_conv_taps(iy, 1, 3, g->in_h, &ky0, &ky1); /* conv.h */
      px.rows = ky1 - ky0;
      for (ox = 0; ox < g->out_w; ++ox) {
        int32_t kx0;
        int32_t kx1;
        const int32_t ix = (ox * g->stride_w) - g->pad_w;
        int8_t* y = &out[(((b * g->out_h) + oy) * g->out_w + ox) * c4];
        utvm_conv_taps(ix, 1, 3, g->in_w, &kx0, &kx1);
        if ((px.rows > 0) && (kx1 > kx0)) {
          utvm_dw_tiny_pixel(&px, &in_b[(((iy + ky0) * g->in_w) + ix + kx0) * c4], &w[((3 * ky0) + kx0) * 4], q, y,
                             kx1 - kx0);
        }
      }
    }
  }
}

#endif /* UTVM_KERNELS_ARM_DSP_DEPTHWISE_CONV2D_S8_TINY_H_ */
