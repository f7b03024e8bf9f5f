/* utvm-build kernels: TFLM SignalFftAutoScale, int16 (signal/src/fft_auto_scale.cc,
 * max_abs.cc): the largest magnitude (as TFLM's MaxAbs16 tracks it in an int16, where -32768 stays
 * -32768) gives scale = 15 - msb(max) (at least 0; msb(0) is 32 as GCC builds of TFLM compute it)
 * and every sample is multiplied by 2^scale, narrowed to int16 as a two's complement store. */
#ifndef UTVM_KERNELS_SIGNAL_FFT_AUTO_SCALE_S16_H_
#define UTVM_KERNELS_SIGNAL_FFT_AUTO_SCALE_S16_H_

#include "signal_common.h"

static void utvm_signal_fft_auto_scale_s16(int32_t size, const int16_t* input, int16_t* output,
                                           int32_t* scale_bits) {
  int32_t i;
  int32_t max = 0; /* always a value an int16 holds, as the reference's int16_t max */
  int32_t scale;
  int32_t msb;
  for (i = 0; i < size; ++i) {
    const int32_t v = (int32_t)input[i];
    if (v > max) {
      max = v;
    } else if ((-v) > max) {
      max = (v == INT16_MIN) ? INT16_MIN : -v; /* int16_t(32768) is -32768 */
    } else {
      /* keep */
    }
  }
  /* MostSignificantBit32 of the int16 converted to uint32; GCC builds of TFLM give 32 for 0 */
  msb = (max == 0) ? 32 : (int32_t)utvm_signal_msb32((uint32_t)max);
  scale = 15 - msb;
  if (scale <= 0) {
    scale = 0;
  }
  for (i = 0; i < size; ++i) {
    output[i] = utvm_signal_wrap16(utvm_shl_wrap_i32((int32_t)input[i], scale));
  }
  *scale_bits = scale;
}

#endif /* UTVM_KERNELS_SIGNAL_FFT_AUTO_SCALE_S16_H_ */
