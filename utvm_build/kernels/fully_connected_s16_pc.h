/* utvm-build kernels: FULLY_CONNECTED, 16x8 with per-channel weights
 * (reference_integer_ops::FullyConnectedPerChannel, int16 overload: int64 accumulator and bias). */
#ifndef UTVM_KERNELS_FULLY_CONNECTED_S16_PC_H_
#define UTVM_KERNELS_FULLY_CONNECTED_S16_PC_H_

#include "fully_connected.h"

/* Channel c's multiplier and shift. */
static inline int16_t utvm_fully_connected_s16_pc_finish(const utvm_fc_q_params* p, const int64_t* bias,
                                                         const int32_t* mult, const int32_t* shift, int32_t c,
                                                         int64_t acc) {
  return utvm_fc_s16_out(p, bias, mult[c], shift[c], c, acc);
}

/* bias: int64 (may be NULL). Without a bias the reference instantiates the int32-bias variant: int32
 * accumulator (wraps) and the int32 MultiplyByQuantizedMultiplier. p->multiplier/shift are unused. */
static void utvm_fully_connected_s16_pc(const utvm_fc_q_params* p, const int32_t* multipliers,
                                        const int32_t* shifts, const int16_t* in, const int8_t* w,
                                        const int64_t* bias, int16_t* out) {
  UTVM_FC_WALK(p, in, w, bias, multipliers, shifts, out, int16_t, int8_t, int64_t, 0, utvm_fc_s16_mac,
               utvm_fully_connected_s16_pc_finish);
}

#endif /* UTVM_KERNELS_FULLY_CONNECTED_S16_PC_H_ */
