/* utvm-build kernels: TFLM SignalWindow, int16 (signal/src/window.cc):
 * (x * w) >> shift in int32, saturated to int16, the window applied to every run of weight_size samples. */
#ifndef UTVM_KERNELS_SIGNAL_WINDOW_S16_H_
#define UTVM_KERNELS_SIGNAL_WINDOW_S16_H_

#include "signal_common.h"

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
    const int32_t raw = utvm_signal_asr(((int32_t)input[i]) * w, (uint32_t)p->shift);
    output[i] = (int16_t)utvm_clamp_i32(raw, INT16_MIN, INT16_MAX);
  }
}

#endif /* UTVM_KERNELS_SIGNAL_WINDOW_S16_H_ */
