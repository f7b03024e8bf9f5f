/* utvm-build kernels: KISS FFT v130's complex FFT built with FIXED_POINT 32, as TFLM's signal
 * library uses it (SignalRfft and SignalIrfft, int32: signal_rfft_s32.h, signal_irfft_s32.h).
 *
 * KISS FFT's arithmetic step by step: products in int64, rounded as (x + 2^30) >> 31 (sround) and
 * stored to int32; every stage's inputs divided by the radix as sround(x * (2147483647 / radix));
 * sums of int32 values as int32, which wrap modulo 2^32 in the reference (done here on uint32_t,
 * where wrapping is defined); HALF_OF an arithmetic shift of the wrapped int32 sum. The stages are
 * the loop of signal_kissfft_s16.h (inputs first in kf_work's leaf order, deepest stage first).
 * Twiddles floor(0.5 + 2147483647 cos(phase)), as kf_cexp, come from the compiler. Radixes 2, 3, 4,
 * 5. */
#ifndef UTVM_KERNELS_SIGNAL_KISSFFT_S32_H_
#define UTVM_KERNELS_SIGNAL_KISSFFT_S32_H_

#include "signal_common.h"
#include "signal_fft_params.h"

typedef struct {
  int32_t r;
  int32_t i;
} utvm_sfft32_c;

/* int32 sum and difference modulo 2^32 (the reference's int32 arithmetic as it runs) */
static inline int32_t utvm_sfft32_add(int32_t a, int32_t b) {
  const uint32_t s = (uint32_t)a + (uint32_t)b;
  return (int32_t)s;
}

static inline int32_t utvm_sfft32_sub(int32_t a, int32_t b) {
  const uint32_t s = (uint32_t)a - (uint32_t)b;
  return (int32_t)s;
}

/* sround: (x + 2^30) >> 31 stored to int32; |x| < 2^63 - 2^30 for every caller. The stored low 32
 * bits of the arithmetic shift are bits 31..62 of the sum, which the shift of its uint64_t value
 * gives too (no signed shift needed). */
static inline int32_t utvm_sfft32_round(int64_t x) {
  const uint64_t sum = (uint64_t)(x + INT64_C(1073741824));
  const uint32_t low = (uint32_t)(sum >> 31u);
  return (int32_t)low;
}

/* S_MUL */
static inline int32_t utvm_sfft32_smul(int32_t a, int32_t b) { return utvm_sfft32_round((int64_t)a * (int64_t)b); }

/* HALF_OF */
static inline int32_t utvm_sfft32_half(int32_t x) { return utvm_signal_asr(x, 1u); }

UTVM_SIGNAL_COMPLEX_LOAD_STORE(utvm_sfft32_c, int32_t, utvm_sfft32_load, utvm_sfft32_store)

static inline utvm_sfft32_c utvm_sfft32_cadd(utvm_sfft32_c a, utvm_sfft32_c b) {
  utvm_sfft32_c c;
  c.r = utvm_sfft32_add(a.r, b.r);
  c.i = utvm_sfft32_add(a.i, b.i);
  return c;
}

static inline utvm_sfft32_c utvm_sfft32_csub(utvm_sfft32_c a, utvm_sfft32_c b) {
  utvm_sfft32_c c;
  c.r = utvm_sfft32_sub(a.r, b.r);
  c.i = utvm_sfft32_sub(a.i, b.i);
  return c;
}

/* C_MUL: both products of a part in int64, their sum rounded once */
static inline utvm_sfft32_c utvm_sfft32_cmul(utvm_sfft32_c a, utvm_sfft32_c b) {
  utvm_sfft32_c m;
  m.r = utvm_sfft32_round(((int64_t)a.r * (int64_t)b.r) - ((int64_t)a.i * (int64_t)b.i));
  m.i = utvm_sfft32_round(((int64_t)a.r * (int64_t)b.i) + ((int64_t)a.i * (int64_t)b.r));
  return m;
}

/* C_FIXDIV: both parts times 2147483647 / radix, rounded (the butterflies' IN: every stage's inputs) */
static inline utvm_sfft32_c utvm_sfft32_fixdiv(utvm_sfft32_c c, int32_t radix) {
  const int32_t d = INT32_MAX / radix;
  utvm_sfft32_c q;
  q.r = utvm_sfft32_smul(c.r, d);
  q.i = utvm_sfft32_smul(c.i, d);
  return q;
}

/* negation modulo 2^32 */
static inline int32_t utvm_sfft32_neg(int32_t a) { return utvm_sfft32_sub(0, a); }

/* a + S_MUL(b, x) + S_MUL(c, y), modulo 2^32 */
static inline int32_t utvm_sfft32_mac2(int32_t a, int32_t b, int32_t x, int32_t c, int32_t y) {
  return utvm_sfft32_add(utvm_sfft32_add(a, utvm_sfft32_smul(b, x)), utvm_sfft32_smul(c, y));
}

UTVM_SIGNAL_FFT_BUTTERFLIES(utvm_sfft32_c, int32_t, utvm_sfft32_bfly2, utvm_sfft32_bfly3, utvm_sfft32_bfly4,
                            utvm_sfft32_bfly5, utvm_sfft32_fixdiv, utvm_sfft32_load, utvm_sfft32_store,
                            utvm_sfft32_cmul, utvm_sfft32_cadd, utvm_sfft32_csub, utvm_sfft32_add, utvm_sfft32_sub,
                            utvm_sfft32_neg, utvm_sfft32_smul, utvm_sfft32_half, utvm_sfft32_mac2)

/* The complex FFT of fft_length / 2 points in place: `work` holds the inputs in kf_work's leaf
 * order; every stage's butterflies, deepest first. */
UTVM_SIGNAL_FFT_STAGES_FUNCTION(utvm_sfft32_stages, int32_t, utvm_sfft32_bfly2, utvm_sfft32_bfly3,
                                utvm_sfft32_bfly4, utvm_sfft32_bfly5)

#endif /* UTVM_KERNELS_SIGNAL_KISSFFT_S32_H_ */
