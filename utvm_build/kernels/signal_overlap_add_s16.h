/* utvm-build kernels: TFLM SignalOverlapAdd, int16 (signal/src/overlap_add.cc): every frame is
 * added into a per-row buffer of frame_size samples (saturated to int16), its first frame_step
 * samples are the output and the buffer shifts by frame_step, zero-filled. The buffers live in the
 * model's state region (zeros after reset, as TFLM's). */
#ifndef UTVM_KERNELS_SIGNAL_OVERLAP_ADD_S16_H_
#define UTVM_KERNELS_SIGNAL_OVERLAP_ADD_S16_H_

#include "signal_common.h"
#include "signal_overlap_add_params.h"

/* the sum saturated to int16 */
static inline int16_t utvm_signal_overlap_add_s16_one(int16_t acc, int16_t x) {
  return (int16_t)utvm_clamp_i32((int32_t)x + (int32_t)acc, INT16_MIN, INT16_MAX);
}

static void utvm_signal_overlap_add_s16(const utvm_signal_overlap_add_params* p, const int16_t* input,
                                        int16_t* output, int16_t* state) {
  UTVM_SIGNAL_OVERLAP_ADD_WALK(int16_t, p, input, output, state, utvm_signal_overlap_add_s16_one);
}

#endif /* UTVM_KERNELS_SIGNAL_OVERLAP_ADD_S16_H_ */
