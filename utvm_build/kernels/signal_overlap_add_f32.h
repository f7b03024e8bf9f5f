/* utvm-build kernels: TFLM SignalOverlapAdd, float32 (signal/src/overlap_add.cc): every frame is
 * added into a per-row buffer of frame_size samples (float additions, as the reference), its first
 * frame_step samples are the output and the buffer shifts by frame_step, zero-filled. The buffers
 * live in the model's state region (zeros after reset, as TFLM's). */
#ifndef UTVM_KERNELS_SIGNAL_OVERLAP_ADD_F32_H_
#define UTVM_KERNELS_SIGNAL_OVERLAP_ADD_F32_H_

#include "signal_overlap_add_params.h"

static void utvm_signal_overlap_add_f32(const utvm_signal_overlap_add_params* p, const float* input, float* output,
                                        float* state) {
  int32_t r;
  for (r = 0; r < p->rows; ++r) {
    float* buf = &state[r * p->frame_size];
    int32_t f;
    for (f = 0; f < p->n_frames; ++f) {
      const float* x = &input[((r * p->n_frames) + f) * p->frame_size];
      float* y = &output[((r * p->n_frames) + f) * p->frame_step];
      int32_t i;
      for (i = 0; i < p->frame_size; ++i) {
        buf[i] += x[i];
      }
      for (i = 0; i < p->frame_step; ++i) {
        y[i] = buf[i];
      }
      for (i = 0; i < p->frame_size; ++i) {
        buf[i] = ((i + p->frame_step) < p->frame_size) ? buf[i + p->frame_step] : 0.0f;
      }
    }
  }
}

#endif /* UTVM_KERNELS_SIGNAL_OVERLAP_ADD_F32_H_ */
