/* utvm-build kernels: TFLM signal library, int16 element-wise operators
 * (signal/src/window.cc, fft_auto_scale.cc, max_abs.cc, energy.cc).
 *
 * SignalWindow: (x * w) >> shift in int32, saturated to int16, the window applied to every run of
 * weight_size samples. SignalFftAutoScale: the largest magnitude (as TFLM's MaxAbs16 tracks it in
 * an int16, where -32768 stays -32768) gives scale = 15 - msb(max) (at least 0) and every sample is
 * multiplied by 2^scale, narrowed to int16 as a two's complement store. SignalEnergy: re^2 + im^2
 * of the complex int16 bins start..end-1 as uint32; the other output elements, which TFLM leaves
 * untouched, are set to 0 here. */
#ifndef UTVM_KERNELS_SIGNAL_S16_H_
#define UTVM_KERNELS_SIGNAL_S16_H_

#include "common.h"

/* v narrowed to int16 as a two's complement store (what the reference's int16 stores do). */
static inline int16_t utvm_signal_wrap16(int32_t v) {
  const uint32_t u = ((uint32_t)v) & 0xFFFFu;
  return (int16_t)(int32_t)((u >= 0x8000u) ? ((int32_t)u - 65536) : (int32_t)u);
}

typedef struct {
  int32_t size;        /* input elements */
  int32_t weight_size; /* window length (divides size) */
  int32_t shift;       /* 0..31 */
} utvm_signal_window_params;

static void utvm_signal_window_s16(const utvm_signal_window_params* p, const int16_t* input,
                                   const int16_t* weights, int16_t* output) {
  int32_t i;
  for (i = 0; i < p->size; ++i) {
    const int32_t w = (int32_t)weights[i % p->weight_size];
    /* |x * w| <= 2^30: no overflow; the shift is arithmetic, as the reference's */
    const int32_t raw = (((int32_t)input[i]) * w) >> p->shift;
    output[i] = (int16_t)utvm_clamp_i32(raw, INT16_MIN, INT16_MAX);
  }
}

/* The number of significant bits of x (0 for 0). */
static inline int32_t utvm_signal_msb32(uint32_t x) {
  int32_t n = 0;
  uint32_t v = x;
  while (v != 0u) {
    v >>= 1u;
    ++n;
  }
  return n;
}

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
  msb = (max == 0) ? 32 : utvm_signal_msb32((uint32_t)max);
  scale = 15 - msb;
  if (scale <= 0) {
    scale = 0;
  }
  for (i = 0; i < size; ++i) {
    output[i] = utvm_signal_wrap16(utvm_shl_wrap_i32((int32_t)input[i], scale));
  }
  *scale_bits = scale;
}

typedef struct {
  int32_t start;  /* first bin */
  int32_t end;    /* one past the last bin */
  int32_t size;   /* output elements */
} utvm_signal_energy_params;

static void utvm_signal_energy_s16(const utvm_signal_energy_params* p, const int16_t* input, uint32_t* output) {
  int32_t i;
  for (i = 0; i < p->size; ++i) {
    uint32_t e = 0u;
    if ((i >= p->start) && (i < p->end)) {
      const int32_t re = (int32_t)input[2 * i];
      const int32_t im = (int32_t)input[(2 * i) + 1];
      e = ((uint32_t)(re * re)) + ((uint32_t)(im * im));
    }
    output[i] = e;
  }
}

#endif /* UTVM_KERNELS_SIGNAL_S16_H_ */
