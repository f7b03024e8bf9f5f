/* utvm-build kernels: UNIDIRECTIONAL_SEQUENCE_LSTM, float32 (TFLite lstm_eval.cc EvalFloat /
 * LstmStepFloat with the portable tensor_utils).
 *
 * Per time step and batch vector x (state h, c):
 *   gate = b + W x + R h (+ p . c)            (layer norm: 0 + ..., normalised, * ln + b)
 *   i, f, o = sigmoid(gate); g = act(gate)    (CIFG: i = 1 - f)
 *   c = clip(f * c + i * g)                   (the output gate's peephole sees this new c)
 *   h = o * act(c), projected (P h + pb, clipped) when there are projection weights
 * Optional arrays are NULL when absent: w_ii/w_ri/b_i (CIFG), c_* (peephole), proj_* (projection),
 * ln_* (layer norm). h_state and c_state persist between runs. scratch: 5 * n_batch * n_cell floats.
 */
#ifndef UTVM_KERNELS_LSTM_F32_H_
#define UTVM_KERNELS_LSTM_F32_H_

#include <math.h>

#include "lstm_shape.h"

typedef struct {
  UTVM_LSTM_SHAPE_FIELDS
  int32_t activation; /* cell gate and output: 0 tanh, 1 sigmoid, 2 relu, 3 relu6, 4 relu_n1_to_1 */
  float cell_clip;    /* 0: no clipping */
  float proj_clip;
} utvm_lstm_f32_params;

static float utvm_lstm_f32_act(float x, int32_t kind) {
  float y;
  if (kind == 0) {
    y = tanhf(x);
  } else if (kind == 1) {
    y = 1.0f / (1.0f + expf(-x));
  } else if (kind == 2) {
    y = (x > 0.0f) ? x : 0.0f;
  } else if (kind == 3) {
    y = utvm_clamp_f32(x, 0.0f, 6.0f);
  } else {
    y = utvm_clamp_f32(x, -1.0f, 1.0f);
  }
  return y;
}

/* One gate for one batch vector: out[n_cell]. cell_w NULL: no peephole; ln NULL: no layer norm. */
static void utvm_lstm_f32_gate(const utvm_lstm_f32_params* p, const float* x, const float* h, const float* c,
                               const float* w, const float* r, const float* cell_w, const float* bias,
                               const float* ln, int32_t act, float* out) {
  int32_t i;
  int32_t j;
  for (i = 0; i < p->n_cell; ++i) {
    float acc = (ln != NULL) ? 0.0f : bias[i];
    for (j = 0; j < p->n_input; ++j) {
      acc += w[(i * p->n_input) + j] * x[j];
    }
    for (j = 0; j < p->n_output; ++j) {
      acc += r[(i * p->n_output) + j] * h[j];
    }
    if (cell_w != NULL) {
      acc += cell_w[i] * c[i];
    }
    out[i] = acc;
  }
  if (ln != NULL) {
    float sum = 0.0f;
    float sum_diff_sq = 0.0f;
    float mean;
    float stddev_inv;
    for (i = 0; i < p->n_cell; ++i) {
      sum += out[i];
    }
    mean = sum / (float)p->n_cell;
    for (i = 0; i < p->n_cell; ++i) {
      const float diff = out[i] - mean;
      sum_diff_sq += diff * diff;
    }
    stddev_inv = 1.0f / sqrtf((sum_diff_sq / (float)p->n_cell) + 1e-8f);
    for (i = 0; i < p->n_cell; ++i) {
      out[i] = (((out[i] - mean) * stddev_inv) * ln[i]) + bias[i];
    }
  }
  for (i = 0; i < p->n_cell; ++i) {
    out[i] = utvm_lstm_f32_act(out[i], act);
  }
}

UTVM_LSTM_KERNEL(utvm_lstm_f32, utvm_lstm_f32_params, float, float, float) {
  const int32_t n_cell = p->n_cell;
  float* ig = scratch;
  float* fg = &scratch[n_cell];
  float* cg = &scratch[2 * n_cell];
  float* og = &scratch[3 * n_cell];
  float* hidden = &scratch[4 * n_cell];
  int32_t t;
  int32_t b;
  int32_t i;
  int32_t j;
  for (t = 0; t < p->n_time; ++t) {
    for (b = 0; b < p->n_batch; ++b) {
      const int32_t row = (p->time_major != 0) ? ((t * p->n_batch) + b) : ((b * p->n_time) + t);
      const float* x = &in[row * p->n_input];
      float* h = &h_state[b * p->n_output];
      float* c = &c_state[b * n_cell];
      if (w_ii != NULL) {
        utvm_lstm_f32_gate(p, x, h, c, w_ii, w_ri, c_i, b_i, ln_i, 1, ig);
      }
      utvm_lstm_f32_gate(p, x, h, c, w_if, w_rf, c_f, b_f, ln_f, 1, fg);
      utvm_lstm_f32_gate(p, x, h, c, w_ic, w_rc, NULL, b_c, ln_c, p->activation, cg);
      for (i = 0; i < n_cell; ++i) {
        const float in_gate = (w_ii != NULL) ? ig[i] : (1.0f - fg[i]);
        float v = (fg[i] * c[i]) + (cg[i] * in_gate);
        if (p->cell_clip > 0.0f) {
          v = utvm_clamp_f32(v, -p->cell_clip, p->cell_clip);
        }
        c[i] = v;
      }
      utvm_lstm_f32_gate(p, x, h, c, w_io, w_ro, c_o, b_o, ln_o, 1, og);
      for (i = 0; i < n_cell; ++i) {
        hidden[i] = og[i] * utvm_lstm_f32_act(c[i], p->activation);
      }
      if (proj_w != NULL) {
        for (i = 0; i < p->n_output; ++i) {
          float acc = (bias != NULL) ? bias[i] : 0.0f;
          for (j = 0; j < n_cell; ++j) {
            acc += proj_w[(i * n_cell) + j] * hidden[j];
          }
          if (p->proj_clip > 0.0f) {
            acc = utvm_clamp_f32(acc, -p->proj_clip, p->proj_clip);
          }
          h[i] = acc;
        }
      } else {
        for (i = 0; i < p->n_output; ++i) {
          h[i] = hidden[i];
        }
      }
      for (i = 0; i < p->n_output; ++i) {
        out[(row * p->n_output) + i] = h[i];
      }
    }
  }
}

#endif /* UTVM_KERNELS_LSTM_F32_H_ */
