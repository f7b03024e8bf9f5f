/* utvm-build kernels: MUL, int16 (zero points 0) (TFLite reference_integer_ops::MulElementwise / BroadcastMul4DSlow;
 * the element operation: utvm_mul_q_one in elementwise.h). */
#ifndef UTVM_KERNELS_MUL_S16_H_
#define UTVM_KERNELS_MUL_S16_H_

#include "elementwise.h"

static void utvm_mul_s16(const utvm_mul_q_params* p, const utvm_ew_shape* sh, const int16_t* in1, const int16_t* in2, int16_t* out) {
  UTVM_EW_BINARY(int16_t, utvm_mul_q_one, p, sh, in1, in2, out);
}

#endif /* UTVM_KERNELS_MUL_S16_H_ */
