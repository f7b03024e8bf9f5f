/* utvm-build kernels: FULLY_CONNECTED, int8 (per-tensor weights). */
#ifndef UTVM_KERNELS_FULLY_CONNECTED_S8_H_
#define UTVM_KERNELS_FULLY_CONNECTED_S8_H_

#include "fully_connected_s8_rows.h"

/* bias: folded bias (never NULL: the generator always provides one). */
static void utvm_fully_connected_s8(const utvm_fc_q_params* p, const int8_t* in, const int8_t* w,
                                    const int32_t* bias, int8_t* out) {
  utvm_fully_connected_s8_rows(p, &p->multiplier, &p->shift, 0, in, w, bias, out);
}

#endif /* UTVM_KERNELS_FULLY_CONNECTED_S8_H_ */
