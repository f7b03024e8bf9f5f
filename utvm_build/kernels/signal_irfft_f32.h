/* utvm-build kernels: TFLM SignalIrfft, float32 (signal/src/irfft_float.cc: KISS FFT v130 in float,
 * kiss_fftri: the spectrum folded into a complex spectrum of half the length, the inverse complex
 * FFT of signal_kissfft_f32.h, then every sample divided by fft_length as the reference does). The
 * complex FFT runs in the output frame (kiss_fft's output is the time data); no scratch. */
#ifndef UTVM_KERNELS_SIGNAL_IRFFT_F32_H_
#define UTVM_KERNELS_SIGNAL_IRFFT_F32_H_

#include "signal_kissfft_f32.h"

/* bin 0, then bins k and nc - k folded into the complex spectrum, in leaf order (kiss_fftri) */
static inline void utvm_sfftf_irfft_fold(const float* x, const float* super_twiddles, float* out, const uint16_t* position,
                                         int32_t nc) {
  int32_t k;
  utvm_sfftf_c c;
  c.r = x[0] + x[2 * nc];
  c.i = x[0] - x[2 * nc];
  utvm_sfftf_store(out, (int32_t)position[0], c);
  for (k = 1; k <= (nc / 2); ++k) {
    const utvm_sfftf_c fk = utvm_sfftf_load(x, k);
    utvm_sfftf_c fnkc = utvm_sfftf_load(x, nc - k);
    utvm_sfftf_c fek;
    utvm_sfftf_c fok;
    fnkc.i = -fnkc.i;
    fek = utvm_sfftf_cadd(fk, fnkc);
    fok = utvm_sfftf_cmul(utvm_sfftf_csub(fk, fnkc), utvm_sfftf_load(super_twiddles, k - 1));
    utvm_sfftf_store(out, (int32_t)position[k], utvm_sfftf_cadd(fek, fok));
    c = utvm_sfftf_csub(fek, fok);
    c.i = c.i * -1.0f;
    utvm_sfftf_store(out, (int32_t)position[nc - k], c);
  }
}

/* the inverse complex FFT, then every sample divided by fft_length as the reference does */
static inline void utvm_sfftf_irfft_inverse(const utvm_signal_rfft_params* p, const float* twiddles,
                                            float* out, int32_t inverse) {
  const float scale = (float)p->fft_length;
  int32_t k;
  utvm_sfftf_stages(p, twiddles, out, inverse);
  for (k = 0; k < p->fft_length; ++k) {
    out[k] = out[k] / scale;
  }
}

UTVM_SIGNAL_IRFFT_KERNEL(utvm_signal_irfft_f32, float, utvm_sfftf_irfft_fold, utvm_sfftf_irfft_inverse)

#endif /* UTVM_KERNELS_SIGNAL_IRFFT_F32_H_ */
