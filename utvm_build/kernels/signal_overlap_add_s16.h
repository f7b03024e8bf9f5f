/* utvm-build kernels: TFLM SignalOverlapAdd, int16 (signal/src/overlap_add.cc): every frame is
 * added into a per-row buffer of frame_size samples (saturated to int16), its first frame_step
 * samples are the output and the buffer shifts by frame_step, zero-filled. The buffers live in the
 * model's state region (zeros after reset, as TFLM's). */
#ifndef UTVM_KERNELS_SIGNAL_OVERLAP_ADD_S16_H_
#define UTVM_KERNELS_SIGNAL_OVERLAP_ADD_S16_H_

#include "signal_common.h"
#include "signal_overlap_add_params.h"

static void utvm_signal_overlap_add_s16(const utvm_signal_overlap_add_params* p, const int16_t* input,
                                        int16_t* output, int16_t* state) {
  int32_t r;
  for (r = 0; r < p->rows; ++r) {
    int16_t* buf = &state[r * p->frame_size];
    int32_t f;
    for (f = 0; f < p->n_frames; ++f) {
      const int16_t* x = &input[((r * p->n_frames) + f) * p->frame_size];
      int16_t* y = &output[((r * p->n_frames) + f) * p->frame_step];
      int32_t i;
      for (i = 0; i < p->frame_size; ++i) {
        buf[i] = (int16_t)utvm_clamp_i32((int32_t)x[i] + (int32_t)buf[i], INT16_MIN, INT16_MAX);
      }
      for (i = 0; i < p->frame_step; ++i) {
        y[i] = buf[i];
      }
      for (i = 0; i < p->frame_size; ++i) {
        buf[i] = ((i + p->frame_step) < p->frame_size) ? buf[i + p->frame_step] : (int16_t)0;
      }
    }
  }
}

#endif /* UTVM_KERNELS_SIGNAL_OVERLAP_ADD_S16_H_ */
