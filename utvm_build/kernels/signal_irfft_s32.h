/* utvm-build kernels: TFLM SignalIrfft, int32 (signal/src/irfft_int32.cc: KISS FFT v130 built with
 * FIXED_POINT 32, kiss_fftri: the spectrum folded into a complex spectrum of half the length, then
 * the inverse complex FFT of signal_kissfft_s32.h). Every stage divides by its radix (C_FIXDIV),
 * so the result is the inverse transform divided by fft_length, as the reference's. The complex
 * FFT runs in the output frame (kiss_fft's output is the time data); no scratch. */
#ifndef UTVM_KERNELS_SIGNAL_IRFFT_S32_H_
#define UTVM_KERNELS_SIGNAL_IRFFT_S32_H_

#include "signal_kissfft_s32.h"

/* bin 0, then bins k and nc - k folded into the complex spectrum, in leaf order (kiss_fftri) */
static inline void utvm_sfft32_irfft_fold(const int32_t* x, const int32_t* super_twiddles, int32_t* out, const uint16_t* position,
                                          int32_t nc) {
  int32_t k;
  utvm_sfft32_c c;
  c.r = utvm_sfft32_add(x[0], x[2 * nc]);
  c.i = utvm_sfft32_sub(x[0], x[2 * nc]);
  utvm_sfft32_store(out, (int32_t)position[0], utvm_sfft32_fixdiv(c, 2));
  for (k = 1; k <= (nc / 2); ++k) {
    const utvm_sfft32_c fk = utvm_sfft32_fixdiv(utvm_sfft32_load(x, k), 2);
    utvm_sfft32_c fnkc = utvm_sfft32_load(x, nc - k);
    utvm_sfft32_c fek;
    utvm_sfft32_c fok;
    fnkc.i = utvm_sfft32_sub(0, fnkc.i);
    fnkc = utvm_sfft32_fixdiv(fnkc, 2);
    fek = utvm_sfft32_cadd(fk, fnkc);
    fok = utvm_sfft32_cmul(utvm_sfft32_csub(fk, fnkc), utvm_sfft32_load(super_twiddles, k - 1));
    utvm_sfft32_store(out, (int32_t)position[k], utvm_sfft32_cadd(fek, fok));
    c = utvm_sfft32_csub(fek, fok);
    c.i = utvm_sfft32_sub(0, c.i);
    utvm_sfft32_store(out, (int32_t)position[nc - k], c);
  }
}

UTVM_SIGNAL_IRFFT_KERNEL(utvm_signal_irfft_s32, int32_t, utvm_sfft32_irfft_fold, utvm_sfft32_stages)

#endif /* UTVM_KERNELS_SIGNAL_IRFFT_S32_H_ */
