/* utvm-build kernels: TFLM SignalFramer, int16 (signal/micro/kernels/framer.cc): every row's
 * samples arrive frame_step at a time; once frame_size samples are buffered, the oldest frame_size
 * form an output frame and frame_step of them are dropped. With prefill the buffer starts with
 * frame_size - frame_step zeros. TFLM's circular buffers become, per row, a linear buffer of
 * `capacity` samples (oldest first) in the model's state region plus a count; `meta[0]` says
 * whether the buffers were set up since the last reset (the state region resets to zeros), so the
 * first run after a reset starts as TFLM's reset leaves the framer. A frame TFLM does not write
 * (output_valid false) is written as zeros here. */
#ifndef UTVM_KERNELS_SIGNAL_FRAMER_S16_H_
#define UTVM_KERNELS_SIGNAL_FRAMER_S16_H_

#include "signal_common.h"

typedef struct {
  int32_t rows;
  int32_t n_frames;   /* frames per row and call: input row length / frame_step */
  int32_t frame_size;
  int32_t frame_step;
  int32_t capacity;   /* ceil(frame_size / frame_step) * frame_step */
  int32_t prefill;
} utvm_signal_framer_params;

/* buf: rows * capacity int16; meta: 1 + rows int32 (set-up flag, then each row's count) */
static void utvm_signal_framer_s16(const utvm_signal_framer_params* p, const int16_t* input, int16_t* output,
                                   uint8_t* valid, int16_t* buf, int32_t* meta) {
  int32_t r;
  uint8_t ok = 1u;
  if (meta[0] == 0) {
    for (r = 0; r < (p->rows * p->capacity); ++r) {
      buf[r] = 0;
    }
    for (r = 0; r < p->rows; ++r) {
      meta[1 + r] = (p->prefill != 0) ? (p->frame_size - p->frame_step) : 0;
    }
    meta[0] = 1;
  }
  for (r = 0; r < p->rows; ++r) {
    int16_t* b = &buf[r * p->capacity];
    int32_t f;
    for (f = 0; f < p->n_frames; ++f) {
      const int16_t* x = &input[((r * p->n_frames) + f) * p->frame_step];
      int16_t* y = &output[((r * p->n_frames) + f) * p->frame_size];
      int32_t avail = meta[1 + r];
      int32_t i;
      /* avail + frame_step <= capacity: see the handler (ops/signal.py) */
      for (i = 0; i < p->frame_step; ++i) {
        b[avail + i] = x[i];
      }
      avail += p->frame_step;
      if (avail >= p->frame_size) {
        for (i = 0; i < p->frame_size; ++i) {
          y[i] = b[i];
        }
        for (i = 0; i < (avail - p->frame_step); ++i) {
          b[i] = b[i + p->frame_step];
        }
        avail -= p->frame_step;
      } else {
        for (i = 0; i < p->frame_size; ++i) {
          y[i] = 0;
        }
        ok = 0u;
      }
      meta[1 + r] = avail;
    }
  }
  *valid = ok;
}

#endif /* UTVM_KERNELS_SIGNAL_FRAMER_S16_H_ */
