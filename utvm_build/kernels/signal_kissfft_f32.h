/* utvm-build kernels: KISS FFT v130's complex FFT in float, as TFLM's signal library builds it
 * (SignalRfft and SignalIrfft, float32: signal_rfft_f32.h, signal_irfft_f32.h).
 *
 * Every float operation in the reference's order (no scaling between stages; HALF_OF is a multiply
 * by 0.5f, TFLM's patch of KISS FFT), so a build without fused multiply-adds gives the reference's
 * bits. The stages are the loop of signal_kissfft_s16.h (inputs first in kf_work's leaf order,
 * deepest stage first). Twiddles (float)cos(phase) with the phase in double, as kf_cexp, come from
 * the compiler. Radixes 2, 3, 4, 5. */
#ifndef UTVM_KERNELS_SIGNAL_KISSFFT_F32_H_
#define UTVM_KERNELS_SIGNAL_KISSFFT_F32_H_

#include "signal_fft_params.h"

typedef struct {
  float r;
  float i;
} utvm_sfftf_c;

UTVM_SIGNAL_COMPLEX_LOAD_STORE(utvm_sfftf_c, float, utvm_sfftf_load, utvm_sfftf_store)

static inline utvm_sfftf_c utvm_sfftf_cadd(utvm_sfftf_c a, utvm_sfftf_c b) {
  utvm_sfftf_c c;
  c.r = a.r + b.r;
  c.i = a.i + b.i;
  return c;
}

static inline utvm_sfftf_c utvm_sfftf_csub(utvm_sfftf_c a, utvm_sfftf_c b) {
  utvm_sfftf_c c;
  c.r = a.r - b.r;
  c.i = a.i - b.i;
  return c;
}

/* C_MUL */
static inline utvm_sfftf_c utvm_sfftf_cmul(utvm_sfftf_c a, utvm_sfftf_c b) {
  utvm_sfftf_c m;
  const float rr = a.r * b.r;
  const float ii = a.i * b.i;
  const float ri = a.r * b.i;
  const float ir = a.i * b.r;
  m.r = rr - ii;
  m.i = ri + ir;
  return m;
}

static UTVM_SIGNAL_NOINLINE void utvm_sfftf_bfly2(float* f, const float* tw, int32_t fstride, int32_t m) {
  int32_t k;
  for (k = 0; k < m; ++k) {
    const utvm_sfftf_c a = utvm_sfftf_load(f, k);
    const utvm_sfftf_c t = utvm_sfftf_cmul(utvm_sfftf_load(f, k + m), utvm_sfftf_load(tw, k * fstride));
    utvm_sfftf_store(f, k + m, utvm_sfftf_csub(a, t));
    utvm_sfftf_store(f, k, utvm_sfftf_cadd(a, t));
  }
}

static UTVM_SIGNAL_NOINLINE void utvm_sfftf_bfly3(float* f, const float* tw, int32_t fstride, int32_t m) {
  int32_t k;
  const utvm_sfftf_c epi3 = utvm_sfftf_load(tw, fstride * m);
  for (k = 0; k < m; ++k) {
    const utvm_sfftf_c f0 = utvm_sfftf_load(f, k);
    const utvm_sfftf_c s1 = utvm_sfftf_cmul(utvm_sfftf_load(f, k + m), utvm_sfftf_load(tw, k * fstride));
    const utvm_sfftf_c s2 = utvm_sfftf_cmul(utvm_sfftf_load(f, k + (2 * m)), utvm_sfftf_load(tw, 2 * k * fstride));
    const utvm_sfftf_c s3 = utvm_sfftf_cadd(s1, s2);
    utvm_sfftf_c s0 = utvm_sfftf_csub(s1, s2);
    utvm_sfftf_c f1;
    utvm_sfftf_c out;
    const float hr = s3.r * 0.5f;
    const float hi = s3.i * 0.5f;
    f1.r = f0.r - hr;
    f1.i = f0.i - hi;
    s0.r = s0.r * epi3.i;
    s0.i = s0.i * epi3.i;
    utvm_sfftf_store(f, k, utvm_sfftf_cadd(f0, s3));
    out.r = f1.r + s0.i;
    out.i = f1.i - s0.r;
    utvm_sfftf_store(f, k + (2 * m), out);
    out.r = f1.r - s0.i;
    out.i = f1.i + s0.r;
    utvm_sfftf_store(f, k + m, out);
  }
}

static UTVM_SIGNAL_NOINLINE void utvm_sfftf_bfly4(float* f, const float* tw, int32_t fstride, int32_t m, int32_t inverse) {
  int32_t k;
  for (k = 0; k < m; ++k) {
    const utvm_sfftf_c f0 = utvm_sfftf_load(f, k);
    const utvm_sfftf_c s0 = utvm_sfftf_cmul(utvm_sfftf_load(f, k + m), utvm_sfftf_load(tw, k * fstride));
    const utvm_sfftf_c s1 = utvm_sfftf_cmul(utvm_sfftf_load(f, k + (2 * m)), utvm_sfftf_load(tw, 2 * k * fstride));
    const utvm_sfftf_c s2 = utvm_sfftf_cmul(utvm_sfftf_load(f, k + (3 * m)), utvm_sfftf_load(tw, 3 * k * fstride));
    const utvm_sfftf_c s5 = utvm_sfftf_csub(f0, s1);
    const utvm_sfftf_c f1 = utvm_sfftf_cadd(f0, s1);
    const utvm_sfftf_c s3 = utvm_sfftf_cadd(s0, s2);
    const utvm_sfftf_c s4 = utvm_sfftf_csub(s0, s2);
    utvm_sfftf_c a;
    utvm_sfftf_c b;
    utvm_sfftf_store(f, k + (2 * m), utvm_sfftf_csub(f1, s3));
    utvm_sfftf_store(f, k, utvm_sfftf_cadd(f1, s3));
    if (inverse != 0) {
      a.r = s5.r - s4.i;
      a.i = s5.i + s4.r;
      b.r = s5.r + s4.i;
      b.i = s5.i - s4.r;
    } else {
      a.r = s5.r + s4.i;
      a.i = s5.i - s4.r;
      b.r = s5.r - s4.i;
      b.i = s5.i + s4.r;
    }
    utvm_sfftf_store(f, k + m, a);
    utvm_sfftf_store(f, k + (3 * m), b);
  }
}

/* (a + b * x) + c * y, each operation rounded to float */
static inline float utvm_sfftf_mac2(float a, float b, float x, float c, float y) {
  const float bx = b * x;
  const float cy = c * y;
  const float s = a + bx;
  return s + cy;
}

static UTVM_SIGNAL_NOINLINE void utvm_sfftf_bfly5(float* f, const float* tw, int32_t fstride, int32_t m) {
  int32_t u;
  const utvm_sfftf_c ya = utvm_sfftf_load(tw, fstride * m);
  const utvm_sfftf_c yb = utvm_sfftf_load(tw, 2 * fstride * m);
  for (u = 0; u < m; ++u) {
    utvm_sfftf_c s[13];
    int32_t q;
    float x;
    float y;
    s[0] = utvm_sfftf_load(f, u);
    for (q = 1; q < 5; ++q) {
      s[q] = utvm_sfftf_cmul(utvm_sfftf_load(f, u + (q * m)), utvm_sfftf_load(tw, q * u * fstride));
    }
    s[7] = utvm_sfftf_cadd(s[1], s[4]);
    s[10] = utvm_sfftf_csub(s[1], s[4]);
    s[8] = utvm_sfftf_cadd(s[2], s[3]);
    s[9] = utvm_sfftf_csub(s[2], s[3]);
    utvm_sfftf_store(f, u, utvm_sfftf_cadd(s[0], utvm_sfftf_cadd(s[7], s[8])));
    s[5].r = utvm_sfftf_mac2(s[0].r, s[7].r, ya.r, s[8].r, yb.r);
    s[5].i = utvm_sfftf_mac2(s[0].i, s[7].i, ya.r, s[8].i, yb.r);
    x = s[10].i * ya.i;
    y = s[9].i * yb.i;
    s[6].r = x + y;
    x = s[10].r * ya.i;
    y = s[9].r * yb.i;
    s[6].i = (-x) - y;
    utvm_sfftf_store(f, u + m, utvm_sfftf_csub(s[5], s[6]));
    utvm_sfftf_store(f, u + (4 * m), utvm_sfftf_cadd(s[5], s[6]));
    s[11].r = utvm_sfftf_mac2(s[0].r, s[7].r, yb.r, s[8].r, ya.r);
    s[11].i = utvm_sfftf_mac2(s[0].i, s[7].i, yb.r, s[8].i, ya.r);
    x = s[10].i * yb.i;
    y = s[9].i * ya.i;
    s[12].r = (-x) + y;
    x = s[10].r * yb.i;
    y = s[9].r * ya.i;
    s[12].i = x - y;
    utvm_sfftf_store(f, u + (2 * m), utvm_sfftf_cadd(s[11], s[12]));
    utvm_sfftf_store(f, u + (3 * m), utvm_sfftf_csub(s[11], s[12]));
  }
}

/* The complex FFT of fft_length / 2 points in place: `work` holds the inputs in kf_work's leaf
 * order; every stage's butterflies, deepest first. */
UTVM_SIGNAL_FFT_STAGES_FUNCTION(utvm_sfftf_stages, float, utvm_sfftf_bfly2, utvm_sfftf_bfly3,
                                utvm_sfftf_bfly4, utvm_sfftf_bfly5)

#endif /* UTVM_KERNELS_SIGNAL_KISSFFT_F32_H_ */
