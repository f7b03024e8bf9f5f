/* utvm-build kernels: TFLM SignalDelay, int16 (signal/micro/kernels/delay.cc): every row of
 * frame_size samples comes out delay_length samples later. TFLM's circular buffer of
 * frame_size + delay_length samples (delay_length zeros after reset) is, equivalently, the last
 * delay_length samples of each row, kept in the model's state region (zeros after reset). */
#ifndef UTVM_KERNELS_SIGNAL_DELAY_S16_H_
#define UTVM_KERNELS_SIGNAL_DELAY_S16_H_

#include "signal_common.h"

typedef struct {
  int32_t rows;
  int32_t frame_size;
  int32_t delay_length;
} utvm_signal_delay_params;

/* state: rows * delay_length int16 (oldest first) */
static void utvm_signal_delay_s16(const utvm_signal_delay_params* p, const int16_t* input, int16_t* output,
                                  int16_t* state) {
  int32_t r;
  const int32_t n = p->frame_size;
  const int32_t d = p->delay_length;
  for (r = 0; r < p->rows; ++r) {
    const int16_t* x = &input[r * n];
    int16_t* y = &output[r * n];
    int16_t* s = &state[r * d];
    int32_t i;
    /* the row seen as [state (d), input (n)]: the output is its first n, the new state its last d */
    for (i = 0; i < n; ++i) {
      y[i] = (i < d) ? s[i] : x[i - d];
    }
    for (i = 0; i < d; ++i) {
      const int32_t k = n + i; /* position in [state, input] */
      s[i] = (k < d) ? s[k] : x[k - d];
    }
  }
}

#endif /* UTVM_KERNELS_SIGNAL_DELAY_S16_H_ */
