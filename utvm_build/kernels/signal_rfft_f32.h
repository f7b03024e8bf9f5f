/* utvm-build kernels: TFLM SignalRfft, float32 (signal/src/rfft_float.cc: KISS FFT v130 in float,
 * kiss_fftr over a complex FFT of half the length, signal_kissfft_f32.h).
 * Scratch: fft_length floats (the complex FFT's output). */
#ifndef UTVM_KERNELS_SIGNAL_RFFT_F32_H_
#define UTVM_KERNELS_SIGNAL_RFFT_F32_H_

#include "signal_kissfft_f32.h"

/* bins 0 and n/2, then bins k and nc - k from the complex bins k and nc - k */
static inline void utvm_sfftf_rfft_split(const float* scratch, const float* super_twiddles, float* out, int32_t nc) {
  int32_t k;
  const utvm_sfftf_c tdc = utvm_sfftf_load(scratch, 0);
  out[0] = tdc.r + tdc.i;
  out[1] = 0.0f;
  out[2 * nc] = tdc.r - tdc.i;
  out[(2 * nc) + 1] = 0.0f;
  for (k = 1; k <= (nc / 2); ++k) {
    const utvm_sfftf_c fpk = utvm_sfftf_load(scratch, k);
    utvm_sfftf_c fpnk = utvm_sfftf_load(scratch, nc - k);
    utvm_sfftf_c f1k;
    utvm_sfftf_c t;
    utvm_sfftf_c v;
    float s;
    fpnk.i = -fpnk.i;
    f1k = utvm_sfftf_cadd(fpk, fpnk);
    t = utvm_sfftf_cmul(utvm_sfftf_csub(fpk, fpnk), utvm_sfftf_load(super_twiddles, k - 1));
    s = f1k.r + t.r;
    v.r = s * 0.5f;
    s = f1k.i + t.i;
    v.i = s * 0.5f;
    utvm_sfftf_store(out, k, v);
    s = f1k.r - t.r;
    v.r = s * 0.5f;
    s = t.i - f1k.i;
    v.i = s * 0.5f;
    utvm_sfftf_store(out, nc - k, v);
  }
}

UTVM_SIGNAL_RFFT_KERNEL(utvm_signal_rfft_f32, float, utvm_sfftf_stages, utvm_sfftf_rfft_split)

#endif /* UTVM_KERNELS_SIGNAL_RFFT_F32_H_ */
