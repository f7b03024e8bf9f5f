/* utvm-build kernels: TFLM SignalIrfft, float32 (signal/src/irfft_float.cc: KISS FFT v130 in float,
 * kiss_fftri: the spectrum folded into a complex spectrum of half the length, the inverse complex
 * FFT of signal_kissfft_f32.h, then every sample divided by fft_length as the reference does). The
 * complex FFT runs in the output frame (kiss_fft's output is the time data); no scratch. */
#ifndef UTVM_KERNELS_SIGNAL_IRFFT_F32_H_
#define UTVM_KERNELS_SIGNAL_IRFFT_F32_H_

#include "signal_kissfft_f32.h"

/* input [frames, input_length] float (complex bins; 0..n/2 are read); output [frames, fft_length]
 * float. twiddles, super_twiddles: the inverse ones (phase * -1); position: n/2 complex index ->
 * leaf position (the inverse of rfft's order table). */
static void utvm_signal_irfft_f32(const utvm_signal_rfft_params* p, const float* twiddles,
                                  const float* super_twiddles, const uint16_t* position, const float* input,
                                  float* output) {
  const int32_t nc = p->fft_length / 2;
  const float scale = (float)p->fft_length;
  int32_t fr;
  for (fr = 0; fr < p->frames; ++fr) {
    const float* x = &input[fr * p->input_length];
    float* out = &output[fr * p->fft_length];
    utvm_sfftf_c c;
    int32_t k;
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
    utvm_sfftf_stages(p, twiddles, out, 1);
    for (k = 0; k < p->fft_length; ++k) {
      out[k] = out[k] / scale;
    }
  }
}

#endif /* UTVM_KERNELS_SIGNAL_IRFFT_F32_H_ */
