/* utvm-build kernels: UNIDIRECTIONAL_SEQUENCE_LSTM, int8 activations, int8 weights, int16 cell state
 * (TFLite lstm_eval.cc EvalInteger8x8_16 / LstmStepInteger8x8_16 with the portable tensor_utils:
 * MatrixBatchVectorMultiplyAccumulate, VectorBatchVectorCwiseProductAccumulate, ApplyLayerNorm,
 * ApplySigmoid / ApplyTanh (gemmlowp int16 fixed point), CwiseMul, CwiseAdd, CwiseClipping).
 *
 * Gates are int16 in Q3.12 before the activation, Q0.15 after; the cell state is Q(15+cell_scale).
 * The tanh of the cell state has 15 + cell_scale integer bits; outside 0..6 the reference's ApplyTanh
 * writes nothing and the hidden state is the output gate times the input gate (reproduced here).
 * Time-major input runs every batch vector of a step together, batch-major input one vector at a time
 * (as the reference: it matters only for its peephole, which runs over n_output elements per batch).
 * bias: 8 x n_cell effective biases (input-to-gate and recurrent-to-gate of gates i, f, c, o: the zero
 * points times the row sums folded in, the gate bias too unless layer norm) + n_output (projection).
 * The gate biases b_* are used only by layer norm. scratch: int16 [5][n_batch * n_cell] then int8
 * [n_batch * n_cell]. The int32 sums wrap on overflow, as the reference's do in practice.
 */
#ifndef UTVM_KERNELS_LSTM_S8_H_
#define UTVM_KERNELS_LSTM_S8_H_

#include "lstm_shape.h"

typedef struct {
  UTVM_LSTM_SHAPE_FIELDS
  int32_t cell_scale;      /* log2 of the cell state scale, -30 .. 1 */
  int32_t cell_clip;       /* quantized; 0: none */
  int32_t proj_clip;
  int32_t hidden_zp;
  int32_t output_state_zp;
  int32_t hidden_m;
  int32_t hidden_s;
  int32_t proj_m;
  int32_t proj_s;
  int32_t in_m[4];         /* per gate i, f, c, o */
  int32_t in_s[4];
  int32_t rec_m[4];
  int32_t rec_s[4];
  int32_t cell_m[4];
  int32_t cell_s[4];
  int32_t ln_m[4];
  int32_t ln_s[4];
  int32_t guard[4];        /* layer norm variance guard */
} utvm_lstm_s8_params;

/* ---- gemmlowp int16 fixed point (values held in int32_t) ------------------------------------- */

/* static_cast<int16_t>: two's complement wrap-around, computed on uint32_t. */
static inline int32_t utvm_lstm_wrap16(int32_t x) {
  const uint32_t v = ((uint32_t)x + 32768u) & 0xFFFFu;
  return (int32_t)v - 32768;
}

static inline int32_t utvm_lstm_sat16(int32_t x) { return utvm_clamp_i32(x, -32768, 32767); }

/* gemmlowp SaturatingRoundingDoublingHighMul(int16, int16). */
static inline int32_t utvm_lstm_srdhm16(int32_t a, int32_t b) {
  int32_t result;
  if ((a == b) && (a == -32768)) {
    result = 32767;
  } else {
    const int32_t ab = a * b;
    int32_t nudge = -16383;
    if (ab >= 0) {
      nudge = 16384;
    }
    result = utvm_lstm_wrap16((ab + nudge) / 32768);
  }
  return result;
}

/* gemmlowp SaturatingRoundingMultiplyByPOT<e>(int16) for 0 <= e <= 14: saturating left shift. */
static inline int32_t utvm_lstm_sat_shl16(int32_t x, int32_t e) {
  const int32_t threshold = utvm_pow2_i32(15 - e) - 1;
  int32_t result;
  if (x > threshold) {
    result = 32767;
  } else if (x < -threshold) {
    result = -32768;
  } else {
    result = utvm_lstm_wrap16(utvm_shl_wrap_i32(x, e));
  }
  return result;
}

/* exp_on_interval_between_negative_one_quarter_and_0_excl, Q0.15 in and out. */
static int32_t utvm_lstm_exp_quarter16(int32_t a) {
  const int32_t constant_term = 28918;    /* exp(-1/8) */
  const int32_t constant_1_over_3 = 10923;
  const int32_t x = utvm_lstm_wrap16(a + 4096);
  const int32_t x2 = utvm_lstm_srdhm16(x, x);
  const int32_t x3 = utvm_lstm_srdhm16(x2, x);
  const int32_t x4 = utvm_lstm_srdhm16(x2, x2);
  const int32_t x4_over_4 = utvm_rounding_divide_by_pot(x4, 2);
  const int32_t sum = utvm_lstm_wrap16(
      utvm_lstm_srdhm16(utvm_lstm_wrap16(x4_over_4 + x3), constant_1_over_3) + x2);
  const int32_t poly = utvm_rounding_divide_by_pot(sum, 1);
  return utvm_lstm_sat16(constant_term + utvm_lstm_srdhm16(constant_term, utvm_lstm_wrap16(x + poly)));
}

/* exp_on_negative_values for a <= 0 with int_bits integer bits (1 .. 7); result Q0.15. */
static int32_t utvm_lstm_exp_neg16(int32_t a, int32_t int_bits) {
  static const int32_t multipliers[7] = {25520, 19875, 12055, 4435, 600, 11, 0};  /* exp(-2^k), k=-2..4 */
  const int32_t frac_bits = 15 - int_bits;
  const int32_t one_quarter = utvm_pow2_i32(frac_bits - 2);
  const int32_t mask = one_quarter - 1;
  const uint32_t a_low = (uint32_t)a & (uint32_t)mask;
  const int32_t a_mod = utvm_lstm_wrap16((int32_t)a_low - one_quarter);
  const int32_t remainder = utvm_lstm_wrap16(a_mod - a);
  int32_t result = utvm_lstm_exp_quarter16((int_bits > 0) ? utvm_lstm_sat_shl16(a_mod, int_bits) : a_mod);
  int32_t k;
  for (k = 0; k < 7; ++k) {
    const int32_t exponent = k - 2;
    if (int_bits > exponent) {
      const int32_t bit_index = frac_bits + exponent;
      const uint32_t bit = (uint32_t)1 << (uint32_t)bit_index;
      if (((uint32_t)remainder & bit) != 0u) {
        result = utvm_lstm_srdhm16(result, multipliers[k]);
      }
    }
  }
  if ((int_bits > 5) && (a < -utvm_pow2_i32(20 - int_bits))) {
    result = 0;
  }
  if (a == 0) {
    result = 32767;
  }
  return result;
}

/* The Newton-Raphson division of one_over_one_plus_x_for_x_in_0_1 and
 * one_minus_x_over_one_plus_x_for_x_in_0_1 (Q0.15 in); returns x in Q2.13. */
static int32_t utvm_lstm_nr16(int32_t a) {
  const int32_t sum = a + 32767;
  const int32_t half_denominator = (sum + ((sum >= 0) ? 1 : -1)) / 2;
  int32_t x = utvm_lstm_wrap16(23130 + utvm_lstm_srdhm16(half_denominator, -15420));
  int32_t i;
  for (i = 0; i < 3; ++i) {
    const int32_t one_minus = utvm_lstm_wrap16(8192 - utvm_lstm_srdhm16(half_denominator, x));
    x = utvm_lstm_wrap16(x + utvm_lstm_sat_shl16(utvm_lstm_srdhm16(x, one_minus), 2));
  }
  return x;
}

/* gemmlowp logistic of a Q3.12 value; Q0.15 result. */
static int32_t utvm_lstm_sigmoid16(int32_t a) {
  int32_t result;
  if (a == 0) {
    result = 16384;
  } else {
    const int32_t abs_a = (a > 0) ? a : utvm_lstm_wrap16(-a);
    const int32_t pos = utvm_lstm_sat_shl16(utvm_lstm_nr16(utvm_lstm_exp_neg16(utvm_lstm_wrap16(-abs_a), 3)), 1);
    result = (a > 0) ? pos : utvm_lstm_wrap16(32767 - pos);
  }
  return result;
}

/* gemmlowp tanh of a value with int_bits integer bits (0 .. 6); Q0.15 result. */
static int32_t utvm_lstm_tanh16(int32_t a, int32_t int_bits) {
  int32_t result;
  if (a == 0) {
    result = 0;
  } else {
    const int32_t n = (a < 0) ? a : utvm_lstm_wrap16(-a);
    const int32_t t = utvm_lstm_sat_shl16(utvm_lstm_wrap16(utvm_lstm_nr16(utvm_lstm_exp_neg16(n, int_bits + 1)) - 8192),
                                          2);
    result = (a < 0) ? utvm_lstm_wrap16(-t) : t;
  }
  return result;
}

/* gemmlowp SaturatingRoundingMultiplyByPOT<e>(int32) for 0 < e < 31: saturating left shift. */
static inline int32_t utvm_fx_sat_shl_lstm(int32_t x, int32_t e) {
  const int32_t threshold = utvm_pow2_i32(31 - e) - 1;
  int32_t result;
  if (x > threshold) {
    result = INT32_MAX;
  } else if (x < -threshold) {
    result = (int32_t)INT32_MIN;
  } else {
    result = utvm_shl_wrap_i32(x, e);
  }
  return result;
}

/* TFLite GetInvSqrtQuantizedMultiplierExp(input, reverse_shift = -1). */
static void utvm_lstm_inv_sqrt(int32_t input, int32_t* out_mult, int32_t* out_shift) {
  if (input <= 1) {
    *out_mult = INT32_MAX;
    *out_shift = 0;
  } else {
    int32_t v = input;
    int32_t shift = 11;
    int32_t pairs;
    int32_t half_input;
    int32_t x = utvm_pow2_i32(28);
    int32_t i;
    const int32_t half_three = utvm_pow2_i32(28) + utvm_pow2_i32(27);
    while (v >= utvm_pow2_i32(29)) {
      v /= 4;
      ++shift;
    }
    {
      uint32_t u = (uint32_t)v;
      int32_t clz = 0;
      while ((u & 0x80000000u) == 0u) {
        u <<= 1;
        ++clz;
      }
      pairs = ((clz - 1) / 2) - 1;
    }
    shift -= pairs;
    v = utvm_shl_wrap_i32(v, 2 * pairs);
    {
      const uint32_t half_v = (uint32_t)v >> 1u;   /* v > 0 */
      half_input = utvm_rounding_divide_by_pot((int32_t)half_v, 1);
    }
    for (i = 0; i < 5; ++i) {
      const int32_t x3 = utvm_fx_sat_shl_lstm(utvm_sat_rounding_doubling_high_mul(
          utvm_sat_rounding_doubling_high_mul(x, x), x), 6);
      const uint32_t diff = (uint32_t)utvm_sat_rounding_doubling_high_mul(half_three, x) -
                            (uint32_t)utvm_sat_rounding_doubling_high_mul(half_input, x3);
      x = utvm_fx_sat_shl_lstm((int32_t)diff, 3);
    }
    x = utvm_sat_rounding_doubling_high_mul(x, 1518500250);
    if (shift < 0) {
      x = utvm_shl_wrap_i32(x, -shift);
      shift = 0;
    }
    *out_mult = x;
    *out_shift = -shift;
  }
}

/* MatrixBatchVectorMultiplyAccumulate into int16 (gates) or int8 (projection, out8 != NULL):
 * out[b][r] = clamp(mbqm(bias[r] + sum_c x[b][c] w[r][c]) + zp + out[b][r]). */
static void utvm_lstm_matmul(const int8_t* x, const int32_t* bias, const int8_t* w, int32_t m, int32_t s,
                             int32_t n_batch, int32_t n_in, int32_t n_out, int32_t zp, int16_t* out16,
                             int8_t* out8) {
  int32_t b;
  int32_t r;
  int32_t c;
  for (b = 0; b < n_batch; ++b) {
    for (r = 0; r < n_out; ++r) {
      uint32_t acc = (uint32_t)bias[r];
      int32_t v;
      const int32_t idx = (b * n_out) + r;
      for (c = 0; c < n_in; ++c) {
        const int32_t prod = (int32_t)x[(b * n_in) + c] * (int32_t)w[(r * n_in) + c];
        acc += (uint32_t)prod;
      }
      v = utvm_mul_by_quantized_mul((int32_t)acc, m, s) + zp;
      if (out8 != NULL) {
        out8[idx] = (int8_t)utvm_clamp_i32(v + (int32_t)out8[idx], -128, 127);
      } else {
        out16[idx] = (int16_t)utvm_lstm_sat16(v + (int32_t)out16[idx]);
      }
    }
  }
}

/* ApplyLayerNorm over each batch row of n_cell int16 values, in place. */
static void utvm_lstm_layer_norm(int16_t* gate, const int16_t* weights, const int32_t* bias, int32_t m, int32_t s,
                                 int32_t guard, int32_t n_batch, int32_t n_cell) {
  int32_t b;
  int32_t j;
  for (b = 0; b < n_batch; ++b) {
    int16_t* v = &gate[b * n_cell];
    int64_t sum = 0;
    int64_t sum_sq = 0;
    int32_t mean;
    int32_t variance2;
    int32_t inv_m;
    int32_t inv_s;
    int64_t variance;
    for (j = 0; j < n_cell; ++j) {
      sum += v[j];
      const int32_t sq = (int32_t)v[j] * (int32_t)v[j];
      sum_sq += (int64_t)sq;
    }
    mean = (int32_t)((sum * 1024) / n_cell);
    {
      const int32_t scale = 1048576 / n_cell;
      variance = (sum_sq * (int64_t)scale) - ((int64_t)mean * (int64_t)mean);
    }
    variance2 = (int32_t)(variance / 1048576);
    if (variance2 < 1) {
      variance2 = guard;
    }
    utvm_lstm_inv_sqrt(variance2, &inv_m, &inv_s);
    for (j = 0; j < n_cell; ++j) {
      const int32_t shifted = (1024 * (int32_t)v[j]) - mean;
      const int32_t rescaled = utvm_mul_by_quantized_mul(shifted, inv_m, inv_s);
      const uint32_t wrapped = ((uint32_t)rescaled * (uint32_t)(int32_t)weights[j]) + (uint32_t)bias[j];
      const int64_t val3 = (int64_t)(int32_t)wrapped;
      int64_t nudged = val3 - 512;
      int32_t val4;
      if (val3 > 0) {
        nudged = val3 + 512;
      }
      val4 = (int32_t)(nudged / 1024);
      v[j] = (int16_t)utvm_lstm_sat16(utvm_mul_by_quantized_mul(val4, m, s + 12));
    }
  }
}

/* One gate for nb batch vectors: gate[nb][n_cell] (CalculateLstmGateInteger8x8_16). kind 0: sigmoid,
 * 1: tanh. cell_w NULL: no peephole; ln NULL: no layer norm. */
static void utvm_lstm_s8_gate(const utvm_lstm_s8_params* p, int32_t g, int32_t nb, const int8_t* x,
                              const int8_t* h, const int16_t* c, const int8_t* w, const int8_t* r,
                              const int16_t* cell_w, const int16_t* ln, const int32_t* ln_bias,
                              const int32_t* bias, int32_t kind, int16_t* gate) {
  const int32_t n = nb * p->n_cell;
  int32_t k;
  for (k = 0; k < n; ++k) {
    gate[k] = 0;
  }
  utvm_lstm_matmul(x, &bias[2 * g * p->n_cell], w, p->in_m[g], p->in_s[g], nb, p->n_input, p->n_cell, 0, gate,
                   NULL);
  utvm_lstm_matmul(h, &bias[((2 * g) + 1) * p->n_cell], r, p->rec_m[g], p->rec_s[g], nb, p->n_output, p->n_cell, 0,
                   gate, NULL);
  if (cell_w != NULL) {
    /* VectorBatchVectorCwiseProductAccumulate(cell_w, n_output, c, nb, ...), as the reference calls it */
    for (k = 0; k < (nb * p->n_output); ++k) {
      const int32_t prod = utvm_mul_by_quantized_mul((int32_t)cell_w[k % p->n_output] * (int32_t)c[k], p->cell_m[g],
                                                     p->cell_s[g]);
      gate[k] = (int16_t)utvm_lstm_sat16(prod + (int32_t)gate[k]);
    }
  }
  if (ln != NULL) {
    utvm_lstm_layer_norm(gate, ln, ln_bias, p->ln_m[g], p->ln_s[g], p->guard[g], nb, p->n_cell);
  }
  for (k = 0; k < n; ++k) {
    gate[k] = (int16_t)((kind == 0) ? utvm_lstm_sigmoid16(gate[k]) : utvm_lstm_tanh16(gate[k], 3));
  }
}

/* One step for nb batch vectors (LstmStepInteger8x8_16). */
static void utvm_lstm_s8_step(const utvm_lstm_s8_params* p, int32_t nb, const int8_t* x, const int8_t* w_ii,
                              const int8_t* w_if, const int8_t* w_ic, const int8_t* w_io, const int8_t* w_ri,
                              const int8_t* w_rf, const int8_t* w_rc, const int8_t* w_ro, const int16_t* c_i,
                              const int16_t* c_f, const int16_t* c_o, const int32_t* b_i, const int32_t* b_f,
                              const int32_t* b_c, const int32_t* b_o, const int8_t* proj_w, const int32_t* bias,
                              int8_t* h, int16_t* c, const int16_t* ln_i, const int16_t* ln_f,
                              const int16_t* ln_c, const int16_t* ln_o, int8_t* out, int16_t* scratch) {
  const int32_t n = p->n_batch * p->n_cell;
  const int32_t nc = nb * p->n_cell;
  int16_t* ig = scratch;
  int16_t* fg = &scratch[n];
  int16_t* cg = &scratch[2 * n];
  int16_t* og = &scratch[3 * n];
  const int16_t* tc = &scratch[4 * n];
  int16_t* tanh_c = &scratch[4 * n];
  int8_t* hidden = (int8_t*)&scratch[5 * n];
  int32_t k;
  if (w_ii != NULL) {
    utvm_lstm_s8_gate(p, 0, nb, x, h, c, w_ii, w_ri, c_i, ln_i, b_i, bias, 0, ig);
  }
  utvm_lstm_s8_gate(p, 1, nb, x, h, c, w_if, w_rf, c_f, ln_f, b_f, bias, 0, fg);
  utvm_lstm_s8_gate(p, 2, nb, x, h, c, w_ic, w_rc, NULL, ln_c, b_c, bias, 1, cg);
  /* UpdateLstmCellInteger */
  for (k = 0; k < nc; ++k) {
    const int32_t kept = utvm_lstm_wrap16(utvm_rounding_divide_by_pot((int32_t)fg[k] * (int32_t)c[k], 15));
    const int32_t in_gate = (w_ii != NULL) ? (int32_t)ig[k] : (32767 - (int32_t)fg[k]);
    const int32_t added = utvm_lstm_wrap16(utvm_rounding_divide_by_pot(in_gate * (int32_t)cg[k], 30 + p->cell_scale));
    int32_t v = utvm_lstm_sat16(kept + added);
    if (p->cell_clip > 0) {
      v = utvm_clamp_i32(v, -p->cell_clip, p->cell_clip);
    }
    c[k] = (int16_t)v;
  }
  utvm_lstm_s8_gate(p, 3, nb, x, h, c, w_io, w_ro, c_o, ln_o, b_o, bias, 0, og);
  /* CalculateLstmOutputInteger8x8_16 */
  if (((15 + p->cell_scale) >= 0) && ((15 + p->cell_scale) <= 6)) {
    for (k = 0; k < nc; ++k) {
      tanh_c[k] = (int16_t)utvm_lstm_tanh16(c[k], 15 + p->cell_scale);
    }
  } else {
    /* The reference's ApplyTanh supports 0..6 integer bits and writes nothing otherwise: its output
     * buffer (scratch0) still holds this step's input gate (CIFG is refused at compile time). */
    tc = ig;
  }
  for (k = 0; k < nc; ++k) {
    const int32_t v = utvm_mul_by_quantized_mul((int32_t)og[k] * (int32_t)tc[k], p->hidden_m, p->hidden_s);
    hidden[k] = (int8_t)utvm_clamp_i32(v + p->hidden_zp, -128, 127);
  }
  if (proj_w != NULL) {
    for (k = 0; k < (nb * p->n_output); ++k) {
      h[k] = 0;
    }
    utvm_lstm_matmul(hidden, &bias[8 * p->n_cell], proj_w, p->proj_m, p->proj_s, nb, p->n_cell, p->n_output,
                     p->output_state_zp, NULL, h);
    if (p->proj_clip > 0) {
      for (k = 0; k < (nb * p->n_output); ++k) {
        h[k] = (int8_t)utvm_clamp_i32(h[k], -p->proj_clip, p->proj_clip);
      }
    }
  } else {
    for (k = 0; k < (nb * p->n_output); ++k) {
      h[k] = hidden[k];
    }
  }
  for (k = 0; k < (nb * p->n_output); ++k) {
    out[k] = h[k];
  }
}

UTVM_LSTM_KERNEL(utvm_lstm_s8, utvm_lstm_s8_params, int8_t, int16_t, int32_t) {
  int32_t t;
  int32_t b;
  if (p->time_major != 0) {
    for (t = 0; t < p->n_time; ++t) {
      utvm_lstm_s8_step(p, p->n_batch, &in[t * p->n_batch * p->n_input], w_ii, w_if, w_ic, w_io, w_ri, w_rf, w_rc,
                        w_ro, c_i, c_f, c_o, b_i, b_f, b_c, b_o, proj_w, bias, h_state, c_state, ln_i, ln_f, ln_c,
                        ln_o, &out[t * p->n_batch * p->n_output], scratch);
    }
  } else {
    for (b = 0; b < p->n_batch; ++b) {
      for (t = 0; t < p->n_time; ++t) {
        const int32_t row = (b * p->n_time) + t;
        utvm_lstm_s8_step(p, 1, &in[row * p->n_input], w_ii, w_if, w_ic, w_io, w_ri, w_rf, w_rc, w_ro, c_i, c_f,
                          c_o, b_i, b_f, b_c, b_o, proj_w, bias, &h_state[b * p->n_output],
                          &c_state[b * p->n_cell], ln_i, ln_f, ln_c, ln_o, &out[row * p->n_output], scratch);
      }
    }
  }
}

#endif /* UTVM_KERNELS_LSTM_S8_H_ */
