/* utvm-build kernels: LOGISTIC, int16 (reference_integer_ops::Logistic, int16 overload).
 * multiplier/shift: 3 << left_shift and 0 for power-of-two input scales, else the multiplier
 * from SigmoidPrepare; the input is rescaled so that +/-2^17 represents +/-10.7. */
#ifndef UTVM_KERNELS_LOGISTIC_S16_H_
#define UTVM_KERNELS_LOGISTIC_S16_H_

#include "logistic_table.h"

static void utvm_logistic_s16(int32_t size, int32_t multiplier, int32_t shift, const int16_t* in,
                              int16_t* out) {
  const int32_t round = (shift > 0) ? utvm_pow2_i32(shift - 1) : 0;
  int32_t i;
  for (i = 0; i < size; ++i) {
    const int32_t x = (((int32_t)in[i] * multiplier) + round) >> shift;
    const uint32_t ax = (uint32_t)((x < 0) ? -x : x);
    const uint32_t uh = ax >> 9;
    uint32_t result;
    if (uh >= 255u) {
      result = (uint32_t)0x7FFF << 10;
    } else {
      const uint32_t ua = utvm_sigmoid_table_uint16[uh];
      const uint32_t ub = utvm_sigmoid_table_uint16[uh + 1u];
      const uint32_t ut = ax & 0x1FFu;
      result = (ua << 9) + (ut * (ub - ua));
    }
    result = (x >= 0) ? (result + ((uint32_t)1 << 9u))
                      : ((((uint32_t)1 << (16u + 9u)) - result) + ((uint32_t)1 << 9u) - 1u);
    out[i] = (int16_t)(result >> 10);
  }
}

#endif /* UTVM_KERNELS_LOGISTIC_S16_H_ */
