/* utvm-build kernels: KISS FFT v130's complex FFT built with FIXED_POINT 16, as TFLM's signal
 * library uses it (SignalRfft and SignalIrfft, int16: signal_rfft_s16.h, signal_irfft_s16.h).
 *
 * The arithmetic is KISS FFT's, step by step: products in int32, rounded as (x + 2^14) >> 15
 * (sround), every stage's inputs divided by the radix as sround(x * (32767 / radix)), sums formed in
 * int and stored to int16 as two's complement (the reference's stores), HALF_OF as an arithmetic
 * shift of the int sum. The recursion of kf_work becomes a loop: the caller first puts the inputs in
 * the order kf_work's leaves copy them (a table made at compile time), then every stage's
 * butterflies run on their blocks, the deepest stage first (blocks of one stage are disjoint, so the
 * order of the blocks does not change a bit). Twiddles (floor(0.5 + 32767 cos), as kf_cexp) come
 * from the compiler. Radixes 2, 3, 4 and 5 only (TFLM's build has no memory for the generic
 * butterfly). */
#ifndef UTVM_KERNELS_SIGNAL_KISSFFT_S16_H_
#define UTVM_KERNELS_SIGNAL_KISSFFT_S16_H_

#include "signal_common.h"
#include "signal_fft_params.h"

typedef struct {
  int32_t r;
  int32_t i;
} utvm_sfft_c;

/* sround: (x + 2^14) >> 15 narrowed to int16 (|x| < 2^31 - 2^14 for every caller) */
static inline int32_t utvm_sfft_round(int32_t x) { return (int32_t)utvm_signal_wrap16(utvm_signal_asr(x + 16384, 15u)); }

static inline int32_t utvm_sfft_smul(int32_t a, int32_t b) { return utvm_sfft_round(a * b); }

static inline utvm_sfft_c utvm_sfft_load(const int16_t* f, int32_t k) {
  utvm_sfft_c c;
  c.r = (int32_t)f[2 * k];
  c.i = (int32_t)f[(2 * k) + 1];
  return c;
}

static inline void utvm_sfft_store(int16_t* f, int32_t k, int32_t r, int32_t i) {
  f[2 * k] = utvm_signal_wrap16(r);
  f[(2 * k) + 1] = utvm_signal_wrap16(i);
}

/* C_FIXDIV in place: both parts times 32767 / radix, rounded */
static inline void utvm_sfft_fixdiv(int16_t* f, int32_t k, int32_t radix) {
  const int32_t d = 32767 / radix;
  const utvm_sfft_c c = utvm_sfft_load(f, k);
  utvm_sfft_store(f, k, utvm_sfft_smul(c.r, d), utvm_sfft_smul(c.i, d));
}

static inline utvm_sfft_c utvm_sfft_cmul(utvm_sfft_c a, utvm_sfft_c b) {
  utvm_sfft_c m;
  m.r = utvm_sfft_round((a.r * b.r) - (a.i * b.i));
  m.i = utvm_sfft_round((a.r * b.i) + (a.i * b.r));
  return m;
}

static inline utvm_sfft_c utvm_sfft_narrow(int32_t r, int32_t i) {
  utvm_sfft_c c;
  c.r = (int32_t)utvm_signal_wrap16(r);
  c.i = (int32_t)utvm_signal_wrap16(i);
  return c;
}

static UTVM_SIGNAL_NOINLINE void utvm_sfft_bfly2(int16_t* f, const int16_t* tw, int32_t fstride, int32_t m) {
  int32_t k;
  for (k = 0; k < m; ++k) {
    utvm_sfft_c a;
    utvm_sfft_c t;
    utvm_sfft_fixdiv(f, k, 2);
    utvm_sfft_fixdiv(f, k + m, 2);
    t = utvm_sfft_cmul(utvm_sfft_load(f, k + m), utvm_sfft_load(tw, k * fstride));
    a = utvm_sfft_load(f, k);
    utvm_sfft_store(f, k + m, a.r - t.r, a.i - t.i);
    utvm_sfft_store(f, k, a.r + t.r, a.i + t.i);
  }
}

static UTVM_SIGNAL_NOINLINE void utvm_sfft_bfly3(int16_t* f, const int16_t* tw, int32_t fstride, int32_t m) {
  int32_t k;
  const utvm_sfft_c epi3 = utvm_sfft_load(tw, fstride * m);
  for (k = 0; k < m; ++k) {
    utvm_sfft_c s0;
    utvm_sfft_c s1;
    utvm_sfft_c s2;
    utvm_sfft_c s3;
    utvm_sfft_c f0;
    utvm_sfft_c f1;
    utvm_sfft_fixdiv(f, k, 3);
    utvm_sfft_fixdiv(f, k + m, 3);
    utvm_sfft_fixdiv(f, k + (2 * m), 3);
    s1 = utvm_sfft_cmul(utvm_sfft_load(f, k + m), utvm_sfft_load(tw, k * fstride));
    s2 = utvm_sfft_cmul(utvm_sfft_load(f, k + (2 * m)), utvm_sfft_load(tw, 2 * k * fstride));
    s3 = utvm_sfft_narrow(s1.r + s2.r, s1.i + s2.i);
    s0 = utvm_sfft_narrow(s1.r - s2.r, s1.i - s2.i);
    f0 = utvm_sfft_load(f, k);
    f1 = utvm_sfft_narrow(f0.r - utvm_signal_asr(s3.r, 1u), f0.i - utvm_signal_asr(s3.i, 1u));
    s0.r = utvm_sfft_smul(s0.r, epi3.i);
    s0.i = utvm_sfft_smul(s0.i, epi3.i);
    utvm_sfft_store(f, k, f0.r + s3.r, f0.i + s3.i);
    utvm_sfft_store(f, k + (2 * m), f1.r + s0.i, f1.i - s0.r);
    utvm_sfft_store(f, k + m, f1.r - s0.i, f1.i + s0.r);
  }
}

static UTVM_SIGNAL_NOINLINE void utvm_sfft_bfly4(int16_t* f, const int16_t* tw, int32_t fstride, int32_t m, int32_t inverse) {
  int32_t k;
  for (k = 0; k < m; ++k) {
    utvm_sfft_c s0;
    utvm_sfft_c s1;
    utvm_sfft_c s2;
    utvm_sfft_c s3;
    utvm_sfft_c s4;
    utvm_sfft_c s5;
    utvm_sfft_c f0;
    utvm_sfft_fixdiv(f, k, 4);
    utvm_sfft_fixdiv(f, k + m, 4);
    utvm_sfft_fixdiv(f, k + (2 * m), 4);
    utvm_sfft_fixdiv(f, k + (3 * m), 4);
    s0 = utvm_sfft_cmul(utvm_sfft_load(f, k + m), utvm_sfft_load(tw, k * fstride));
    s1 = utvm_sfft_cmul(utvm_sfft_load(f, k + (2 * m)), utvm_sfft_load(tw, 2 * k * fstride));
    s2 = utvm_sfft_cmul(utvm_sfft_load(f, k + (3 * m)), utvm_sfft_load(tw, 3 * k * fstride));
    f0 = utvm_sfft_load(f, k);
    s5 = utvm_sfft_narrow(f0.r - s1.r, f0.i - s1.i);
    f0 = utvm_sfft_narrow(f0.r + s1.r, f0.i + s1.i);
    s3 = utvm_sfft_narrow(s0.r + s2.r, s0.i + s2.i);
    s4 = utvm_sfft_narrow(s0.r - s2.r, s0.i - s2.i);
    utvm_sfft_store(f, k + (2 * m), f0.r - s3.r, f0.i - s3.i);
    utvm_sfft_store(f, k, f0.r + s3.r, f0.i + s3.i);
    if (inverse != 0) {
      utvm_sfft_store(f, k + m, s5.r - s4.i, s5.i + s4.r);
      utvm_sfft_store(f, k + (3 * m), s5.r + s4.i, s5.i - s4.r);
    } else {
      utvm_sfft_store(f, k + m, s5.r + s4.i, s5.i - s4.r);
      utvm_sfft_store(f, k + (3 * m), s5.r - s4.i, s5.i + s4.r);
    }
  }
}

static UTVM_SIGNAL_NOINLINE void utvm_sfft_bfly5(int16_t* f, const int16_t* tw, int32_t fstride, int32_t m) {
  int32_t u;
  const utvm_sfft_c ya = utvm_sfft_load(tw, fstride * m);
  const utvm_sfft_c yb = utvm_sfft_load(tw, 2 * fstride * m);
  for (u = 0; u < m; ++u) {
    utvm_sfft_c s[13];
    int32_t q;
    for (q = 0; q < 5; ++q) {
      utvm_sfft_fixdiv(f, u + (q * m), 5);
    }
    s[0] = utvm_sfft_load(f, u);
    for (q = 1; q < 5; ++q) {
      s[q] = utvm_sfft_cmul(utvm_sfft_load(f, u + (q * m)), utvm_sfft_load(tw, q * u * fstride));
    }
    s[7] = utvm_sfft_narrow(s[1].r + s[4].r, s[1].i + s[4].i);
    s[10] = utvm_sfft_narrow(s[1].r - s[4].r, s[1].i - s[4].i);
    s[8] = utvm_sfft_narrow(s[2].r + s[3].r, s[2].i + s[3].i);
    s[9] = utvm_sfft_narrow(s[2].r - s[3].r, s[2].i - s[3].i);
    utvm_sfft_store(f, u, s[0].r + (s[7].r + s[8].r), s[0].i + (s[7].i + s[8].i));
    s[5] = utvm_sfft_narrow(s[0].r + utvm_sfft_smul(s[7].r, ya.r) + utvm_sfft_smul(s[8].r, yb.r),
                            s[0].i + utvm_sfft_smul(s[7].i, ya.r) + utvm_sfft_smul(s[8].i, yb.r));
    s[6] = utvm_sfft_narrow(utvm_sfft_smul(s[10].i, ya.i) + utvm_sfft_smul(s[9].i, yb.i),
                            (-utvm_sfft_smul(s[10].r, ya.i)) - utvm_sfft_smul(s[9].r, yb.i));
    utvm_sfft_store(f, u + m, s[5].r - s[6].r, s[5].i - s[6].i);
    utvm_sfft_store(f, u + (4 * m), s[5].r + s[6].r, s[5].i + s[6].i);
    s[11] = utvm_sfft_narrow(s[0].r + utvm_sfft_smul(s[7].r, yb.r) + utvm_sfft_smul(s[8].r, ya.r),
                             s[0].i + utvm_sfft_smul(s[7].i, yb.r) + utvm_sfft_smul(s[8].i, ya.r));
    s[12] = utvm_sfft_narrow((-utvm_sfft_smul(s[10].i, yb.i)) + utvm_sfft_smul(s[9].i, ya.i),
                             utvm_sfft_smul(s[10].r, yb.i) - utvm_sfft_smul(s[9].r, ya.i));
    utvm_sfft_store(f, u + (2 * m), s[11].r + s[12].r, s[11].i + s[12].i);
    utvm_sfft_store(f, u + (3 * m), s[11].r - s[12].r, s[11].i - s[12].i);
  }
}

/* The complex FFT of n_c = fft_length / 2 points: `work` (2 n_c int16) already holds the inputs
 * in kf_work's leaf order; every stage's butterflies, deepest first. */
UTVM_SIGNAL_FFT_STAGES_FUNCTION(utvm_sfft_stages, int16_t, utvm_sfft_bfly2, utvm_sfft_bfly3,
                                utvm_sfft_bfly4, utvm_sfft_bfly5)

#endif /* UTVM_KERNELS_SIGNAL_KISSFFT_S16_H_ */
