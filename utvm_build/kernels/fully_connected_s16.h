/* utvm-build kernels: FULLY_CONNECTED, int16 activations with int8 weights (16x8). */
#ifndef UTVM_KERNELS_FULLY_CONNECTED_S16_H_
#define UTVM_KERNELS_FULLY_CONNECTED_S16_H_

#include "fully_connected.h"

/* One multiplier for the layer: p->multiplier, p->shift. */
static inline int16_t utvm_fully_connected_s16_finish(const utvm_fc_q_params* p, const int64_t* bias,
                                                      const int32_t* mult, const int32_t* shift, int32_t c,
                                                      int64_t acc) {
  (void)mult;
  (void)shift;
  return utvm_fc_s16_out(p, bias, p->multiplier, p->shift, c, acc);
}

/* 16x8: int16 activations (zero point 0), int8 weights, int64 bias (may be NULL; an int32 model bias
 * is widened at code generation). p->acc32: see fully_connected.h. */
static void utvm_fully_connected_s16(const utvm_fc_q_params* p, const int16_t* in, const int8_t* w,
                                     const int64_t* bias, int16_t* out) {
  UTVM_FC_WALK(p, in, w, bias, (const int32_t*)NULL, (const int32_t*)NULL, out, int16_t, int8_t, int64_t, 0,
               utvm_fc_s16_mac, utvm_fully_connected_s16_finish);
}

#endif /* UTVM_KERNELS_FULLY_CONNECTED_S16_H_ */
