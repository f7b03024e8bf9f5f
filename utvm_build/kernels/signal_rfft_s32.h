/* utvm-build kernels: TFLM SignalRfft, int32 (signal/src/rfft_int32.cc: KISS FFT v130 built with
 * FIXED_POINT 32, kiss_fftr over a complex FFT of half the length, signal_kissfft_s32.h).
 * Scratch: fft_length int32 values (the complex FFT's output). */
#ifndef UTVM_KERNELS_SIGNAL_RFFT_S32_H_
#define UTVM_KERNELS_SIGNAL_RFFT_S32_H_

#include "signal_kissfft_s32.h"

/* bins 0 and n/2, then bins k and nc - k from the complex bins k and nc - k */
static inline void utvm_sfft32_rfft_split(const int32_t* scratch, const int32_t* super_twiddles, int32_t* out,
                                          int32_t nc) {
  int32_t k;
  const utvm_sfft32_c tdc = utvm_sfft32_fixdiv(utvm_sfft32_load(scratch, 0), 2);
  out[0] = utvm_sfft32_add(tdc.r, tdc.i);
  out[1] = 0;
  out[2 * nc] = utvm_sfft32_sub(tdc.r, tdc.i);
  out[(2 * nc) + 1] = 0;
  for (k = 1; k <= (nc / 2); ++k) {
    const utvm_sfft32_c fpk = utvm_sfft32_fixdiv(utvm_sfft32_load(scratch, k), 2);
    utvm_sfft32_c fpnk = utvm_sfft32_load(scratch, nc - k);
    utvm_sfft32_c f1k;
    utvm_sfft32_c f2k;
    utvm_sfft32_c t;
    utvm_sfft32_c v;
    fpnk.i = utvm_sfft32_sub(0, fpnk.i);
    fpnk = utvm_sfft32_fixdiv(fpnk, 2);
    f1k = utvm_sfft32_cadd(fpk, fpnk);
    f2k = utvm_sfft32_csub(fpk, fpnk);
    t = utvm_sfft32_cmul(f2k, utvm_sfft32_load(super_twiddles, k - 1));
    v.r = utvm_sfft32_half(utvm_sfft32_add(f1k.r, t.r));
    v.i = utvm_sfft32_half(utvm_sfft32_add(f1k.i, t.i));
    utvm_sfft32_store(out, k, v);
    v.r = utvm_sfft32_half(utvm_sfft32_sub(f1k.r, t.r));
    v.i = utvm_sfft32_half(utvm_sfft32_sub(t.i, f1k.i));
    utvm_sfft32_store(out, nc - k, v);
  }
}

UTVM_SIGNAL_RFFT_KERNEL(utvm_signal_rfft_s32, int32_t, utvm_sfft32_stages, utvm_sfft32_rfft_split)

#endif /* UTVM_KERNELS_SIGNAL_RFFT_S32_H_ */
