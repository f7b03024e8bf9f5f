/* utvm-build kernels: ADD / SUB, int16 with power-of-two scales and zero points 0
 * (pot_scale_int16; TFLite reference_ops::Add(int16, pot_scale = true) and Sub16).
 *
 * Each input is divided by 2^shift with gemmlowp RoundingDivideByPOT (one of the two shifts is 0),
 * then gemmlowp SaturatingAdd / SaturatingSub on int16, then the activation clamp. TFLite uses
 * the non-broadcast kernel on this path, so the generator only accepts equal shapes here.
 */
#ifndef UTVM_KERNELS_ADD_S16_POT_H_
#define UTVM_KERNELS_ADD_S16_POT_H_

#include "common.h"

/* ADD / SUB int16 power-of-two-scale path (reference_ops::Add int16 / Sub16): one input is
 * rounding-shifted right, then a saturating int16 add or subtract. */
typedef struct {
  int32_t input1_shift; /* right shifts >= 0 (at most one is non-zero) */
  int32_t input2_shift;
  int32_t subtract;     /* 0: in1 + in2, 1: in1 - in2 */
  int32_t act_min;
  int32_t act_max;
} utvm_add_s16_pot_params;

static void utvm_add_s16_pot(const utvm_add_s16_pot_params* p, int32_t size, const int16_t* in1,
                             const int16_t* in2, int16_t* out) {
  int32_t i;
  for (i = 0; i < size; ++i) {
    const int32_t a = utvm_rounding_divide_by_pot(in1[i], p->input1_shift);
    const int32_t b = utvm_rounding_divide_by_pot(in2[i], p->input2_shift);
    int32_t sum;
    if (p->subtract != 0) {
      sum = a - b;
    } else {
      sum = a + b;
    }
    sum = utvm_clamp_i32(sum, INT16_MIN, INT16_MAX);
    out[i] = (int16_t)utvm_clamp_i32(sum, p->act_min, p->act_max);
  }
}

#endif /* UTVM_KERNELS_ADD_S16_POT_H_ */
