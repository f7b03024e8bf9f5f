/* utvm-build kernels: the parameters of TFLM SignalOverlapAdd (signal_overlap_add_s16.h / _f32.h). */
#ifndef UTVM_KERNELS_SIGNAL_OVERLAP_ADD_PARAMS_H_
#define UTVM_KERNELS_SIGNAL_OVERLAP_ADD_PARAMS_H_

#include <stdint.h>

typedef struct {
  int32_t rows;
  int32_t n_frames;
  int32_t frame_size;
  int32_t frame_step; /* <= frame_size */
} utvm_signal_overlap_add_params;

/* The walk of SignalOverlapAdd, every type: per row and frame, the frame added into the row's state
 * (buf[i] = ADD(buf[i], x[i]), the type's addition), frame_step samples out, the state shifted by
 * frame_step with zeros behind. */
#define UTVM_SIGNAL_OVERLAP_ADD_WALK(T, p, input, output, state, ADD)                        \
  do {                                                                                      \
    int32_t r_;                                                                             \
    for (r_ = 0; r_ < (p)->rows; ++r_) {                                                    \
      T* buf_ = &(state)[r_ * (p)->frame_size];                                             \
      int32_t f_;                                                                           \
      for (f_ = 0; f_ < (p)->n_frames; ++f_) {                                              \
        const T* x_ = &(input)[((r_ * (p)->n_frames) + f_) * (p)->frame_size];              \
        T* y_ = &(output)[((r_ * (p)->n_frames) + f_) * (p)->frame_step];                   \
        int32_t i_;                                                                         \
        for (i_ = 0; i_ < (p)->frame_size; ++i_) {                                          \
          buf_[i_] = ADD(buf_[i_], x_[i_]);                                                 \
        }                                                                                   \
        for (i_ = 0; i_ < (p)->frame_step; ++i_) {                                          \
          y_[i_] = buf_[i_];                                                                \
        }                                                                                   \
        for (i_ = 0; i_ < (p)->frame_size; ++i_) {                                          \
          buf_[i_] = ((i_ + (p)->frame_step) < (p)->frame_size) ? buf_[i_ + (p)->frame_step] : (T)0; \
        }                                                                                   \
      }                                                                                     \
    }                                                                                       \
  } while (0)

#endif /* UTVM_KERNELS_SIGNAL_OVERLAP_ADD_PARAMS_H_ */
