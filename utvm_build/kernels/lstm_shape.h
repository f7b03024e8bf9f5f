/* utvm-build kernels: the leading fields of the UNIDIRECTIONAL_SEQUENCE_LSTM parameter structs of
 * lstm_f32.h and lstm_s8.h (the sizes and the input's layout), written once so that the layouts the
 * handler (ops/lstm.py) fills cannot drift apart. */
#ifndef UTVM_KERNELS_LSTM_SHAPE_H_
#define UTVM_KERNELS_LSTM_SHAPE_H_

#include "common.h"

/* n_batch batch vectors of n_input, n_time steps, n_cell cells, n_output outputs (n_cell without
 * projection); time_major 1: input [n_time][n_batch][n_input], else [n_batch][n_time][n_input]. */
#define UTVM_LSTM_SHAPE_FIELDS \
  int32_t n_batch;             \
  int32_t n_time;              \
  int32_t n_input;             \
  int32_t n_cell;              \
  int32_t n_output;            \
  int32_t time_major;

#endif /* UTVM_KERNELS_LSTM_SHAPE_H_ */
