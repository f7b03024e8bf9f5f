/* utvm-build kernels: FULLY_CONNECTED, int8 with per-channel weights
 * (reference_integer_ops::FullyConnectedPerChannel: one multiplier and shift per output unit). */
#ifndef UTVM_KERNELS_FULLY_CONNECTED_S8_PC_H_
#define UTVM_KERNELS_FULLY_CONNECTED_S8_PC_H_

#include "fully_connected_s8_rows.h"

/* bias: folded bias (input offset folded in; never NULL). p->multiplier/shift are unused. */
static void utvm_fully_connected_s8_pc(const utvm_fc_q_params* p, const int32_t* multipliers,
                                       const int32_t* shifts, const int8_t* in, const int8_t* w,
                                       const int32_t* bias, int8_t* out) {
  utvm_fully_connected_s8_rows(p, multipliers, shifts, 1, in, w, bias, out);
}

#endif /* UTVM_KERNELS_FULLY_CONNECTED_S8_PC_H_ */
