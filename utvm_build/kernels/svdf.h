/* utvm-build kernels: SVDF integer parameter struct and the loops of every SVDF kernel
 * (kernels: svdf_{s8,s8_s8,f32}.h; svdf_f32.h has its own struct).
 *
 * state[b][f][0 .. memory_size) is a variable tensor that persists between runs. Each run shifts it
 * left by one element (as std::copy over the whole buffer in the reference; the last element of
 * every filter row is overwritten next), writes the new feature activation
 * dot(weights_feature[f], input[b]) into the last column, then
 * out[b][u] = bias[u] + sum_{r < rank} dot(weights_time[u * rank + r], state[b][u * rank + r]).
 */
#ifndef UTVM_KERNELS_SVDF_H_
#define UTVM_KERNELS_SVDF_H_

#include <string.h>

#include "common.h"

/* The shape both parameter structs start with (svdf_f32.h has the float one). */
#define UTVM_SVDF_SHAPE_FIELDS  \
  int32_t batches;              \
  int32_t input_size;           \
  int32_t num_filters;          \
  int32_t memory_size;          \
  int32_t rank;                 \
  int32_t num_units;

typedef struct {
  UTVM_SVDF_SHAPE_FIELDS
  int32_t input_offset;     /* -input zero point */
  int32_t state_zero_point; /* int8 state only (TFLM); 0 for int16 state */
  int32_t output_offset;
  int32_t multiplier_1;     /* input * weights_feature -> state */
  int32_t shift_1;
  int32_t multiplier_2;     /* state * weights_time -> output */
  int32_t shift_2;
} utvm_svdf_q_params;

/* The two loops of every SVDF kernel, written once (the type files give the element operations,
 * static inline functions; the macros expand in place, at no run-time cost).
 *
 * row is memory_size * num_filters (the state of one batch), computed once by the caller.
 * Features: the state shifted one element left over all batches (std::copy in the reference), then
 * for each batch b and filter f, ACC dot = 0, dot = MAC(p, dot, weights_feature[f][i], in[b][i])
 * over the input, and the state's last column (type S) takes STORE(p, dot). */
#define UTVM_SVDF_FEATURES(p, row, in, weights_feature, state, T, S, ACC, MAC, STORE)               \
  do {                                                                                              \
    int32_t b_;                                                                                     \
    int32_t f_;                                                                                     \
    int32_t i_;                                                                                     \
    const int32_t moved_ = ((p)->batches * (row)) - 1; /* state elements shifted one place left */  \
    (void)memmove((state), &(state)[1], (size_t)moved_ * sizeof((state)[0]));                       \
    for (b_ = 0; b_ < (p)->batches; ++b_) {                                                         \
      const T* x_ = &(in)[b_ * (p)->input_size];                                                    \
      for (f_ = 0; f_ < (p)->num_filters; ++f_) {                                                   \
        const T* w_ = &(weights_feature)[f_ * (p)->input_size];                                     \
        ACC dot_ = (ACC)0;                                                                          \
        for (i_ = 0; i_ < (p)->input_size; ++i_) {                                                  \
          dot_ = MAC((p), dot_, w_[i_], x_[i_]);                                                    \
        }                                                                                           \
        const S new_ = STORE((p), dot_); /* before the index: nothing held across its calls */      \
        (state)[(b_ * (row)) + (f_ * (p)->memory_size) + (p)->memory_size - 1] = new_;              \
      }                                                                                             \
    }                                                                                               \
  } while (0)

/* Time: for each batch b and unit u, ACC acc = BIAS(bias, u), plus for each of the unit's rank
 * filters the sum over the memory of TMAC(p, total, weights_time[filter][i], state[b][filter][i]);
 * out[b][u] = FINISH(p, acc) (type O). */
#define UTVM_SVDF_TIME(p, row, weights_time, bias, state, out, S, W, O, ACC, BIAS, TMAC, FINISH)  \
  do {                                                                                            \
    int32_t b_;                                                                                   \
    int32_t u_;                                                                                   \
    int32_t r_;                                                                                   \
    int32_t i_;                                                                                   \
    for (b_ = 0; b_ < (p)->batches; ++b_) {                                                       \
      for (u_ = 0; u_ < (p)->num_units; ++u_) {                                                   \
        ACC acc_ = BIAS((bias), u_);                                                              \
        for (r_ = 0; r_ < (p)->rank; ++r_) {                                                      \
          const int32_t filter_ = (u_ * (p)->rank) + r_;                                          \
          const W* wt_ = &(weights_time)[filter_ * (p)->memory_size];                             \
          const S* s_ = &(state)[(b_ * (row)) + (filter_ * (p)->memory_size)];                    \
          ACC total_ = (ACC)0;                                                                    \
          for (i_ = 0; i_ < (p)->memory_size; ++i_) {                                             \
            total_ = TMAC((p), total_, wt_[i_], s_[i_]);                                          \
          }                                                                                       \
          acc_ += total_;                                                                         \
        }                                                                                         \
        const O y_ = FINISH((p), acc_);                                                           \
        (out)[(b_ * (p)->num_units) + u_] = y_;                                                   \
      }                                                                                           \
    }                                                                                             \
  } while (0)


/* The integer kernels' feature dot product (int32, the input offset added to each input) and
 * their time sums: int32 sums that wrap as the reference's do in practice, accumulated modulo
 * 2^32 in uint32_t, where that is defined. */
static inline int32_t utvm_svdf_q_feature_mac(const utvm_svdf_q_params* p, int32_t dot, int8_t w, int8_t x) {
  return dot + ((int32_t)w * ((int32_t)x + p->input_offset));
}

static inline uint32_t utvm_svdf_q_bias(const int32_t* bias, int32_t u) {
  return (bias != NULL) ? (uint32_t)bias[u] : 0u;
}

/* The time products of the int16-state (TFLite) and int8-state (TFLM: minus the state zero
 * point) kernels. */
static inline uint32_t utvm_svdf_s8_time_mac(const utvm_svdf_q_params* p, uint32_t total, int16_t wt, int16_t s) {
  const int32_t prod = (int32_t)wt * (int32_t)s;
  (void)p;
  return total + (uint32_t)prod;
}

static inline uint32_t utvm_svdf_s8_s8_time_mac(const utvm_svdf_q_params* p, uint32_t total, int8_t wt, int8_t s) {
  const int32_t prod = (int32_t)wt * ((int32_t)s - p->state_zero_point);
  return total + (uint32_t)prod;
}

/* Every integer SVDF kernel: int8 input and output, weights_time and state of type S (int16 or
 * int8), the new activation stored by STORE, the time products by TMAC, the sums in uint32_t
 * from the int32 bias, the output requantized to int8. */
#define UTVM_SVDF_Q(p, in, weights_feature, weights_time, bias, state, out, S, STORE, TMAC)                         \
  do {                                                                                                              \
    const int32_t row_q_ = (p)->memory_size * (p)->num_filters;                                                     \
    UTVM_SVDF_FEATURES(p, row_q_, in, weights_feature, state, int8_t, S, int32_t, utvm_svdf_q_feature_mac, STORE);  \
    UTVM_SVDF_TIME(p, row_q_, weights_time, bias, state, out, S, S, int8_t, uint32_t, utvm_svdf_q_bias, TMAC,       \
                   utvm_svdf_q_out);                                                                                \
  } while (0)

static inline int8_t utvm_svdf_q_out(const utvm_svdf_q_params* p, uint32_t acc) {
  const int32_t v = utvm_mul_by_quantized_mul((int32_t)acc, p->multiplier_2, p->shift_2) + p->output_offset;
  return (int8_t)utvm_clamp_i32(v, -128, 127);
}

#endif /* UTVM_KERNELS_SVDF_H_ */
