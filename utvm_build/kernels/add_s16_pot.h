/* utvm-build kernels: ADD / SUB, int16 with power-of-two scales and zero points 0
 * (pot_scale_int16; TFLite reference_ops::Add(int16, pot_scale = true) and Sub16).
 *
 * Each input is divided by 2^shift with gemmlowp RoundingDivideByPOT (one of the two shifts is 0),
 * then gemmlowp SaturatingAdd / SaturatingSub on int16, then the activation clamp. TFLite uses
 * the non-broadcast kernel on this path, so the generator only accepts equal shapes here.
 */
#ifndef UTVM_KERNELS_ADD_S16_POT_H_
#define UTVM_KERNELS_ADD_S16_POT_H_

#include "elementwise.h"

static void utvm_add_s16_pot(const utvm_add_s16_pot_params* p, int32_t size, const int16_t* in1,
                             const int16_t* in2, int16_t* out) {
  int32_t i;
  for (i = 0; i < size; ++i) {
    const int32_t a = utvm_rounding_divide_by_pot(in1[i], p->input1_shift);
    const int32_t b = utvm_rounding_divide_by_pot(in2[i], p->input2_shift);
    const int32_t sum = utvm_clamp_i32(p->subtract ? (a - b) : (a + b), INT16_MIN, INT16_MAX);
    out[i] = (int16_t)utvm_clamp_i32(sum, p->act_min, p->act_max);
  }
}

#endif /* UTVM_KERNELS_ADD_S16_POT_H_ */
