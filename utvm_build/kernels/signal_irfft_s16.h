/* utvm-build kernels: TFLM SignalIrfft, int16 (signal/src/irfft_int16.cc: KISS FFT v130 built with
 * FIXED_POINT 16, kiss_fftri: the spectrum folded into a complex spectrum of half the length, then
 * the inverse complex FFT of signal_kissfft_s16.h). Every stage divides by its radix (C_FIXDIV),
 * so the result is the inverse transform divided by fft_length, as the reference's. The complex
 * FFT runs in the output frame (kiss_fft's output is the time data); no scratch. */
#ifndef UTVM_KERNELS_SIGNAL_IRFFT_S16_H_
#define UTVM_KERNELS_SIGNAL_IRFFT_S16_H_

#include "signal_kissfft_s16.h"

/* bin 0, then bins k and nc - k folded into the complex spectrum, in leaf order (kiss_fftri) */
static inline void utvm_sfft_irfft_fold(const int16_t* x, const int16_t* super_twiddles, int16_t* out, const uint16_t* position,
                                        int32_t nc) {
  const int32_t pos0 = (int32_t)position[0];
  int32_t k;
  /* tmpbuf[0] = (x0 + xn, x0 - xn) stored to int16, then C_FIXDIV by 2 */
  utvm_sfft_store(out, pos0, (int32_t)x[0] + (int32_t)x[2 * nc], (int32_t)x[0] - (int32_t)x[2 * nc]);
  utvm_sfft_fixdiv(out, pos0, 2);
  for (k = 1; k <= (nc / 2); ++k) {
    const int32_t d = 32767 / 2;
    utvm_sfft_c fk = utvm_sfft_load(x, k);
    utvm_sfft_c fnkc = utvm_sfft_load(x, nc - k);
    utvm_sfft_c fek;
    utvm_sfft_c fok;
    fnkc.i = (int32_t)utvm_signal_wrap16(-fnkc.i);
    fk = utvm_sfft_narrow(utvm_sfft_smul(fk.r, d), utvm_sfft_smul(fk.i, d));
    fnkc = utvm_sfft_narrow(utvm_sfft_smul(fnkc.r, d), utvm_sfft_smul(fnkc.i, d));
    fek = utvm_sfft_narrow(fk.r + fnkc.r, fk.i + fnkc.i);
    fok = utvm_sfft_cmul(utvm_sfft_narrow(fk.r - fnkc.r, fk.i - fnkc.i), utvm_sfft_load(super_twiddles, k - 1));
    utvm_sfft_store(out, (int32_t)position[k], fek.r + fok.r, fek.i + fok.i);
    /* tmpbuf[nc - k] = fek - fok stored to int16, then its imaginary part times -1 */
    utvm_sfft_store(out, (int32_t)position[nc - k], fek.r - fok.r, -(int32_t)utvm_signal_wrap16(fek.i - fok.i));
  }
}

UTVM_SIGNAL_IRFFT_KERNEL(utvm_signal_irfft_s16, int16_t, utvm_sfft_irfft_fold, utvm_sfft_stages)

#endif /* UTVM_KERNELS_SIGNAL_IRFFT_S16_H_ */
