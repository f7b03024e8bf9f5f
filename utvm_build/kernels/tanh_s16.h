/* utvm-build kernels: TANH, int16 (reference_integer_ops::Tanh, int16 overload; tanh(x) =
 * 2 sigmoid(2x) - 1 with the shared sigmoid table). */
#ifndef UTVM_KERNELS_TANH_S16_H_
#define UTVM_KERNELS_TANH_S16_H_

#include "logistic_table.h"

static void utvm_tanh_s16(int32_t size, int32_t multiplier, int32_t shift, const int16_t* in,
                          int16_t* out) {
  bool nonneg = false;
  int32_t i = 0;
  while (i < size) {
    /* 8 fraction bits per entry, 0xFFFF << 8 past the table */
    const int32_t r = (int32_t)utvm_sigmoid_s16_interp(in[i], multiplier, shift, 8u, 0xFFFF00u, &nonneg);
    /* 0x800000 = 1 << (14 + 9), 0x80 = 1 << (9 - 2) */
    out[i] = (int16_t)((nonneg ? ((r - 0x800000) + 0x80) : ((((-r) + 0x800000) + 0x80) - 1)) >> (9 - 1));
    ++i;
  }
}

#endif /* UTVM_KERNELS_TANH_S16_H_ */
