/* utvm-build kernels: ADD / SUB, int8 (TFLite reference_integer_ops::AddElementwise /
 * BroadcastAdd4DSlow; SUB with input2_multiplier negated). The exact short forms of the reference's
 * rescales and the loop nest are in add_s8_q.h, shared with kernels/arm_dsp/add_s8.h.
 */
#ifndef UTVM_KERNELS_ADD_S8_H_
#define UTVM_KERNELS_ADD_S8_H_

#include "add_s8_q.h"

/* Same-shape operands: the loop nest does them as one row. */
static inline int32_t utvm_add_s8_nest_flat(const utvm_add_q_params* p, const utvm_add_s8_input* r1,
                                            const utvm_add_s8_input* r2, const utvm_add_s8_rescale* ro,
                                            const int8_t* in1, const int8_t* in2, int8_t* out, int32_t n) {
  (void)p;
  (void)r1;
  (void)r2;
  (void)ro;
  (void)in1;
  (void)in2;
  (void)out;
  (void)n;
  return 1;
}

static void utvm_add_s8(const utvm_add_q_params* p, const utvm_ew_shape* sh, const int8_t* in1,
                        const int8_t* in2, int8_t* out) {
  UTVM_ADD_S8_WALK(p, sh, in1, in2, out, utvm_add_s8_nest_flat);
}

#endif /* UTVM_KERNELS_ADD_S8_H_ */
