/* utvm-build kernels: LOGISTIC, int16 (reference_integer_ops::Logistic, int16 overload).
 * multiplier/shift: 3 << left_shift and 0 for power-of-two input scales, else the multiplier
 * from SigmoidPrepare; the input is rescaled so that +/-2^17 represents +/-10.7. */
#ifndef UTVM_KERNELS_LOGISTIC_S16_H_
#define UTVM_KERNELS_LOGISTIC_S16_H_

#include "logistic_table.h"

static void utvm_logistic_s16(int32_t size, int32_t multiplier, int32_t shift, const int16_t* in,
                              int16_t* out) {
  int32_t i;
  for (i = 0; i < size; ++i) {
    bool nonneg;
    /* 9 fraction bits per entry, 0x7FFF << 10 past the table */
    const uint32_t r = utvm_sigmoid_s16_interp(in[i], multiplier, shift, 9u, (uint32_t)0x7FFF << 10, &nonneg);
    const uint32_t result =
        nonneg ? (r + ((uint32_t)1 << 9u)) : ((((uint32_t)1 << (16u + 9u)) - r) + ((uint32_t)1 << 9u) - 1u);
    out[i] = (int16_t)(result >> 10);
  }
}

#endif /* UTVM_KERNELS_LOGISTIC_S16_H_ */
