/* utvm-build kernels, DSP extension: int8 dot-product blocks (CONV_2D, FULLY_CONNECTED); replaces
 * kernels/dot_s8.h (same functions, same arguments, same results).
 *
 * Four bytes of each operand per step: one LDR, SXTB16 of the even and of the odd bytes (two
 * int16 lanes each), and SMLAD multiply-accumulates both lanes into one int32 sum. An input offset
 * (utvm_dot_s8_4x1's off, the border pixels of conv2d_s8.h) is added to both lanes by SXTAB16
 * instead (|x + off| <= 255 fits int16). The sums are plain int32 sums in another order, so the
 * results equal the generic kernel's exactly. Tails (n not a multiple of 4) take the generic
 * step.
 */
#ifndef UTVM_KERNELS_DOT_S8_H_
#define UTVM_KERNELS_DOT_S8_H_

#if !defined(__ARM_FEATURE_DSP) || (__ARM_FEATURE_DSP != 1)
#error "utvm-build: these kernels were generated for a DSP target (--target cortex-m4/m7/m33/m55) but compiled without the DSP extension; use --target generic"
#endif

#include "dsp_s8.h"

#define UTVM_DOT_S8_NOINLINE UTVM_DSP_NOINLINE

/* acc0[0] += w0.x0, acc0[1] += w1.x0, acc1[0] += w0.x1, acc1[1] += w1.x1 over n >= 1 bytes.
 * Per 4 bytes: the two input words extended once (4 registers), each weight word loaded twice
 * and extended in place (even, then odd): 4 accumulators, 4 pointers and the end pointer leave
 * 5 registers for values, so nothing is spilled in the loop. */
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
  const int8_t* const end4 = &w0[n & ~3];
  const int8_t* const end = &w0[n];
  if (pw0 != end4) {
    do {
      int32_t xa = utvm_dsp_ld4(px0);
      int32_t xb = utvm_dsp_ld4(px1);
      const int32_t xa_e = utvm_dsp_even(xa);
      const int32_t xb_e = utvm_dsp_even(xb);
      int32_t v;
      xa = utvm_dsp_odd(xa);
      xb = utvm_dsp_odd(xb);
      v = utvm_dsp_even(utvm_dsp_ld4(pw0));
      a00 = __smlad(v, xa_e, a00);
      a10 = __smlad(v, xb_e, a10);
      v = utvm_dsp_odd(utvm_dsp_ld4(pw0));
      a00 = __smlad(v, xa, a00);
      a10 = __smlad(v, xb, a10);
      v = utvm_dsp_even(utvm_dsp_ld4(pw1));
      a01 = __smlad(v, xa_e, a01);
      a11 = __smlad(v, xb_e, a11);
      v = utvm_dsp_odd(utvm_dsp_ld4(pw1));
      a01 = __smlad(v, xa, a01);
      a11 = __smlad(v, xb, a11);
      pw0 = &pw0[4];
      pw1 = &pw1[4];
      px0 = &px0[4];
      px1 = &px1[4];
    } while (pw0 != end4);
  }
  while (pw0 != end) {
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
  }
  acc0[0] = a00;
  acc0[1] = a01;
  acc1[0] = a10;
  acc1[1] = a11;
}

/* Four weight rows w, w + ws, w + 2 ws, w + 3 ws (ws: row stride, 0 for four copies of one row)
 * times x + off, over n >= 1 bytes: acc01[0..1] += rows 0..1, acc23[0..1] += rows 2..3. */
static UTVM_DOT_S8_NOINLINE void utvm_dot_s8_4x1(const int8_t* w, int32_t ws, const int8_t* x,
                                                 int32_t off, int32_t n, int32_t* acc01,
                                                 int32_t* acc23) {
  int32_t a0 = acc01[0];
  int32_t a1 = acc01[1];
  int32_t a2 = acc23[0];
  int32_t a3 = acc23[1];
  const uint32_t off16 = (uint32_t)off & 0xFFFFu;
  const int32_t offs = (int32_t)((off16 << 16u) | off16); /* off in both int16 lanes */
  const int8_t* pw0 = w;
  const int8_t* pw1 = &pw0[ws];
  const int8_t* pw2 = &pw1[ws];
  const int8_t* pw3 = &pw2[ws];
  const int8_t* px = x;
  const int8_t* const end4 = &x[n & ~3];
  const int8_t* const end = &x[n];
  if (px != end4) {
    do {
      const int32_t xv = utvm_dsp_ld4(px);
      /* off is 0 for FULLY_CONNECTED, a constant where GCC specializes the function for it: plain
       * SXTB16 then, and one register less in the loop (no spill at -Os; the autoencoder -3 %,
       * ResNet-8's border pixels +1 %) */
      const int32_t x_e = (off == 0) ? utvm_dsp_even(xv) : __sxtab16(offs, xv);
      const int32_t x_o = (off == 0) ? utvm_dsp_odd(xv) : utvm_dsp_odd_add(offs, xv);
      int32_t v = utvm_dsp_ld4(pw0);
      a0 = __smlad(utvm_dsp_even(v), x_e, a0);
      a0 = __smlad(utvm_dsp_odd(v), x_o, a0);
      v = utvm_dsp_ld4(pw1);
      a1 = __smlad(utvm_dsp_even(v), x_e, a1);
      a1 = __smlad(utvm_dsp_odd(v), x_o, a1);
      v = utvm_dsp_ld4(pw2);
      a2 = __smlad(utvm_dsp_even(v), x_e, a2);
      a2 = __smlad(utvm_dsp_odd(v), x_o, a2);
      v = utvm_dsp_ld4(pw3);
      a3 = __smlad(utvm_dsp_even(v), x_e, a3);
      a3 = __smlad(utvm_dsp_odd(v), x_o, a3);
      px = &px[4];
      pw0 = &pw0[4];
      pw1 = &pw1[4];
      pw2 = &pw2[4];
      pw3 = &pw3[4];
    } while (px != end4);
  }
  while (px != end) {
    const int32_t xa = (int32_t)*px + off;
    a0 += (int32_t)*pw0 * xa;
    a1 += (int32_t)*pw1 * xa;
    a2 += (int32_t)*pw2 * xa;
    a3 += (int32_t)*pw3 * xa;
    px = &px[1];
    pw0 = &pw0[1];
    pw1 = &pw1[1];
    pw2 = &pw2[1];
    pw3 = &pw3[1];
  }
  acc01[0] = a0;
  acc01[1] = a1;
  acc23[0] = a2;
  acc23[1] = a3;
}

#endif /* UTVM_KERNELS_DOT_S8_H_ */
