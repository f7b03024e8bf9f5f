/* utvm-build kernels: TFLM SignalOverlapAdd, float32 (signal/src/overlap_add.cc): every frame is
 * added into a per-row buffer of frame_size samples (float additions, as the reference), its first
 * frame_step samples are the output and the buffer shifts by frame_step, zero-filled. The buffers
 * live in the model's state region (zeros after reset, as TFLM's). */
#ifndef UTVM_KERNELS_SIGNAL_OVERLAP_ADD_F32_H_
#define UTVM_KERNELS_SIGNAL_OVERLAP_ADD_F32_H_

#include "signal_overlap_add_params.h"

static inline float utvm_signal_overlap_add_f32_one(float acc, float x) { return acc + x; }

static void utvm_signal_overlap_add_f32(const utvm_signal_overlap_add_params* p, const float* input, float* output,
                                        float* state) {
  UTVM_SIGNAL_OVERLAP_ADD_WALK(float, p, input, output, state, utvm_signal_overlap_add_f32_one);
}

#endif /* UTVM_KERNELS_SIGNAL_OVERLAP_ADD_F32_H_ */
