/* utvm-build kernels: int8 dot-product blocks (CONV_2D, FULLY_CONNECTED).
 *
 * The innermost loops of the int8 matrix-like kernels, register-blocked so that every loaded
 * byte feeds two or four multiply-accumulates: two weight rows times two input vectors, or four
 * weight rows times one input vector, over n >= 1 contiguous bytes.
 *
 * Portable C99, written for what GCC makes of it at -Os and -O2 on Cortex-M (one post-incremented
 * load per operand and a multiply-accumulate per product, no spill in the loop): the loop is a
 * do-while on an end pointer, and each weight is loaded just before its products so that few
 * values are live. A target may replace this file with faster versions of the same functions:
 * the accumulators are plain int32 sums, so any order of the additions gives the same result
 * (no caller accumulates enough products to overflow int32).
 */
#ifndef UTVM_KERNELS_DOT_S8_H_
#define UTVM_KERNELS_DOT_S8_H_

#include "common.h"

/* Kept out of line: inlined into a caller with its own loop state, the accumulators and pointers
 * no longer fit the registers of a Cortex-M and the inner loop spills to the stack. */
#if defined(__GNUC__) || defined(__clang__)
#define UTVM_DOT_S8_NOINLINE __attribute__((noinline))
#else
#define UTVM_DOT_S8_NOINLINE
#endif

/* acc0[0] += w0.x0, acc0[1] += w1.x0, acc1[0] += w0.x1, acc1[1] += w1.x1 over n >= 1 bytes.
 * (Two accumulator pairs rather than one array of four: a vectorizer that sees four adjacent
 * lanes shuffles them through the stack in every iteration.) */
static UTVM_DOT_S8_NOINLINE void utvm_dot_s8_2x2(const int8_t* w0, const int8_t* w1, const int8_t* x0,
                                                 const int8_t* x1, int32_t n, int32_t* acc0,
                                                 int32_t* acc1) {
  int32_t a00 = acc0[0];
  int32_t a01 = acc0[1];
  int32_t a10 = acc1[0];
  int32_t a11 = acc1[1];
  const int8_t* pw0 = w0;
  const int8_t* pw1 = w1;
  const int8_t* px0 = x0;
  const int8_t* px1 = x1;
  const int8_t* const end = &w0[n];
  do {
    const int32_t xa = (int32_t)*px0;
    const int32_t xb = (int32_t)*px1;
    int32_t v = (int32_t)*pw0;
    a00 += v * xa;
    a10 += v * xb;
    v = (int32_t)*pw1;
    a01 += v * xa;
    a11 += v * xb;
    pw0 = &pw0[1];
    pw1 = &pw1[1];
    px0 = &px0[1];
    px1 = &px1[1];
  } while (pw0 != end);
  acc0[0] = a00;
  acc0[1] = a01;
  acc1[0] = a10;
  acc1[1] = a11;
}

/* Four weight rows w, w + ws, w + 2 ws, w + 3 ws (ws: row stride, 0 for four copies of one row)
 * times x + off (off: an input offset, or 0), over n >= 1 bytes:
 * acc01[0..1] += rows 0..1, acc23[0..1] += rows 2..3. */
static UTVM_DOT_S8_NOINLINE void utvm_dot_s8_4x1(const int8_t* w, int32_t ws, const int8_t* x,
                                                 int32_t off, int32_t n, int32_t* acc01,
                                                 int32_t* acc23) {
  int32_t a0 = acc01[0];
  int32_t a1 = acc01[1];
  int32_t a2 = acc23[0];
  int32_t a3 = acc23[1];
  const int8_t* pw0 = w;
  const int8_t* pw1 = &pw0[ws];
  const int8_t* pw2 = &pw1[ws];
  const int8_t* pw3 = &pw2[ws];
  const int8_t* px = x;
  const int8_t* const end = &x[n];
  do {
    const int32_t xa = (int32_t)*px + off;
    px = &px[1];
    a0 += (int32_t)*pw0 * xa;
    pw0 = &pw0[1];
    a1 += (int32_t)*pw1 * xa;
    pw1 = &pw1[1];
    a2 += (int32_t)*pw2 * xa;
    pw2 = &pw2[1];
    a3 += (int32_t)*pw3 * xa;
    pw3 = &pw3[1];
  } while (px != end);
  acc01[0] = a0;
  acc01[1] = a1;
  acc23[0] = a2;
  acc23[1] = a3;
}

#endif /* UTVM_KERNELS_DOT_S8_H_ */
