/* utvm-build kernels, Helium (MVE): FULLY_CONNECTED 16x8 with per-channel weights; replaces
 * kernels/fully_connected_s16_pc.h (same function, same arguments, same results): the rows of
 * fully_connected_s16_rows.h with each unit's multiplier and shift.
 *
 * Generic description: FULLY_CONNECTED, 16x8 with per-channel weights
 * (reference_integer_ops::FullyConnectedPerChannel, int16 overload: int64 accumulator and bias).
 */
#ifndef UTVM_KERNELS_FULLY_CONNECTED_S16_PC_H_
#define UTVM_KERNELS_FULLY_CONNECTED_S16_PC_H_

#if !defined(__ARM_FEATURE_MVE) || ((__ARM_FEATURE_MVE & 1) == 0)
#error "utvm-build: these kernels were generated for a Helium target (--target cortex-m55/m85/m52) but compiled without MVE; use --target cortex-m33 or generic"
#endif

#include "fully_connected_s16_rows.h"

/* bias: int64 (may be NULL). Without a bias the reference instantiates the int32-bias variant: int32
 * accumulator (wraps) and the int32 MultiplyByQuantizedMultiplier. p->multiplier/shift are unused. */
static void utvm_fully_connected_s16_pc(const utvm_fc_q_params* p, const int32_t* multipliers,
                                        const int32_t* shifts, const int16_t* in, const int8_t* w,
                                        const int64_t* bias, int16_t* out) {
  utvm_fully_connected_s16_rows(p, 1, multipliers, shifts, in, w, bias, out);
}

#endif /* UTVM_KERNELS_FULLY_CONNECTED_S16_PC_H_ */
