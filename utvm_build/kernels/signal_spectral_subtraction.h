/* utvm-build kernels: TFLM SignalFilterBankSpectralSubtraction
 * (signal/src/filter_bank_spectral_subtraction.cc): a smoothed noise estimate per channel, kept in
 * the model's state region across invocations (0 after reset), subtracted with a floor. */
#ifndef UTVM_KERNELS_SIGNAL_SPECTRAL_SUBTRACTION_H_
#define UTVM_KERNELS_SIGNAL_SPECTRAL_SUBTRACTION_H_

#include "signal_common.h"

typedef struct {
  int32_t num_channels;
  uint32_t smoothing;
  uint32_t one_minus_smoothing;
  uint32_t min_signal_remaining;
  uint32_t alternate_smoothing;
  uint32_t alternate_one_minus_smoothing;
  uint32_t smoothing_bits;            /* 0..31 */
  uint32_t spectral_subtraction_bits; /* 0..63 */
  int32_t clamping;
} utvm_signal_spectral_subtraction_params;

/* noise_state: num_channels uint32 in the state region (0 after reset, as TFLM's Reset);
 * noise_out: a copy of it after the update (the operator's second output). */
static void utvm_signal_spectral_subtraction(const utvm_signal_spectral_subtraction_params* p,
                                             const uint32_t* input, uint32_t* output, uint32_t* noise_out,
                                             uint32_t* noise_state) {
  int32_t i;
  for (i = 0; i < p->num_channels; ++i) {
    const bool even = (((uint32_t)i) & 1u) == 0u;
    const uint32_t sm = even ? p->smoothing : p->alternate_smoothing;
    const uint32_t oms = even ? p->one_minus_smoothing : p->alternate_one_minus_smoothing;
    const uint32_t up = input[i] << p->smoothing_bits;
    uint32_t est;
    uint32_t floor_v;
    uint32_t sub;
    noise_state[i] = (uint32_t)((((uint64_t)up * sm) + ((uint64_t)noise_state[i] * oms)) >>
                                p->spectral_subtraction_bits);
    est = noise_state[i];
    if (est > up) {
      est = up;
      if (p->clamping != 0) {
        noise_state[i] = est;
      }
    }
    floor_v = (uint32_t)(((uint64_t)input[i] * p->min_signal_remaining) >> p->spectral_subtraction_bits);
    sub = (up - est) >> p->smoothing_bits;
    output[i] = (sub > floor_v) ? sub : floor_v;
  }
  for (i = 0; i < p->num_channels; ++i) {
    noise_out[i] = noise_state[i];
  }
}

#endif /* UTVM_KERNELS_SIGNAL_SPECTRAL_SUBTRACTION_H_ */
