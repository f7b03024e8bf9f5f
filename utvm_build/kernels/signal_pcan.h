/* utvm-build kernels: TFLM SignalPCAN (signal/src/pcan_argc_fixed.cc): per-channel
 * automatic gain from the noise estimate (WideDynamicFunction's table interpolation), then PcanShrink. */
#ifndef UTVM_KERNELS_SIGNAL_PCAN_H_
#define UTVM_KERNELS_SIGNAL_PCAN_H_

#include "signal_common.h"

typedef struct {
  int32_t size;
  uint32_t snr_shift; /* 0..63 */
} utvm_signal_pcan_params;

/* WideDynamicFunction: lut has at least 125 entries (checked at compile time). */
static int32_t utvm_sigfb_wdf(uint32_t x, const int16_t* lut) {
  int32_t out;
  if (x <= 2u) {
    out = (int32_t)lut[x];
  } else {
    const uint32_t interval = utvm_signal_msb32(x);
    const int16_t* l = &lut[(4u * interval) - 6u];
    const uint32_t fr = ((interval < 11u) ? (x << (11u - interval)) : (x >> (interval - 11u))) & 0x3FFu;
    const int32_t frac = (int32_t)fr;
    int32_t result = utvm_signal_asr(((int32_t)l[2]) * frac, 5u); /* arithmetic, as the reference */
    result += ((int32_t)l[1]) * 32; /* ((uint32_t)l[1] << 5) read back as int32: |l[1] * 32| < 2^21 */
    result *= frac;                  /* |result| < 2^21 * 2^10: no overflow */
    result = utvm_signal_asr(result + 16384, 15u);
    result += (int32_t)l[0];
    {
      /* narrowed to int16 as the reference's (int16_t) cast (two's complement) */
      const uint32_t u = ((uint32_t)result) & 0xFFFFu;
      out = (u >= 0x8000u) ? ((int32_t)u - 65536) : (int32_t)u;
    }
  }
  return out;
}

static uint32_t utvm_sigfb_shrink(uint32_t x) {
  /* kPcanSnrBits 12, kPcanOutputBits 6 */
  return (x < 8192u) ? ((x * x) >> 20u) : ((x >> 6u) - 64u);
}

static void utvm_signal_pcan(const utvm_signal_pcan_params* p, const uint32_t* input, const uint32_t* noise,
                             const int16_t* lut, uint32_t* output) {
  int32_t i;
  for (i = 0; i < p->size; ++i) {
    const uint32_t gain = (uint32_t)utvm_sigfb_wdf(noise[i], lut);
    const uint32_t snr = (uint32_t)(((uint64_t)input[i] * gain) >> p->snr_shift);
    output[i] = utvm_sigfb_shrink(snr);
  }
}

#endif /* UTVM_KERNELS_SIGNAL_PCAN_H_ */
