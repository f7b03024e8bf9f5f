/* utvm-build kernels: TANH, int16 (reference_integer_ops::Tanh, int16 overload; tanh(x) =
 * 2 sigmoid(2x) - 1 with the shared sigmoid table). */
#ifndef UTVM_KERNELS_TANH_S16_H_
#define UTVM_KERNELS_TANH_S16_H_

#include "logistic_table.h"

static void utvm_tanh_s16(int32_t size, int32_t multiplier, int32_t shift, const int16_t* in,
                          int16_t* out) {
  const int32_t round = (shift > 0) ? utvm_pow2_i32(shift - 1) : 0;
  int32_t i;
  for (i = 0; i < size; ++i) {
    const int32_t x = (((int32_t)in[i] * multiplier) + round) >> shift;
    const uint32_t ax = (uint32_t)((x < 0) ? -x : x);
    const uint32_t uh = ax >> 8;
    int32_t result;
    if (uh >= 255u) {
      result = 0xFFFF00;  /* 0xFFFF << 8 */
    } else {
      const uint32_t ua = utvm_sigmoid_table_uint16[uh];
      const uint32_t ub = utvm_sigmoid_table_uint16[uh + 1u];
      const uint32_t ut = ax & 0xFFu;
      const uint32_t interpolated = (ua << 8) + (ut * (ub - ua));
      result = (int32_t)interpolated;
    }
    /* 0x800000 = 1 << (14 + 9), 0x80 = 1 << (9 - 2) */
    result = (x >= 0) ? ((result - 0x800000) + 0x80) : ((((-result) + 0x800000) + 0x80) - 1);
    out[i] = (int16_t)(result >> (9 - 1));
  }
}

#endif /* UTVM_KERNELS_TANH_S16_H_ */
