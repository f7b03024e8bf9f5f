/* utvm-build kernels: TFLM SignalStacker, int16 (signal/micro/kernels/stacker.cc): frames of
 * num_channels values are buffered; the first frame after a reset is repeated left_context more
 * times; once buffer_size = num_channels * (left + right + 1) values are buffered they are the
 * output (output_valid true) and step_size = num_channels * stacker_step of them are dropped.
 * TFLM's circular buffer becomes a linear buffer (oldest first) in the model's state region plus
 * meta[0] (the count) and meta[1] (the first frame has come), all zero after reset as TFLM's
 * Reset leaves them. An output TFLM does not write (output_valid false) is written as zeros here. */
#ifndef UTVM_KERNELS_SIGNAL_STACKER_S16_H_
#define UTVM_KERNELS_SIGNAL_STACKER_S16_H_

#include "signal_common.h"

typedef struct {
  int32_t num_channels;
  int32_t left_context;
  int32_t buffer_size;
  int32_t step_size; /* <= buffer_size */
} utvm_signal_stacker_params;

static void utvm_signal_stacker_s16(const utvm_signal_stacker_params* p, const int16_t* input, int16_t* output,
                                    uint8_t* valid, int16_t* buf, int32_t* meta) {
  int32_t avail = meta[0];
  int32_t i;
  int32_t k;
  /* avail + num_channels * (1 + left_context) <= buffer_size on the first frame, avail +
   * num_channels <= buffer_size later: see the handler (ops/signal.py) */
  for (i = 0; i < p->num_channels; ++i) {
    buf[avail + i] = input[i];
  }
  avail += p->num_channels;
  if (meta[1] == 0) {
    for (k = 0; k < p->left_context; ++k) {
      for (i = 0; i < p->num_channels; ++i) {
        buf[avail + i] = input[i];
      }
      avail += p->num_channels;
    }
    meta[1] = 1;
  }
  if (avail >= p->buffer_size) {
    for (i = 0; i < p->buffer_size; ++i) {
      output[i] = buf[i];
    }
    for (i = 0; i < (avail - p->step_size); ++i) {
      buf[i] = buf[i + p->step_size];
    }
    avail -= p->step_size;
    *valid = 1u;
  } else {
    for (i = 0; i < p->buffer_size; ++i) {
      output[i] = 0;
    }
    *valid = 0u;
  }
  meta[0] = avail;
}

#endif /* UTVM_KERNELS_SIGNAL_STACKER_S16_H_ */
