/* utvm-build kernels, Helium (MVE): CONV_2D int8 (TFLite ConvPerChannel), one group, any filter,
 * stride, dilation and padding. A kernel only the MVE targets have: the generator calls it instead
 * of utvm_conv2d_s8 / utvm_conv2d_s8_q15 when the target's kernel table provides it
 * (ops/conv_mve.py), with the weights re-laid out for it at compile time.
 *
 * Two output pixels at a time, four output channels at a time: per 16 window bytes the two
 * pixels' input vectors, the four channels' weight vectors (one pointer, 64 bytes per step) and
 * eight VMLADAVA (128 int8 multiply-accumulates in 16 instructions with the loop: GCC inline
 * assembly, intrinsics for other compilers). The window is the input pixel itself for a 1x1
 * filter (no copy), else it is gathered into scratch (im2col, 16-byte vector copies) with the
 * input zero point for the taps outside the image: with the input offset folded into the bias
 * (bias - zp * sum of the channel's weights, at compile time) those taps add exactly 0, as the
 * reference skips them. The four sums go into one vector, the requantization is vectorised
 * (mve_s8.h utvm_mve_rq) and four bytes are stored at once (predicated for the last block).
 *
 * Filter rows of fewer than 16 bytes (the first layers: 3x3 x 3 channels, 9 bytes a row) can take
 * the row-padded layout (the generator's choice, ops/conv_mve.py): each filter row of the window
 * padded to one 16-byte vector (zero weights, row_bytes 16); a pixel pair whose windows are both
 * inside the image then reads every filter row in place with one predicated load per pixel
 * (utvm_conv2d_mve_block_rows: no im2col, one vector step more per block than the packed window
 * when the filter has more rows than the packed window has vectors), the others through im2col
 * into the same layout (the padding bytes of the scratch written once per call).
 *
 * Data the generator prepares (ops/conv_mve.py):
 * - w: per block of 4 output channels, per 16 window bytes, 16 bytes of each channel (the window
 *   zero-padded to depth16, a last block of fewer than 4 channels zero-padded; in the row-padded
 *   layout each filter row zero-padded to 16 bytes);
 * - rq: per block of 4 channels 12 int32: the folded bias, the multiplier and the shift (TFLite
 *   QuantizeMultiplier) of each channel (zeros for the padding channels).
 * Scratch (kernel_table.py rule): 2 * depth bytes (the gathered windows of two pixels).
 */
#ifndef UTVM_KERNELS_ARM_MVE_CONV2D_S8_MVE_H_
#define UTVM_KERNELS_ARM_MVE_CONV2D_S8_MVE_H_

#if !defined(__ARM_FEATURE_MVE) || ((__ARM_FEATURE_MVE & 1) == 0)
#error "utvm-build: these kernels were generated for a Helium target (--target cortex-m55/m85/m52) but compiled without MVE; use --target cortex-m33 or generic"
#endif

#include "conv.h"
#include "mve_s8.h"

/* The inline assembly blocks take every even register for the 8 sums and lr among them: GCC
 * at -O1 and above. Unoptimized builds (r7 is the frame pointer, lr is not allocated) and clang
 * take the intrinsics. The in-place window block (utvm_conv2d_mve_block_rows) also needs r7: a
 * build that keeps the frame pointer (-fno-omit-frame-pointer) defines UTVM_FRAME_POINTER (the
 * CMake and SCons integrations do it when they see the flag) and its windows are gathered instead
 * (docs/kernel-guide.md). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__) && !defined(UTVM_NO_INLINE_ASM)
#define UTVM_CONV2D_MVE_ASM 1
#else
#define UTVM_CONV2D_MVE_ASM 0
#endif

typedef struct {
  utvm_conv_geom g;
  int32_t input_zp;      /* input zero point: the value of taps outside the image */
  int32_t output_offset; /* output zero point */
  int32_t act_min;
  int32_t act_max;
  int32_t depth;     /* bytes of a window: filter_h * row_bytes */
  int32_t depth16;   /* depth rounded up to a multiple of 16 */
  int32_t row_bytes; /* bytes of a filter row in a window: filter_w * in_c (packed), or 16 (the
                      * row-padded layout: filter_w * in_c < 16, each row one vector) */
} utvm_conv2d_mve_params;

/* The four sums of one pixel and block (acc) with the block's folded bias, requantized and
 * stored at y (predicated when the block has fewer than 4 channels). */
static UTVM_MVE_INLINE void utvm_conv2d_mve_out(int32x4_t acc, int32x4_t bias, int32x4_t m, int32x4_t sh, int32_t zp,
                                                int32_t lo, int32_t hi, int32_t left, bool shl, int8_t* y) {
  acc = shl ? utvm_mve_rq(vaddq_s32(acc, bias), m, sh, zp, lo, hi)
            : utvm_mve_rq_right(vaddq_s32(acc, bias), m, sh, zp, lo, hi);
  if (left >= 4) {
    vstrbq_s32(y, acc);
  } else {
    vstrbq_p_s32(y, acc, vctp32q((uint32_t)left));
  }
}

#if UTVM_CONV2D_MVE_ASM
/* The assembler of one window step (16 bytes of the two pixels' windows in q0 / q1, the four
 * channels' 16 weight bytes each from pw, 64 bytes on): 4 weight loads and 8 VMLADAV(A) into
 * the 8 sums. OP: "vmladav.s8" (the first step: starts the sums) or "vmladava.s8". The loads of
 * the window vectors come first (UTVM_CONV2D_MVE_LD: whole vectors, pointers on by 16;
 * UTVM_CONV2D_MVE_LD_P: predicated by p0, pointers on by 16 or left, WB ", #16" or ""). Used by
 * every asm block of this file (operands named a0..a3, b0..b3, pa, pb, pw). */
#define UTVM_CONV2D_MVE_LD                   \
  "vldrb.8 q0, [%[pa]], #16\n\t"             \
  "vldrb.8 q1, [%[pb]], #16\n\t"
#define UTVM_CONV2D_MVE_LD_P(WB)             \
  "vpstt\n\t"                                \
  "vldrbt.8 q0, [%[pa]]" WB "\n\t"           \
  "vldrbt.8 q1, [%[pb]]" WB "\n\t"
#define UTVM_CONV2D_MVE_MACS(OP)             \
  "vldrb.8 q2, [%[pw], #16]\n\t"             \
  "vldrb.8 q3, [%[pw]], #32\n\t"             \
  OP " %[a0], q0, q3\n\t"                    \
  OP " %[b0], q1, q3\n\t"                    \
  "vldrb.8 q3, [%[pw]], #16\n\t"             \
  OP " %[a1], q0, q2\n\t"                    \
  OP " %[b1], q1, q2\n\t"                    \
  "vldrb.8 q2, [%[pw]], #16\n\t"             \
  OP " %[a2], q0, q3\n\t"                    \
  OP " %[b2], q1, q3\n\t"                    \
  OP " %[a3], q0, q2\n\t"                    \
  OP " %[b3], q1, q2\n\t"
/* k (a register, >= 0) whole steps (UTVM_CONV2D_MVE_LD then the accumulating step), two per loop
 * iteration (one subtraction and one branch per 32 window bytes: ResNet-8 M55 4.71 M -> 4.56 M
 * estimated cycles, KWS 2.09 M -> 2.07 M); an odd count does
 * one step first. The vector instructions do not touch the flags, so the zero flag of LSRS still
 * says whether pairs are left after the odd step. Local labels 7 and 8 (1 for the loop). */
#define UTVM_CONV2D_MVE_STEPS                \
  "lsrs %[k], %[k], #1\n\t"                  \
  "bcc 7f\n\t"                               \
  UTVM_CONV2D_MVE_LD                         \
  UTVM_CONV2D_MVE_MACS("vmladava.s8")        \
  "7:\n\t"                                   \
  "beq 8f\n\t"                               \
  "1:\n\t"                                   \
  UTVM_CONV2D_MVE_LD                         \
  UTVM_CONV2D_MVE_MACS("vmladava.s8")        \
  UTVM_CONV2D_MVE_LD                         \
  UTVM_CONV2D_MVE_MACS("vmladava.s8")        \
  "subs %[k], %[k], #1\n\t"                  \
  "bne 1b\n\t"                               \
  "8:\n\t"
/* The 8 sums into the two pixels' vectors (two-lane VMOV), and the asm operands of the sums. */
#define UTVM_CONV2D_MVE_SUMS                                  \
  "vmov %q[va][2], %q[va][0], %[a0], %[a2]\n\t"               \
  "vmov %q[va][3], %q[va][1], %[a1], %[a3]\n\t"               \
  "vmov %q[vb][2], %q[vb][0], %[b0], %[b2]\n\t"               \
  "vmov %q[vb][3], %q[vb][1], %[b1], %[b3]\n\t"
#define UTVM_CONV2D_MVE_OUTS                                                                              \
  [a0] "=&Te"(a0), [a1] "=&Te"(a1), [a2] "=&Te"(a2), [a3] "=&Te"(a3), [b0] "=&Te"(b0), [b1] "=&Te"(b1), \
      [b2] "=&Te"(b2), [b3] "=&Te"(b3), [va] "=&w"(va), [vb] "=&w"(vb), [pa] "+r"(pa), [pb] "+r"(pb),    \
      [pw] "+r"(pw), [k] "=&r"(k)
#endif

/* Every output channel of two pixels whose windows (depth bytes each) are at x0 and x1, into y0
 * and y1 (an odd last pixel: x1 = x0, y1 = y0, its bytes written twice, equal). Per 16 window
 * bytes: 2 input and 4 weight vectors, 8 VMLADAVA (128 multiply-accumulates). shl: some channel
 * shifts left (a constant where it is inlined: one copy of the loop each). */
static UTVM_MVE_INLINE void utvm_conv2d_mve_block(const utvm_conv2d_mve_params* p, const int8_t* x0, const int8_t* x1,
                                                  const int8_t* w, const int32_t* rq, int8_t* y0, int8_t* y1,
                                                  const bool shl) {
  const int32_t out_c = p->g.out_c;
  const int32_t zp = p->output_offset;
  const int32_t lo = p->act_min;
  const int32_t hi = p->act_max;
  const int8_t* pw = w;
  const int32_t* pr = rq;
  int32_t c;
#if UTVM_CONV2D_MVE_ASM
  /* the first 1..16 window bytes (predicated: they start the sums, VMLADAV), then the whole
   * vectors, then the last 1..15 bytes (predicated) */
  const int32_t first = utvm_min_i32(p->depth, 16);
  const int32_t steps = (p->depth > 16) ? ((p->depth - 16) >> 4) : 0;
  const int32_t rest = (p->depth > 16) ? ((p->depth - 16) & 15) : 0;
#else
  const int32_t steps = p->depth >> 4;
  const int32_t rest = p->depth & 15;
#endif
  for (c = 0; c < out_c; c += 4) {
    int32x4_t va;
    int32x4_t vb;
    const int8_t* pa = x0;
    const int8_t* pb = x1;
#if UTVM_CONV2D_MVE_ASM
    {
      /* One block in assembler, the sums never leave it: VMLADAVA accumulates into even
       * registers only, and the 8 sums take all of them (r0-r12, lr); in C GCC spilled one in
       * every step and shuffled them around the block (22 instructions per step against 16
       * here, and about 100 per block against 50). "Te": an even register; "p0": the predicate
       * register VCTP sets (predicated loads give 0 in false lanes; the weights are zero-padded);
       * the counts come from memory (no register is left). The four sums of each pixel end in
       * one vector (two-lane VMOV). Predicated loads write their base register back whatever
       * the predicate (the pointers then point past a window shorter than 16 bytes, unused). */
      int32_t a0;
      int32_t a1;
      int32_t a2;
      int32_t a3;
      int32_t b0;
      int32_t b1;
      int32_t b2;
      int32_t b3;
      int32_t k;
      __asm__(
          "ldr %[k], %[first]\n\t"
          "vctp.8 %[k]\n\t"
          UTVM_CONV2D_MVE_LD_P(", #16")
          UTVM_CONV2D_MVE_MACS("vmladav.s8")
          "ldr %[k], %[steps]\n\t"
          UTVM_CONV2D_MVE_STEPS
          "ldr %[k], %[rest]\n\t"
          "cmp %[k], #0\n\t"
          "beq 3f\n\t"
          "vctp.8 %[k]\n\t"
          UTVM_CONV2D_MVE_LD_P("")
          UTVM_CONV2D_MVE_MACS("vmladava.s8")
          "3:\n\t"
          UTVM_CONV2D_MVE_SUMS
          : UTVM_CONV2D_MVE_OUTS
          : [first] "m"(first), [steps] "m"(steps), [rest] "m"(rest)
          : "q0", "q1", "q2", "q3", "p0", "memory", "cc");
    }
#else
    {
      int32_t a0 = 0;
      int32_t a1 = 0;
      int32_t a2 = 0;
      int32_t a3 = 0;
      int32_t b0 = 0;
      int32_t b1 = 0;
      int32_t b2 = 0;
      int32_t b3 = 0;
      int32_t k;
      for (k = 0; k < steps; ++k) {
        const int8x16_t xa = vldrbq_s8(pa);
        const int8x16_t xb = vldrbq_s8(pb);
        int8x16_t wv = vldrbq_s8(pw);
        a0 = vmladavaq_s8(a0, xa, wv);
        b0 = vmladavaq_s8(b0, xb, wv);
        wv = vldrbq_s8(&pw[16]);
        a1 = vmladavaq_s8(a1, xa, wv);
        b1 = vmladavaq_s8(b1, xb, wv);
        wv = vldrbq_s8(&pw[32]);
        a2 = vmladavaq_s8(a2, xa, wv);
        b2 = vmladavaq_s8(b2, xb, wv);
        wv = vldrbq_s8(&pw[48]);
        a3 = vmladavaq_s8(a3, xa, wv);
        b3 = vmladavaq_s8(b3, xb, wv);
        pa = &pa[16];
        pb = &pb[16];
        pw = &pw[64];
      }
      if (rest != 0) {
        /* the last 1..15 bytes: the windows predicated (no read past them), the weights zero-padded */
        const mve_pred16_t pd = vctp8q((uint32_t)rest);
        const int8x16_t xa = vldrbq_z_s8(pa, pd);
        const int8x16_t xb = vldrbq_z_s8(pb, pd);
        int8x16_t wv = vldrbq_s8(pw);
        a0 = vmladavaq_s8(a0, xa, wv);
        b0 = vmladavaq_s8(b0, xb, wv);
        wv = vldrbq_s8(&pw[16]);
        a1 = vmladavaq_s8(a1, xa, wv);
        b1 = vmladavaq_s8(b1, xb, wv);
        wv = vldrbq_s8(&pw[32]);
        a2 = vmladavaq_s8(a2, xa, wv);
        b2 = vmladavaq_s8(b2, xb, wv);
        wv = vldrbq_s8(&pw[48]);
        a3 = vmladavaq_s8(a3, xa, wv);
        b3 = vmladavaq_s8(b3, xb, wv);
        pw = &pw[64];
      }
      va = vsetq_lane_s32(a3, vsetq_lane_s32(a2, vsetq_lane_s32(a1, vdupq_n_s32(a0), 1), 2), 3);
      vb = vsetq_lane_s32(b3, vsetq_lane_s32(b2, vsetq_lane_s32(b1, vdupq_n_s32(b0), 1), 2), 3);
    }
#endif
    {
      const int32x4_t bias = vldrwq_s32(pr);
      const int32x4_t m = vldrwq_s32(&pr[4]);
      const int32x4_t sh = vldrwq_s32(&pr[8]);
      utvm_conv2d_mve_out(va, bias, m, sh, zp, lo, hi, out_c - c, shl, &y0[c]);
      utvm_conv2d_mve_out(vb, bias, m, sh, zp, lo, hi, out_c - c, shl, &y1[c]);
      pr = &pr[12];
    }
  }
}

static UTVM_MVE_HOT void utvm_conv2d_mve_pixels(const utvm_conv2d_mve_params* p, const int8_t* x0, const int8_t* x1,
                                                const int8_t* w, const int32_t* rq, int8_t* y0, int8_t* y1, bool shl) {
  if (shl) {
    utvm_conv2d_mve_block(p, x0, x1, w, rq, y0, y1, true);
  } else {
    utvm_conv2d_mve_block(p, x0, x1, w, rq, y0, y1, false);
  }
}

#if UTVM_CONV2D_MVE_ASM && !defined(UTVM_FRAME_POINTER)
/* Windows read in place (GCC): both pixels' windows inside the image and dilation_w 1; x0 / x1
 * point at the top left taps in the input; no im2col. The same block as utvm_conv2d_mve_block
 * (the weights are in window order, row after row), with a loop over the filter rows around the
 * vector steps. Two forms (one: a constant where it is inlined):
 * - filter rows of whole vectors (filter_w * in_c a multiple of 16, one false): the steps of a
 *   row, then the step to the next row (the row count in a register, the step counts and the
 *   step to the next row from memory);
 * - the row-padded layout (one true): every filter row is one predicated vector of
 *   filter_w * in_c < 16 bytes (VCTP once per block: nothing past the row is read), the weights
 *   16 bytes per row and channel (zero past the row). */
static UTVM_MVE_INLINE void utvm_conv2d_mve_block_rows(const utvm_conv2d_mve_params* p, const int8_t* x0,
                                                       const int8_t* x1, const int8_t* w, const int32_t* rq,
                                                       int8_t* y0, int8_t* y1, const bool shl, const bool one) {
  const int32_t out_c = p->g.out_c;
  const int32_t zp = p->output_offset;
  const int32_t lo = p->act_min;
  const int32_t hi = p->act_max;
  const int32_t seg = p->g.filter_w * p->g.in_c;
  const int32_t segv = seg >> 4; /* vectors per filter row (whole rows: >= 1) */
  const int32_t steps0 = segv;
  const int32_t steps1 = segv - 1; /* the first row: its first vector starts the sums */
  const int32_t row = p->g.dilation_h * p->g.in_w * p->g.in_c;
  const int32_t adv = row - (segv * 16);
  const int8_t* pw = w;
  const int32_t* pr = rq;
  int32_t c;
  for (c = 0; c < out_c; c += 4) {
    int32x4_t va;
    int32x4_t vb;
    const int8_t* pa = x0;
    const int8_t* pb = x1;
    int32_t rl = one ? (p->g.filter_h - 1) : p->g.filter_h; /* one: the rows after the first */
    int32_t a0;
    int32_t a1;
    int32_t a2;
    int32_t a3;
    int32_t b0;
    int32_t b1;
    int32_t b2;
    int32_t b3;
    int32_t k;
    if (one) {
      __asm__(
          "ldr %[k], %[seg]\n\t"
          "vctp.8 %[k]\n\t"
          "ldr %[k], %[row]\n\t"
          UTVM_CONV2D_MVE_LD_P("")
          "add %[pa], %[pa], %[k]\n\t"
          "add %[pb], %[pb], %[k]\n\t"
          UTVM_CONV2D_MVE_MACS("vmladav.s8")
          "cmp %[rl], #0\n\t"
          "beq 2f\n\t"
          "1:\n\t"
          UTVM_CONV2D_MVE_LD_P("")
          "add %[pa], %[pa], %[k]\n\t"
          "add %[pb], %[pb], %[k]\n\t"
          UTVM_CONV2D_MVE_MACS("vmladava.s8")
          "subs %[rl], %[rl], #1\n\t"
          "bne 1b\n\t"
          "2:\n\t"
          UTVM_CONV2D_MVE_SUMS
          : UTVM_CONV2D_MVE_OUTS, [rl] "+r"(rl)
          : [seg] "m"(seg), [row] "m"(row)
          : "q0", "q1", "q2", "q3", "p0", "memory", "cc");
    } else {
      __asm__(
          UTVM_CONV2D_MVE_LD
          UTVM_CONV2D_MVE_MACS("vmladav.s8")
          "ldr %[k], %[steps1]\n\t"
          "b 5f\n\t"
          "4:\n\t"
          "ldr %[k], %[adv]\n\t"
          "add %[pa], %[pa], %[k]\n\t"
          "add %[pb], %[pb], %[k]\n\t"
          "ldr %[k], %[steps0]\n\t"
          "5:\n\t"
          UTVM_CONV2D_MVE_STEPS
          "subs %[rl], %[rl], #1\n\t"
          "bne 4b\n\t"
          UTVM_CONV2D_MVE_SUMS
          : UTVM_CONV2D_MVE_OUTS, [rl] "+r"(rl)
          : [steps0] "m"(steps0), [steps1] "m"(steps1), [adv] "m"(adv)
          : "q0", "q1", "q2", "q3", "memory", "cc");
    }
    {
      const int32x4_t bias = vldrwq_s32(pr);
      const int32x4_t m = vldrwq_s32(&pr[4]);
      const int32x4_t sh = vldrwq_s32(&pr[8]);
      utvm_conv2d_mve_out(va, bias, m, sh, zp, lo, hi, out_c - c, shl, &y0[c]);
      utvm_conv2d_mve_out(vb, bias, m, sh, zp, lo, hi, out_c - c, shl, &y1[c]);
      pr = &pr[12];
    }
  }
}

/* The pixel pair of utvm_conv2d_mve_block_rows: one copy per form and left shift. */
static UTVM_MVE_HOT void utvm_conv2d_mve_pixels_rows(const utvm_conv2d_mve_params* p, const int8_t* x0,
                                                     const int8_t* x1, const int8_t* w, const int32_t* rq, int8_t* y0,
                                                     int8_t* y1, bool shl, bool one) {
  if (one && shl) {
    utvm_conv2d_mve_block_rows(p, x0, x1, w, rq, y0, y1, true, true);
  } else if (one) {
    utvm_conv2d_mve_block_rows(p, x0, x1, w, rq, y0, y1, false, true);
  } else if (shl) {
    utvm_conv2d_mve_block_rows(p, x0, x1, w, rq, y0, y1, true, false);
  } else {
    utvm_conv2d_mve_block_rows(p, x0, x1, w, rq, y0, y1, false, false);
  }
}
#define UTVM_CONV2D_MVE_ROWS 1
#else
#define UTVM_CONV2D_MVE_ROWS 0
#endif

/* The window of the output pixel whose top left tap is (iy0, ix0) in image in_b, into col. */
static UTVM_MVE_HOT void utvm_conv2d_mve_window(const utvm_conv2d_mve_params* p, const int8_t* in_b, int32_t iy0,
                                                     int32_t ix0, int8_t* col) {
  const utvm_conv_geom* g = &p->g;
  const int32_t in_c = g->in_c;
  const int32_t seg = g->filter_w * in_c;
  const int8_t zp = (int8_t)p->input_zp;
  /* dilation_w 1: the filter columns kx0..kx1-1 are inside the image, one run of bytes per row */
  const int32_t kx0 = utvm_min_i32(utvm_max_i32(-ix0, 0), g->filter_w);
  const int32_t kx1 = utvm_max_i32(utvm_min_i32(g->in_w - ix0, g->filter_w), kx0);
  int32_t o = 0; /* an offset into col: no pointer past it is formed */
  int32_t ky;
  int32_t kx;
  if ((g->dilation_w == 1) && (seg <= 16)) {
    /* rows of at most one vector: per row one predicated store of the zero point (unless the
     * row is all inside) and one predicated copy of the inside run, no loop (KWS's 10x4 x 1
     * first layer: about 780 -> 420 instructions per window with the call, measured) */
    const int8x16_t zv = vdupq_n_s8(zp);
    const mve_pred16_t ps = vctp8q((uint32_t)seg);
    const int32_t n = (kx1 - kx0) * in_c;
    const mve_pred16_t pn = vctp8q((uint32_t)n);
    for (ky = 0; ky < g->filter_h; ++ky) {
      const int32_t iy = iy0 + (ky * g->dilation_h);
      const bool in = (iy >= 0) && (iy < g->in_h);
      if (!in || (n != seg)) {
        vstrbq_p_s8(&col[o], zv, ps);
      }
      if (in && (n > 0)) {
        vstrbq_p_s8(&col[o + (kx0 * in_c)], vldrbq_z_s8(&in_b[((iy * g->in_w) + ix0 + kx0) * in_c], pn), pn);
      }
      o += p->row_bytes;
    }
    return;
  }
  for (ky = 0; ky < g->filter_h; ++ky) {
    const int32_t iy = iy0 + (ky * g->dilation_h);
    if ((iy < 0) || (iy >= g->in_h)) {
      utvm_mve_fill(&col[o], zp, seg);
    } else if (g->dilation_w == 1) {
      /* zero point, the inside run, zero point (each possibly empty; a window column by column
       * took a copy call per tap: KWS's 10x4 x 1 first layer, 4 per row) */
      utvm_mve_fill(&col[o], zp, kx0 * in_c);
      if (kx1 > kx0) {
        utvm_mve_copy(&col[o + (kx0 * in_c)], &in_b[((iy * g->in_w) + ix0 + kx0) * in_c], (kx1 - kx0) * in_c);
      }
      utvm_mve_fill(&col[o + (kx1 * in_c)], zp, seg - (kx1 * in_c));
    } else {
      for (kx = 0; kx < g->filter_w; ++kx) {
        const int32_t ix = ix0 + (kx * g->dilation_w);
        if ((ix >= 0) && (ix < g->in_w)) {
          utvm_mve_copy(&col[o + (kx * in_c)], &in_b[((iy * g->in_w) + ix) * in_c], in_c);
        } else {
          utvm_mve_fill(&col[o + (kx * in_c)], zp, in_c);
        }
      }
    }
    o += p->row_bytes;
  }
}

/* The window of output pixel i (batch, row, column from i): the input pixel itself for a 1x1
 * filter inside the image, else gathered into col. */
static UTVM_MVE_INLINE const int8_t* utvm_conv2d_mve_at(const utvm_conv2d_mve_params* p, const int8_t* in, int32_t i,
                                                        int8_t* col) {
  const utvm_conv_geom* g = &p->g;
  const int32_t per_image = g->out_h * g->out_w;
  const int32_t b = i / per_image;
  const int32_t r = i - (b * per_image);
  const int32_t oy = r / g->out_w;
  const int32_t iy0 = (oy * g->stride_h) - g->pad_h;
  const int32_t ix0 = ((r - (oy * g->out_w)) * g->stride_w) - g->pad_w;
  const int8_t* const in_b = &in[b * g->in_h * g->in_w * g->in_c];
  const int8_t* x = col;
  if ((g->filter_h == 1) && (g->filter_w == 1) && utvm_conv_inside(g, iy0, ix0)) {
    x = &in_b[((iy0 * g->in_w) + ix0) * g->in_c];
  } else {
    utvm_conv2d_mve_window(p, in_b, iy0, ix0, col);
  }
  return x;
}

/* The top left tap of output pixel i's window in the input when the whole window is inside the
 * image, else NULL. */
static UTVM_MVE_INLINE const int8_t* utvm_conv2d_mve_in_place(const utvm_conv2d_mve_params* p, const int8_t* in,
                                                              int32_t i) {
  const utvm_conv_geom* g = &p->g;
  const int32_t per_image = g->out_h * g->out_w;
  const int32_t b = i / per_image;
  const int32_t r = i - (b * per_image);
  const int32_t oy = r / g->out_w;
  const int32_t iy0 = (oy * g->stride_h) - g->pad_h;
  const int32_t ix0 = ((r - (oy * g->out_w)) * g->stride_w) - g->pad_w;
  const int8_t* x = NULL;
  if ((iy0 >= 0) && ((iy0 + ((g->filter_h - 1) * g->dilation_h)) < g->in_h) && (ix0 >= 0) &&
      ((ix0 + ((g->filter_w - 1) * g->dilation_w)) < g->in_w)) {
    x = &in[(((b * g->in_h) + iy0) * g->in_w + ix0) * g->in_c];
  }
  return x;
}

/* rq: 12 int32 per block of 4 output channels (above); scratch: 2 * depth bytes (any alignment). */
static void utvm_conv2d_s8_mve(const utvm_conv2d_mve_params* p, const int8_t* in, const int8_t* w,
                               const int32_t* rq, void* scratch, int8_t* out) {
  const utvm_conv_geom* g = &p->g;
  int8_t* const col = (int8_t*)scratch;
  const int32_t total = g->batches * g->out_h * g->out_w;
  /* windows read in place where both are inside the image (filter rows of whole vectors) */
  const bool row_pad = p->row_bytes != (g->filter_w * g->in_c); /* the row-padded layout */
  const bool rows = (UTVM_CONV2D_MVE_ROWS != 0) && (g->dilation_w == 1) &&
                    ((((g->filter_w * g->in_c) & 15) == 0) || row_pad) && ((g->filter_h > 1) || (g->filter_w > 1));
  bool shl = false;
  int32_t pix;
  if (row_pad) {
    /* the padding bytes of both windows (never written by the gathering below): defined values,
     * multiplied by zero weights */
    utvm_mve_fill(col, (int8_t)p->input_zp, 2 * p->depth);
  }
  /* any left shift: the shifts of each block are rq[12 b + 8 .. 12 b + 11] (padding channels 0) */
  for (pix = 0; pix < ((g->out_c + 3) >> 2); ++pix) {
    shl = shl || utvm_mve_any_left(&rq[(pix * 12) + 8], 4, 1);
  }
#if UTVM_CONV2D_MVE_ROWS
  if (rows) {
    for (pix = 0; pix < total; pix += 2) {
      const int32_t pix1 = utvm_min_i32(pix + 1, total - 1); /* an odd last pixel: twice */
      const int8_t* x0 = utvm_conv2d_mve_in_place(p, in, pix);
      const int8_t* x1 = utvm_conv2d_mve_in_place(p, in, pix1);
      if ((x0 != NULL) && (x1 != NULL)) {
        utvm_conv2d_mve_pixels_rows(p, x0, x1, w, rq, &out[pix * g->out_c], &out[pix1 * g->out_c], shl, row_pad);
      } else {
        x0 = utvm_conv2d_mve_at(p, in, pix, col);
        x1 = utvm_conv2d_mve_at(p, in, pix1, &col[p->depth]);
        utvm_conv2d_mve_pixels(p, x0, x1, w, rq, &out[pix * g->out_c], &out[pix1 * g->out_c], shl);
      }
    }
    return;
  }
#else
  (void)rows;
#endif
  for (pix = 0; pix < total; pix += 2) {
    const int32_t pix1 = utvm_min_i32(pix + 1, total - 1); /* an odd last pixel: twice */
    const int8_t* const x0 = utvm_conv2d_mve_at(p, in, pix, col);
    const int8_t* const x1 = utvm_conv2d_mve_at(p, in, pix1, &col[p->depth]);
    utvm_conv2d_mve_pixels(p, x0, x1, w, rq, &out[pix * g->out_c], &out[pix1 * g->out_c], shl);
  }
}

#endif /* UTVM_KERNELS_ARM_MVE_CONV2D_S8_MVE_H_ */
