/* utvm-build kernels: what the UNIDIRECTIONAL_SEQUENCE_LSTM kernels of lstm_f32.h and lstm_s8.h
 * share: the leading fields of their parameter structs (the sizes and the input's layout) and their
 * entry point's operands, written once so that what the handler (ops/lstm.py) passes cannot drift
 * apart. */
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

/* The entry point's head, followed by its body: the LSTM's tensors in TFLite's input order. in,
 * input-to-gate and recurrent weights (w_i*, w_r*: input, forget, cell, output gate), the
 * projection's weights, h_state and out: TX; the peephole weights (c_*), the layer norms (ln_*),
 * c_state and scratch: TC; the gate biases (b_*) and bias: TB (float32: the projection's bias;
 * int8: the effective biases, lstm_s8.h). An unused optional tensor is NULL. The kernel table reads an instance's parameter types through this definition
 * (kernel_table.py). */
#define UTVM_LSTM_KERNEL(NAME, PARAMS, TX, TC, TB)                                                                 \
  static void NAME(const PARAMS* p, const TX* in, const TX* w_ii, const TX* w_if, const TX* w_ic, const TX* w_io,  \
                   const TX* w_ri, const TX* w_rf, const TX* w_rc, const TX* w_ro, const TC* c_i, const TC* c_f,   \
                   const TC* c_o, const TB* b_i, const TB* b_f, const TB* b_c, const TB* b_o, const TX* proj_w,    \
                   const TB* bias, TX* h_state, TC* c_state, const TC* ln_i, const TC* ln_f, const TC* ln_c,     \
                   const TC* ln_o, TX* out, TC* scratch)

#endif /* UTVM_KERNELS_LSTM_SHAPE_H_ */
