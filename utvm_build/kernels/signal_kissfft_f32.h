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

/* The stage's input: KISS FFT's float build does not scale between stages. */
static inline utvm_sfftf_c utvm_sfftf_in(utvm_sfftf_c c, int32_t radix) {
  (void)radix;
  return c;
}

/* The real operations the butterflies are written with (UTVM_SIGNAL_FFT_BUTTERFLIES), each one
 * float operation; HALF_OF is a multiply by 0.5f (TFLM's patch). */
static inline float utvm_sfftf_add(float a, float b) { return a + b; }

static inline float utvm_sfftf_sub(float a, float b) { return a - b; }

static inline float utvm_sfftf_neg(float a) { return -a; }

static inline float utvm_sfftf_mul(float a, float b) { return a * b; }

static inline float utvm_sfftf_half(float a) { return a * 0.5f; }

/* (a + b * x) + c * y, each operation rounded to float */
static inline float utvm_sfftf_mac2(float a, float b, float x, float c, float y) {
  const float bx = b * x;
  const float cy = c * y;
  const float s = a + bx;
  return s + cy;
}

UTVM_SIGNAL_FFT_BUTTERFLIES(utvm_sfftf_c, float, utvm_sfftf_bfly2, utvm_sfftf_bfly3, utvm_sfftf_bfly4,
                            utvm_sfftf_bfly5, utvm_sfftf_in, utvm_sfftf_load, utvm_sfftf_store, utvm_sfftf_cmul,
                            utvm_sfftf_cadd, utvm_sfftf_csub, utvm_sfftf_add, utvm_sfftf_sub, utvm_sfftf_neg,
                            utvm_sfftf_mul, utvm_sfftf_half, utvm_sfftf_mac2)

/* The complex FFT of fft_length / 2 points in place: `work` holds the inputs in kf_work's leaf
 * order; every stage's butterflies, deepest first. */
UTVM_SIGNAL_FFT_STAGES_FUNCTION(utvm_sfftf_stages, float, utvm_sfftf_bfly2, utvm_sfftf_bfly3,
                                utvm_sfftf_bfly4, utvm_sfftf_bfly5)

#endif /* UTVM_KERNELS_SIGNAL_KISSFFT_F32_H_ */
