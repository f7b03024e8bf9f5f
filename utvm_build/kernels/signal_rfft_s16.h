/* utvm-build kernels: TFLM SignalRfft, int16 (signal/src/rfft_int16.cc: KISS FFT v130 built with
 * FIXED_POINT 16, kiss_fftr over a complex FFT of half the length, signal_kissfft_s16.h).
 * Scratch: fft_length int16 values (the complex FFT's output). */
#ifndef UTVM_KERNELS_SIGNAL_RFFT_S16_H_
#define UTVM_KERNELS_SIGNAL_RFFT_S16_H_

#include "signal_kissfft_s16.h"

/* bins 0 and n/2, after kiss_fftr's C_FIXDIV of the complex bin 0 by 2 */
/* bins 0 and n/2, then bins k and nc - k from the complex bins k and nc - k */
static inline void utvm_sfft_rfft_split(int16_t* scratch, const int16_t* super_twiddles, int16_t* out, int32_t nc) {
  int32_t k;
  utvm_sfft_c tdc;
  utvm_sfft_fixdiv(scratch, 0, 2);
  tdc = utvm_sfft_load(scratch, 0);
  out[0] = utvm_signal_wrap16(tdc.r + tdc.i);
  out[2 * nc] = utvm_signal_wrap16(tdc.r - tdc.i);
  out[(2 * nc) + 1] = 0;
  out[1] = 0;
  for (k = 1; k <= (nc / 2); ++k) {
    utvm_sfft_c fpk = utvm_sfft_load(scratch, k);
    utvm_sfft_c fpnk = utvm_sfft_load(scratch, nc - k);
    utvm_sfft_c f1k;
    utvm_sfft_c f2k;
    utvm_sfft_c t;
    const int32_t d = 32767 / 2;
    fpnk.i = (int32_t)utvm_signal_wrap16(-fpnk.i);
    fpk = utvm_sfft_narrow(utvm_sfft_smul(fpk.r, d), utvm_sfft_smul(fpk.i, d));
    fpnk = utvm_sfft_narrow(utvm_sfft_smul(fpnk.r, d), utvm_sfft_smul(fpnk.i, d));
    f1k = utvm_sfft_narrow(fpk.r + fpnk.r, fpk.i + fpnk.i);
    f2k = utvm_sfft_narrow(fpk.r - fpnk.r, fpk.i - fpnk.i);
    t = utvm_sfft_cmul(f2k, utvm_sfft_load(super_twiddles, k - 1));
    utvm_sfft_store(out, k, utvm_signal_asr(f1k.r + t.r, 1u), utvm_signal_asr(f1k.i + t.i, 1u));
    utvm_sfft_store(out, nc - k, utvm_signal_asr(f1k.r - t.r, 1u), utvm_signal_asr(t.i - f1k.i, 1u));
  }
}

UTVM_SIGNAL_RFFT_KERNEL(utvm_signal_rfft_s16, int16_t, utvm_sfft_stages, utvm_sfft_rfft_split)

#endif /* UTVM_KERNELS_SIGNAL_RFFT_S16_H_ */
