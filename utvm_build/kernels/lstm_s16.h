/* utvm-build kernels: UNIDIRECTIONAL_SEQUENCE_LSTM 16x8: int16 activations and hidden state, int8
 * weights, int64 biases, int16 cell state (TFLite Micro kernels/unidirectional_sequence_lstm.cc and
 * lstm_eval.h EvalLstm<int16_t, int8_t, int16_t, int64_t>: the standard LSTM only).
 *
 * Per step and gate (i, f, c, o): FC(x) and FC(h) with reference_integer_ops::FullyConnected (int64
 * sums, the int64 MultiplyByQuantizedMultiplier, clamped to int16; the gate bias in FC(x) only), their
 * saturating int16 sum in Q3.12, then the LUT sigmoid (multiplier 3) or, for the cell gate, the LUT
 * tanh (multiplier 3). The cell: c = mul(f, c) + mul(i, g), each product requantized by
 * MulElementwise to int16 and the sum saturated; then clipped when cell_clip > 0. The hidden state:
 * h = mul(tanh(c), o) with the hidden state's zero point, the tanh taking the cell state's power of two
 * into its multiplier/shift. Time-major input runs every batch vector of a step together, batch-major
 * one vector at a time, as the reference (the results do not depend on it). scratch: int16
 * [3][rows * n_cell], rows = n_batch if time-major else 1.
 * The compiler refuses biases and scales for which the int64 sums could leave the reference's range
 * (|sum| < 2^47) or its shifts overflow, so no operation here overflows.
 */
#ifndef UTVM_KERNELS_LSTM_S16_H_
#define UTVM_KERNELS_LSTM_S16_H_

#include "common.h"
#include "logistic_s16.h"
#include "tanh_s16.h"

typedef struct {
  int32_t n_batch;
  int32_t n_time;
  int32_t n_input;
  int32_t n_cell;
  int32_t time_major;
  int32_t input_zp;
  int32_t hidden_zp;
  int32_t in_m[4];        /* per gate i, f, c, o: FC(x) rescale */
  int32_t in_s[4];
  int32_t rec_m[4];       /* FC(h) rescale */
  int32_t rec_s[4];
  int32_t forget_m;       /* forget gate x cell state -> cell state */
  int32_t forget_s;
  int32_t input_m;        /* input gate x cell gate -> cell state */
  int32_t input_s;
  int32_t hidden_m;       /* tanh(cell) x output gate -> hidden state */
  int32_t hidden_s;
  int32_t tanh_m;         /* LUT tanh of the cell state: multiplier and right shift */
  int32_t tanh_s;
  int32_t clip;           /* 1: clip the cell state to [-cell_clip, cell_clip] */
  int32_t cell_clip;
} utvm_lstm_s16_params;

static inline int32_t utvm_lstm16_sat16(int32_t x) { return utvm_clamp_i32(x, -32768, 32767); }

/* One FC row: sum_c w[c] * (x[c] - zp) (+ bias) requantized, clamped to int16. */
static int32_t utvm_lstm16_fc_row(const int16_t* x, const int8_t* w, int32_t n, int32_t zp, const int64_t* bias,
                                  int32_t m, int32_t s) {
  int64_t acc = 0;
  int32_t c;
  for (c = 0; c < n; ++c) {
    const int32_t prod = (int32_t)w[c] * ((int32_t)x[c] - zp);
    acc += (int64_t)prod;
  }
  if (bias != NULL) {
    acc += *bias;
  }
  return utvm_lstm16_sat16(utvm_mul_by_quantized_mul64(acc, m, s));
}

/* MulElementwise of two int16 values (offsets 0) with an int16 result and output zero point zp. */
static inline int32_t utvm_lstm16_mul(int32_t a, int32_t b, int32_t m, int32_t s, int32_t zp) {
  const uint32_t sum = (uint32_t)utvm_mul_by_quantized_mul(a * b, m, s) + (uint32_t)zp;
  return utvm_lstm16_sat16((int32_t)sum);
}

/* One gate for nb batch vectors (CalculateLstmGate): gate[nb][n_cell]; tanh_gate 0: sigmoid. */
static void utvm_lstm16_gate(const utvm_lstm_s16_params* p, int32_t g, int32_t nb, const int16_t* x,
                             const int16_t* h, const int8_t* w, const int8_t* r, const int64_t* bias,
                             int32_t tanh_gate, int16_t* gate) {
  int32_t b;
  int32_t j;
  for (b = 0; b < nb; ++b) {
    for (j = 0; j < p->n_cell; ++j) {
      const int32_t from_x = utvm_lstm16_fc_row(&x[b * p->n_input], &w[j * p->n_input], p->n_input, p->input_zp,
                                                &bias[j], p->in_m[g], p->in_s[g]);
      const int32_t from_h = utvm_lstm16_fc_row(&h[b * p->n_cell], &r[j * p->n_cell], p->n_cell, p->hidden_zp,
                                                NULL, p->rec_m[g], p->rec_s[g]);
      gate[(b * p->n_cell) + j] = (int16_t)utvm_lstm16_sat16(from_x + from_h);
    }
  }
  if (tanh_gate != 0) {
    utvm_tanh_s16(nb * p->n_cell, 3, 0, gate, gate);
  } else {
    utvm_logistic_s16(nb * p->n_cell, 3, 0, gate, gate);
  }
}

/* One step for nb batch vectors (LstmStep): updates h[nb][n_cell], c[nb][n_cell], writes out. */
static void utvm_lstm16_step(const utvm_lstm_s16_params* p, int32_t nb, const int16_t* x, const int8_t* const* w,
                             const int8_t* const* r, const int64_t* const* bias, int16_t* h, int16_t* c,
                             int16_t* out, int16_t* scratch) {
  const int32_t n = nb * p->n_cell;
  int16_t* fg = scratch;
  int16_t* ig = &scratch[n];
  int16_t* cg = &scratch[2 * n];
  int16_t* og = ig;        /* the input gate is dead once the cell state is updated */
  int16_t* tanh_c = fg;    /* so is the forget gate */
  int32_t k;
  utvm_lstm16_gate(p, 1, nb, x, h, w[1], r[1], bias[1], 0, fg);
  utvm_lstm16_gate(p, 0, nb, x, h, w[0], r[0], bias[0], 0, ig);
  utvm_lstm16_gate(p, 2, nb, x, h, w[2], r[2], bias[2], 1, cg);
  for (k = 0; k < n; ++k) {   /* UpdateLstmCell */
    const int32_t kept = utvm_lstm16_mul(fg[k], c[k], p->forget_m, p->forget_s, 0);
    const int32_t added = utvm_lstm16_mul(ig[k], cg[k], p->input_m, p->input_s, 0);
    int32_t v = utvm_lstm16_sat16(kept + added);
    if (p->clip != 0) {
      v = utvm_max_i32(utvm_min_i32(p->cell_clip, v), -p->cell_clip);
    }
    c[k] = (int16_t)v;
  }
  utvm_lstm16_gate(p, 3, nb, x, h, w[3], r[3], bias[3], 0, og);
  utvm_tanh_s16(n, p->tanh_m, p->tanh_s, c, tanh_c);   /* UpdateLstmHidden */
  for (k = 0; k < n; ++k) {
    h[k] = (int16_t)utvm_lstm16_mul(tanh_c[k], og[k], p->hidden_m, p->hidden_s, p->hidden_zp);
    out[k] = h[k];
  }
}

static void utvm_lstm_s16(const utvm_lstm_s16_params* p, const int16_t* in, const int8_t* w_ii, const int8_t* w_if,
                          const int8_t* w_ic, const int8_t* w_io, const int8_t* w_ri, const int8_t* w_rf,
                          const int8_t* w_rc, const int8_t* w_ro, const int64_t* b_i, const int64_t* b_f,
                          const int64_t* b_c, const int64_t* b_o, int16_t* h_state, int16_t* c_state, int16_t* out,
                          int16_t* scratch) {
  const int8_t* const w[4] = {w_ii, w_if, w_ic, w_io};
  const int8_t* const r[4] = {w_ri, w_rf, w_rc, w_ro};
  const int64_t* const bias[4] = {b_i, b_f, b_c, b_o};
  int32_t t;
  int32_t b;
  if (p->time_major != 0) {
    for (t = 0; t < p->n_time; ++t) {
      utvm_lstm16_step(p, p->n_batch, &in[t * p->n_batch * p->n_input], w, r, bias, h_state, c_state,
                       &out[t * p->n_batch * p->n_cell], scratch);
    }
  } else {
    for (b = 0; b < p->n_batch; ++b) {
      for (t = 0; t < p->n_time; ++t) {
        const int32_t row = (b * p->n_time) + t;
        utvm_lstm16_step(p, 1, &in[row * p->n_input], w, r, bias, &h_state[b * p->n_cell], &c_state[b * p->n_cell],
                         &out[row * p->n_cell], scratch);
      }
    }
  }
}

#endif /* UTVM_KERNELS_LSTM_S16_H_ */
