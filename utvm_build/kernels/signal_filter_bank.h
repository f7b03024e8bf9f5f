/* utvm-build kernels: TFLM SignalFilterBank (signal/src/filter_bank.cc): uint32 spectrum
 * to uint64 channel energies, int16 weights and unweights; unsigned arithmetic wraps as the
 * reference's does (an int16 weight is converted to uint64 modulo 2^64); the compiler checks every index. */
#ifndef UTVM_KERNELS_SIGNAL_FILTER_BANK_H_
#define UTVM_KERNELS_SIGNAL_FILTER_BANK_H_

#include "signal_common.h"

typedef struct {
  int32_t num_channels;
} utvm_signal_filter_bank_params;

/* weights, unweights: int16; starts, weight_starts, widths: num_channels + 1 int16 each (checked
 * at compile time). Channel 0 of the reference's work area is dropped, as its memcpy does. */
static void utvm_signal_filter_bank(const utvm_signal_filter_bank_params* p, const uint32_t* input,
                                    const int16_t* weights, const int16_t* unweights, const int16_t* starts,
                                    const int16_t* weight_starts, const int16_t* widths, uint64_t* output) {
  uint64_t weighted = 0u;
  uint64_t unweighted = 0u;
  int32_t i;
  for (i = 0; i <= p->num_channels; ++i) {
    const int32_t fs = (int32_t)starts[i];
    const int32_t ws = (int32_t)weight_starts[i];
    int32_t j;
    for (j = 0; j < (int32_t)widths[i]; ++j) {
      const uint64_t x = (uint64_t)input[fs + j];
      /* int16 weight converted to uint64 (modulo 2^64), as the reference's mixed product */
      weighted += ((uint64_t)(int64_t)weights[ws + j]) * x;
      unweighted += ((uint64_t)(int64_t)unweights[ws + j]) * x;
    }
    if (i > 0) {
      output[i - 1] = weighted;
    }
    weighted = unweighted;
    unweighted = 0u;
  }
}

#endif /* UTVM_KERNELS_SIGNAL_FILTER_BANK_H_ */
