/* utvm-build kernels: TFLM SignalEnergy, int16 (signal/src/energy.cc): re^2 + im^2 of
 * the complex int16 bins start..end-1 as uint32; the other output elements, which TFLM leaves
 * untouched, are set to 0 here. */
#ifndef UTVM_KERNELS_SIGNAL_ENERGY_S16_H_
#define UTVM_KERNELS_SIGNAL_ENERGY_S16_H_

#include "signal_common.h"

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
      /* modulo 2^32, as the reference's int32 sum stored to uint32 */
      e = ((uint32_t)re * (uint32_t)re) + ((uint32_t)im * (uint32_t)im);
    }
    output[i] = e;
  }
}

#endif /* UTVM_KERNELS_SIGNAL_ENERGY_S16_H_ */
