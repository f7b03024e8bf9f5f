/* utvm-build kernels: MUL, int8 (TFLite reference_integer_ops::MulElementwise / BroadcastMul4DSlow;
 * the element operation: utvm_mul_q_one in elementwise.h). */
#ifndef UTVM_KERNELS_MUL_S8_H_
#define UTVM_KERNELS_MUL_S8_H_

#include "elementwise.h"

static void utvm_mul_s8(const utvm_mul_q_params* p, const utvm_ew_shape* sh, const int8_t* in1, const int8_t* in2, int8_t* out) {
  UTVM_EW_BINARY(int8_t, utvm_mul_q_one, p, sh, in1, in2, out);
}

#endif /* UTVM_KERNELS_MUL_S8_H_ */
