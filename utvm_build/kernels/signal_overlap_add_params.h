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

#endif /* UTVM_KERNELS_SIGNAL_OVERLAP_ADD_PARAMS_H_ */
