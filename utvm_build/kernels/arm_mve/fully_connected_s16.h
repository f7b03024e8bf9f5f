/* utvm-build kernels, Helium (MVE): FULLY_CONNECTED 16x8 with per-tensor weights; replaces
 * kernels/fully_connected_s16.h (same function, same arguments, same results): the rows of
 * fully_connected_s16_rows.h with the layer's one multiplier and shift.
 *
 * Generic description: FULLY_CONNECTED, int16 activations with int8 weights (16x8).
 */
#ifndef UTVM_KERNELS_FULLY_CONNECTED_S16_H_
#define UTVM_KERNELS_FULLY_CONNECTED_S16_H_

#if !defined(__ARM_FEATURE_MVE) || ((__ARM_FEATURE_MVE & 1) == 0)
#error "utvm-build: these kernels were generated for a Helium target (--target cortex-m55/m85/m52) but compiled without MVE; use --target cortex-m33 or generic"
#endif

#include "fully_connected_s16_rows.h"

/* 16x8: int16 activations (zero point 0), int8 weights, int64 bias (may be NULL; an int32 model bias
 * is widened at code generation). p->acc32: see fully_connected.h. */
static void utvm_fully_connected_s16(const utvm_fc_q_params* p, const int16_t* in, const int8_t* w,
                                     const int64_t* bias, int16_t* out) {
  utvm_fully_connected_s16_rows(p, 0, &p->multiplier, &p->shift, in, w, bias, out);
}

#endif /* UTVM_KERNELS_FULLY_CONNECTED_S16_H_ */
