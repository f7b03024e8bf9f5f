/* utvm-build kernels: UNIDIRECTIONAL_SEQUENCE_LSTM as TFLite Micro runs it (kernels/
 * unidirectional_sequence_lstm.cc, lstm_eval.h EvalLstm: the standard LSTM only), for its two integer
 * instances: 16x8 (int16 activations and hidden state, int64 biases: EvalLstm<int16_t, int8_t, int16_t,
 * int64_t>) and int8 (int8 activations and hidden state, int32 biases: EvalLstm<int8_t, int8_t, int16_t,
 * int32_t>); int8 symmetric weights and an int16 cell state in both.
 *
 * Per step and gate (i, f, c, o): FC(x) and FC(h) with reference_integer_ops::FullyConnected (sums of
 * w * (x - zero_point), int64 with the int64 MultiplyByQuantizedMultiplier for 16x8, int32 with the int32
 * one for int8; clamped to int16; the gate bias in FC(x) only), their saturating int16 sum in Q3.12, then
 * the LUT sigmoid (multiplier 3) or, for the cell gate, the LUT tanh (multiplier 3). The cell:
 * c = mul(f, c) + mul(i, g), each product requantized by MulElementwise to int16 and the sum saturated;
 * then clipped when cell_clip > 0. The hidden state: h = mul(tanh(c), o) with the hidden state's zero
 * point, clamped to the activation type's range, the tanh taking the cell state's power of two into its
 * multiplier/shift. Only the FC sums and the hidden state's storage depend on the type (the small typed
 * functions below); the rest is shared. Time-major input runs every batch vector of a step together,
 * batch-major one vector at a time, as the reference (the results do not depend on it).
 * scratch: int16 [4][rows * n_cell], rows = n_batch if time-major else 1.
 * The compiler refuses weights, biases and scales for which a sum could leave the reference's range
 * (16x8: |sum| < 2^47; int8: the int32 sum) or its shifts overflow, so no operation here overflows.
 */
#ifndef UTVM_KERNELS_LSTM_MICRO_H_
#define UTVM_KERNELS_LSTM_MICRO_H_

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
  int32_t hidden_min;     /* the activation type's range: -128..127 (int8) or -32768..32767 (16x8) */
  int32_t hidden_max;
  int32_t tanh_m;         /* LUT tanh of the cell state: multiplier and right shift */
  int32_t tanh_s;
  int32_t clip;           /* 1: clip the cell state to [-cell_clip, cell_clip] */
  int32_t cell_clip;
} utvm_lstm_micro_params;

static inline int32_t utvm_lstmq_sat16(int32_t x) { return utvm_clamp_i32(x, -32768, 32767); }

/* 16x8: one FC row, sum_c w[c] * (x[c] - zp) (+ bias) in int64, requantized, clamped to int16. */
static inline int32_t utvm_lstmq_fc_row_s16(const int16_t* x, const int8_t* w, int32_t n, int32_t zp,
                                            const int64_t* bias, int32_t m, int32_t s) {
  int64_t acc = 0;
  int32_t c;
  for (c = 0; c < n; ++c) {
    const int32_t prod = (int32_t)w[c] * ((int32_t)x[c] - zp);
    acc += (int64_t)prod;
  }
  if (bias != NULL) {
    acc += *bias;
  }
  return utvm_lstmq_sat16(utvm_mul_by_quantized_mul64(acc, m, s));
}

/* int8: one FC row in int32 (the compiler bounds the sum), the int32 requantization, clamped to int16. */
static inline int32_t utvm_lstmq_fc_row_s8(const int8_t* x, const int8_t* w, int32_t n, int32_t zp,
                                           const int32_t* bias, int32_t m, int32_t s) {
  int32_t acc = 0;
  int32_t c;
  for (c = 0; c < n; ++c) {
    acc += (int32_t)w[c] * ((int32_t)x[c] - zp);
  }
  if (bias != NULL) {
    acc += *bias;
  }
  return utvm_lstmq_sat16(utvm_mul_by_quantized_mul(acc, m, s));
}

/* MulElementwise of two int16 values (offsets 0), output zero point zp, clamped to [lo, hi] (the zero
 * point added with a wrapping add: the reference's int32 add cannot overflow for accepted scales). */
static inline int32_t utvm_lstmq_mul(int32_t a, int32_t b, int32_t m, int32_t s, int32_t zp, int32_t lo,
                                     int32_t hi) {
  const int32_t prod = a * b;
  const uint32_t sum = (uint32_t)utvm_mul_by_quantized_mul(prod, m, s) + (uint32_t)zp;   /* wraps, never UB */
  return utvm_clamp_i32((int32_t)sum, lo, hi);
}

/* The shared part of a step (CalculateLstmGate's activations, UpdateLstmCell, UpdateLstmHidden) for
 * n = nb * n_cell elements: gates[0..3] hold the saturated FC(x) + FC(h) of the gates i, f, c, o; on
 * return gates[0] holds the new hidden state (in the activation type's range) and c is updated. */
static void utvm_lstmq_cell(const utvm_lstm_micro_params* p, int32_t n, int16_t* gates, int16_t* c) {
  int16_t* ig = gates;
  int16_t* fg = &gates[n];
  int16_t* cg = &gates[2 * n];
  int16_t* og = &gates[3 * n];
  int16_t* tanh_c = fg;    /* the forget gate is dead once the cell state is updated */
  int16_t* hidden = ig;    /* so is the input gate */
  int32_t k;
  utvm_logistic_s16(n, 3, 0, fg, fg);
  utvm_logistic_s16(n, 3, 0, ig, ig);
  utvm_tanh_s16(n, 3, 0, cg, cg);
  for (k = 0; k < n; ++k) {   /* UpdateLstmCell */
    const int32_t kept = utvm_lstmq_mul(fg[k], c[k], p->forget_m, p->forget_s, 0, -32768, 32767);
    const int32_t added = utvm_lstmq_mul(ig[k], cg[k], p->input_m, p->input_s, 0, -32768, 32767);
    int32_t v = utvm_lstmq_sat16(kept + added);
    if (p->clip != 0) {
      v = utvm_max_i32(utvm_min_i32(p->cell_clip, v), -p->cell_clip);
    }
    c[k] = (int16_t)v;
  }
  utvm_logistic_s16(n, 3, 0, og, og);
  utvm_tanh_s16(n, p->tanh_m, p->tanh_s, c, tanh_c);   /* UpdateLstmHidden */
  for (k = 0; k < n; ++k) {
    hidden[k] = (int16_t)utvm_lstmq_mul(tanh_c[k], og[k], p->hidden_m, p->hidden_s, p->hidden_zp, p->hidden_min,
                                        p->hidden_max);
  }
}

/* 16x8: one step for nb batch vectors: updates h[nb][n_cell], c[nb][n_cell], writes out. */
static inline void utvm_lstmq_step_s16(const utvm_lstm_micro_params* p, int32_t nb, const int16_t* x,
                                       const int8_t* const* w, const int8_t* const* r, const int64_t* const* bias,
                                       int16_t* h, int16_t* c, int16_t* out, int16_t* scratch) {
  const int32_t n = nb * p->n_cell;
  int32_t g;
  int32_t b;
  int32_t j;
  for (g = 0; g < 4; ++g) {
    for (b = 0; b < nb; ++b) {
      for (j = 0; j < p->n_cell; ++j) {
        const int32_t from_x = utvm_lstmq_fc_row_s16(&x[b * p->n_input], &w[g][j * p->n_input], p->n_input,
                                                     p->input_zp, &bias[g][j], p->in_m[g], p->in_s[g]);
        const int32_t from_h = utvm_lstmq_fc_row_s16(&h[b * p->n_cell], &r[g][j * p->n_cell], p->n_cell,
                                                     p->hidden_zp, NULL, p->rec_m[g], p->rec_s[g]);
        scratch[(g * n) + (b * p->n_cell) + j] = (int16_t)utvm_lstmq_sat16(from_x + from_h);
      }
    }
  }
  utvm_lstmq_cell(p, n, scratch, c);
  for (j = 0; j < n; ++j) {
    h[j] = scratch[j];
    out[j] = scratch[j];
  }
}

/* int8: one step for nb batch vectors: updates h[nb][n_cell], c[nb][n_cell], writes out. */
static inline void utvm_lstmq_step_s8(const utvm_lstm_micro_params* p, int32_t nb, const int8_t* x,
                                      const int8_t* const* w, const int8_t* const* r, const int32_t* const* bias,
                                      int8_t* h, int16_t* c, int8_t* out, int16_t* scratch) {
  const int32_t n = nb * p->n_cell;
  int32_t g;
  int32_t b;
  int32_t j;
  for (g = 0; g < 4; ++g) {
    for (b = 0; b < nb; ++b) {
      for (j = 0; j < p->n_cell; ++j) {
        const int32_t from_x = utvm_lstmq_fc_row_s8(&x[b * p->n_input], &w[g][j * p->n_input], p->n_input,
                                                    p->input_zp, &bias[g][j], p->in_m[g], p->in_s[g]);
        const int32_t from_h = utvm_lstmq_fc_row_s8(&h[b * p->n_cell], &r[g][j * p->n_cell], p->n_cell,
                                                    p->hidden_zp, NULL, p->rec_m[g], p->rec_s[g]);
        scratch[(g * n) + (b * p->n_cell) + j] = (int16_t)utvm_lstmq_sat16(from_x + from_h);
      }
    }
  }
  utvm_lstmq_cell(p, n, scratch, c);
  for (j = 0; j < n; ++j) {   /* hidden_min/max are -128/127: the values fit */
    h[j] = (int8_t)scratch[j];
    out[j] = (int8_t)scratch[j];
  }
}

static inline void utvm_lstm_s16(const utvm_lstm_micro_params* p, const int16_t* in, const int8_t* w_ii,
                                 const int8_t* w_if, const int8_t* w_ic, const int8_t* w_io, const int8_t* w_ri,
                                 const int8_t* w_rf, const int8_t* w_rc, const int8_t* w_ro, const int64_t* b_i,
                                 const int64_t* b_f, const int64_t* b_c, const int64_t* b_o, int16_t* h_state,
                                 int16_t* c_state, int16_t* out, int16_t* scratch) {
  const int8_t* const w[4] = {w_ii, w_if, w_ic, w_io};
  const int8_t* const r[4] = {w_ri, w_rf, w_rc, w_ro};
  const int64_t* const bias[4] = {b_i, b_f, b_c, b_o};
  int32_t t;
  int32_t b;
  if (p->time_major != 0) {
    for (t = 0; t < p->n_time; ++t) {
      utvm_lstmq_step_s16(p, p->n_batch, &in[t * p->n_batch * p->n_input], w, r, bias, h_state, c_state,
                          &out[t * p->n_batch * p->n_cell], scratch);
    }
  } else {
    for (b = 0; b < p->n_batch; ++b) {
      for (t = 0; t < p->n_time; ++t) {
        const int32_t row = (b * p->n_time) + t;
        utvm_lstmq_step_s16(p, 1, &in[row * p->n_input], w, r, bias, &h_state[b * p->n_cell],
                            &c_state[b * p->n_cell], &out[row * p->n_cell], scratch);
      }
    }
  }
}

static inline void utvm_lstm_s8_micro(const utvm_lstm_micro_params* p, const int8_t* in, const int8_t* w_ii,
                                      const int8_t* w_if, const int8_t* w_ic, const int8_t* w_io, const int8_t* w_ri,
                                      const int8_t* w_rf, const int8_t* w_rc, const int8_t* w_ro, const int32_t* b_i,
                                      const int32_t* b_f, const int32_t* b_c, const int32_t* b_o, int8_t* h_state,
                                      int16_t* c_state, int8_t* out, int16_t* scratch) {
  const int8_t* const w[4] = {w_ii, w_if, w_ic, w_io};
  const int8_t* const r[4] = {w_ri, w_rf, w_rc, w_ro};
  const int32_t* const bias[4] = {b_i, b_f, b_c, b_o};
  int32_t t;
  int32_t b;
  if (p->time_major != 0) {
    for (t = 0; t < p->n_time; ++t) {
      utvm_lstmq_step_s8(p, p->n_batch, &in[t * p->n_batch * p->n_input], w, r, bias, h_state, c_state,
                         &out[t * p->n_batch * p->n_cell], scratch);
    }
  } else {
    for (b = 0; b < p->n_batch; ++b) {
      for (t = 0; t < p->n_time; ++t) {
        const int32_t row = (b * p->n_time) + t;
        utvm_lstmq_step_s8(p, 1, &in[row * p->n_input], w, r, bias, &h_state[b * p->n_cell],
                           &c_state[b * p->n_cell], &out[row * p->n_cell], scratch);
      }
    }
  }
}

#endif /* UTVM_KERNELS_LSTM_MICRO_H_ */
