/* utvm-build kernels, Helium (MVE): the helpers shared by the int16 (16x8: int16 activations, int8
 * weights) MVE kernels of this folder (conv2d_s16.h, depthwise_conv2d_s16.h,
 * fully_connected_s16.h, fully_connected_s16_pc.h).
 *
 * - utvm_mve_dot4_s16: four dot products of one int16 run with four int8 weight rows added to
 *   int64 sums, 8 MACs per VMLADAVA (the weights sign-extended by VLDRB.S16) into int32 sums of at
 *   most 504 elements each (exact: below 2^31), then added to the int64 ones; the last 1..7
 *   elements predicated (nothing past the runs is read); exact like TFLite's int64 accumulator
 *   (int32 accumulators leave 5 general registers for the pointers and the counter: with four
 *   int64 VMLALDAVA sums GCC spilled in the loop);
 * - utvm_mve_dot_s16: the same for one row (VMLALDAVA);
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

/* The elements a run's int32 sums take before they are added to the int64 ones: a product is at
 * most 2^22 in magnitude (-32768 * -128), 504 of them (a multiple of 8) stay below 2^31. */
#define UTVM_MVE_S16_CHUNK 504

/* s[k] += xv . (a, b, c, d)[k]: one VMLADAVA per row. */
static UTVM_MVE_INLINE void utvm_mve_mac4_s16(int32_t* s, int16x8_t xv, int16x8_t a, int16x8_t b, int16x8_t c,
                                              int16x8_t d) {
  s[0] = vmladavaq_s16(s[0], xv, a);
  s[1] = vmladavaq_s16(s[1], xv, b);
  s[2] = vmladavaq_s16(s[2], xv, c);
  s[3] = vmladavaq_s16(s[3], xv, d);
}

/* The 4 sums over i < n of x[i] * wk[i] (n <= 504: exact in int32), k = 0..3 (w0..w3: four rows,
 * n elements each), as one vector. */
static UTVM_MVE_INLINE int32x4_t utvm_mve_dot4_s16_i32(const int16_t* x, const int8_t* w0, const int8_t* w1,
                                                       const int8_t* w2, const int8_t* w3, int32_t n) {
  int32_t s[4] = {0, 0, 0, 0};
  int32_t k = 0;
  while ((k + 8) <= n) {
    utvm_mve_mac4_s16(s, vldrhq_s16(&x[k]), vldrbq_s16(&w0[k]), vldrbq_s16(&w1[k]), vldrbq_s16(&w2[k]),
                      vldrbq_s16(&w3[k]));
    k += 8;
  }
  if (k < n) { /* the last 1..7 elements */
    const mve_pred16_t pd = vctp16q((uint32_t)(n - k));
    utvm_mve_mac4_s16(s, vldrhq_z_s16(&x[k], pd), vldrbq_z_s16(&w0[k], pd), vldrbq_z_s16(&w1[k], pd),
                      vldrbq_z_s16(&w2[k], pd), vldrbq_z_s16(&w3[k], pd));
  }
  return vsetq_lane_s32(s[3], vsetq_lane_s32(s[2], vsetq_lane_s32(s[1], vdupq_n_s32(s[0]), 1), 2), 3);
}

/* a[k] += sum over i < n of x[i] * wk[i], k = 0..3, any n: int32 sums of 504 elements at a time. */
static UTVM_MVE_INLINE void utvm_mve_dot4_s16(const int16_t* x, const int8_t* w0, const int8_t* w1,
                                              const int8_t* w2, const int8_t* w3, int32_t n, int64_t* a) {
  int32_t k;
  for (k = 0; k < n; k += UTVM_MVE_S16_CHUNK) {
    const int32x4_t s = utvm_mve_dot4_s16_i32(&x[k], &w0[k], &w1[k], &w2[k], &w3[k],
                                              utvm_min_i32(n - k, UTVM_MVE_S16_CHUNK));
    a[0] += vgetq_lane_s32(s, 0);
    a[1] += vgetq_lane_s32(s, 1);
    a[2] += vgetq_lane_s32(s, 2);
    a[3] += vgetq_lane_s32(s, 3);
  }
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

/* Whether each of the n biases (NULL: none) lies within +-bound. */
static inline bool utvm_mve_s16_bias_fits(const int64_t* bias, int32_t n, int64_t bound) {
  int32_t i;
  if (bias != NULL) {
    for (i = 0; i < n; ++i) {
      if ((bias[i] < -bound) || (bias[i] > bound)) {
        return false;
      }
    }
  }
  return true;
}

/* Whether a layer's sums of at most `elems` products (elems <= 504: int32, exact) can be
 * requantized on vectors (utvm_mve_s16_out4): an int32-bias layer always (the reference's int32
 * sum and MultiplyByQuantizedMultiplier: mve_s8.h utvm_mve_rq), an int64 one when every shift is
 * in -17..-1 and every bias within 2^31 - 1 - elems * 2^22 (sum plus bias fit int32). */
static inline bool utvm_mve_s16_vec_rq(bool acc32, const int64_t* bias, const int32_t* shift, int32_t channels,
                                       int32_t elems) {
  const int64_t bound = (int64_t)INT32_MAX - ((int64_t)elems << 22);
  if (acc32) {
    return true;
  }
  return utvm_mve_rq64_fits(shift, channels) && utvm_mve_s16_bias_fits(bias, channels, bound);
}

/* The 4 sums s of channels oc..oc+3 (left of them real, 1..4) to int16 at y (their multipliers and
 * shifts from oc on, or with step 0 mult[0] and shift[0] for all): plus the bias (NULL:
 * none; the low words of the int64 biases: within int32, checked by utvm_mve_s16_vec_rq), requantized
 * (acc32: the int32 MultiplyByQuantizedMultiplier, else the int64 one), clamped to [lo, hi]. */
static UTVM_MVE_INLINE void utvm_mve_s16_out4(int32x4_t s, bool acc32, const int64_t* bias, const int32_t* mult,
                                              const int32_t* shift, int32_t step, int32_t oc, int32_t left,
                                              int32_t lo, int32_t hi, int16_t* y) {
  const mve_pred16_t pu = vctp32q((uint32_t)left);
  const int32x4_t m = (step == 0) ? vdupq_n_s32(mult[0]) : vldrwq_z_s32(&mult[oc], pu);
  const int32x4_t sh = (step == 0) ? vdupq_n_s32(shift[0]) : vldrwq_z_s32(&shift[oc], pu);
  int32x4_t v = s;
  int32x4_t r;
  if (bias != NULL) {
    /* little-endian int64: word 2i is the low word of bias[oc + i] */
    const uint32x4_t lows = vmulq_n_u32(vidupq_n_u32(0, 1), 2);
    v = vaddq_s32(v, vldrwq_gather_shifted_offset_z_s32((const int32_t*)&bias[oc], lows, pu));
  }
  if (acc32) {
    r = utvm_mve_rq(v, m, sh, 0, lo, hi);
  } else {
    r = utvm_mve_rq64(v, utvm_mve_rq64_mult(m, sh), lo, hi);
  }
  vstrhq_p_s32(y, r, pu);
}

#endif /* UTVM_KERNELS_ARM_MVE_MVE_S16_H_ */
