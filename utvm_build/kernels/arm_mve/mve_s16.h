/* utvm-build kernels, Helium (MVE): the helpers shared by the int16 (16x8: int16 activations, int8
 * weights) MVE kernels of this folder (conv2d_s16.h, depthwise_conv2d_s16.h,
 * fully_connected_s16.h, fully_connected_s16_pc.h).
 *
 * - utvm_mve_dot4_s16: four int64 dot products of one int16 run with four int8 weight rows, 8
 *   MACs per VMLALDAVA (the weights sign-extended by VLDRB.S16), the last 1..7 elements
 *   predicated (nothing past the runs is read); exact like TFLite's int64 accumulator.
 * - utvm_mve_rq64: TFLite's int64 MultiplyByQuantizedMultiplier (the 16x8 requantization:
 *   reduced multiplier rm = (m + 2^15) >> 16, at most 0x7FFF, total shift ts = 15 - shift,
 *   (x * rm + 2^(ts-1)) >> ts) on 4 int32 lanes, for shifts -17..-1 (ts 16..32): one VRMULH by
 *   b = rm * 2^(32 - ts) (< 2^31), whose (x * b + 2^31) >> 32 is that value exactly (the
 *   product x * rm * 2^(32 - ts) is exact in VRMULH's 64 bits). utvm_mve_rq64_fits says
 *   whether a layer's shifts allow it.
 */
#ifndef UTVM_KERNELS_ARM_MVE_MVE_S16_H_
#define UTVM_KERNELS_ARM_MVE_MVE_S16_H_

#if !defined(__ARM_FEATURE_MVE) || ((__ARM_FEATURE_MVE & 1) == 0)
#error "utvm-build: these kernels were generated for a Helium target (--target cortex-m55/m85/m52) but compiled without MVE; use --target cortex-m33 or generic"
#endif

#include "mve_s8.h"

/* a[k] += sum over i < n of x[i] * wk[i], k = 0..3 (w0..w3: four rows, n elements each). */
static UTVM_MVE_INLINE void utvm_mve_dot4_s16(const int16_t* x, const int8_t* w0, const int8_t* w1,
                                              const int8_t* w2, const int8_t* w3, int32_t n, int64_t* a) {
  int64_t a0 = a[0];
  int64_t a1 = a[1];
  int64_t a2 = a[2];
  int64_t a3 = a[3];
  int32_t k = 0;
  while ((k + 8) <= n) {
    const int16x8_t xv = vldrhq_s16(&x[k]);
    a0 = vmlaldavaq_s16(a0, xv, vldrbq_s16(&w0[k]));
    a1 = vmlaldavaq_s16(a1, xv, vldrbq_s16(&w1[k]));
    a2 = vmlaldavaq_s16(a2, xv, vldrbq_s16(&w2[k]));
    a3 = vmlaldavaq_s16(a3, xv, vldrbq_s16(&w3[k]));
    k += 8;
  }
  if (k < n) {
    const mve_pred16_t pd = vctp16q((uint32_t)(n - k));
    const int16x8_t xv = vldrhq_z_s16(&x[k], pd);
    a0 = vmlaldavaq_s16(a0, xv, vldrbq_z_s16(&w0[k], pd));
    a1 = vmlaldavaq_s16(a1, xv, vldrbq_z_s16(&w1[k], pd));
    a2 = vmlaldavaq_s16(a2, xv, vldrbq_z_s16(&w2[k], pd));
    a3 = vmlaldavaq_s16(a3, xv, vldrbq_z_s16(&w3[k], pd));
  }
  a[0] = a0;
  a[1] = a1;
  a[2] = a2;
  a[3] = a3;
}

/* One row: sum over i < n of x[i] * w[i] added to a. */
static UTVM_MVE_INLINE int64_t utvm_mve_dot_s16(const int16_t* x, const int8_t* w, int32_t n, int64_t a) {
  int64_t acc = a;
  int32_t k = 0;
  while ((k + 8) <= n) {
    acc = vmlaldavaq_s16(acc, vldrhq_s16(&x[k]), vldrbq_s16(&w[k]));
    k += 8;
  }
  if (k < n) {
    const mve_pred16_t pd = vctp16q((uint32_t)(n - k));
    acc = vmlaldavaq_s16(acc, vldrhq_z_s16(&x[k], pd), vldrbq_z_s16(&w[k], pd));
  }
  return acc;
}

/* The first and one past the last filter index k (of n) whose input coordinate o + k * d lies in
 * [0, size): the taps inside the image along one axis (an empty range when none is). */
static inline void utvm_mve_taps(int32_t o, int32_t d, int32_t n, int32_t size, int32_t* k0, int32_t* k1) {
  int32_t a = 0;
  int32_t b = n;
  while ((a < n) && ((o + (a * d)) < 0)) {
    ++a;
  }
  while ((b > a) && ((o + ((b - 1) * d)) >= size)) {
    --b;
  }
  *k0 = a;
  *k1 = b;
}

/* Whether every one of the n shifts is in -17..-1 (utvm_mve_rq64 applies). */
static inline bool utvm_mve_rq64_fits(const int32_t* shift, int32_t n) {
  int32_t i;
  for (i = 0; i < n; ++i) {
    if ((shift[i] < -17) || (shift[i] > -1)) {
      return false;
    }
  }
  return true;
}

/* The VRMULH operand b = rm * 2^(17 + shift) of 4 channels (multipliers m >= 0, shifts -17..-1):
 * rm = min((m + 2^15) >> 16, 0x7FFF) (the saturating add keeps m near 2^31 at 0x7FFF, as the
 * reference's m >= 0x7FFF0000 case). */
static UTVM_MVE_INLINE int32x4_t utvm_mve_rq64_mult(int32x4_t m, int32x4_t shift) {
  const int32x4_t rm = vminq_s32(vshrq_n_s32(vqaddq_n_s32(m, 1 << 15), 16), vdupq_n_s32(0x7FFF));
  return vshlq_s32(rm, vaddq_n_s32(shift, 17));
}

/* (x * rm + 2^(ts-1)) >> ts per lane (b from utvm_mve_rq64_mult), clamped to [lo, hi]. */
static UTVM_MVE_INLINE int32x4_t utvm_mve_rq64(int32x4_t x, int32x4_t b, int32_t lo, int32_t hi) {
  const int32x4_t v = vrmulhq_s32(x, b);
  return vminq_s32(vmaxq_s32(v, vdupq_n_s32(lo)), vdupq_n_s32(hi));
}

#endif /* UTVM_KERNELS_ARM_MVE_MVE_S16_H_ */
