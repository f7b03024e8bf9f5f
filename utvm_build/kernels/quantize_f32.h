/* utvm-build kernels: QUANTIZE float32 -> int8 / int16.
 *
 * TFLite reference_ops::AffineQuantize: q = (int32)TfLiteRound(x / (float)scale) + zero_point,
 * clamped to the output type. The reference itself computes in float here (a float32 division
 * and std::round on float), so this kernel does the same: roundf(x / scale), halves away from
 * zero. Where the reference is undefined (|x / scale| beyond int32, NaN), this kernel saturates
 * (NaN -> qmin) instead.
 */
#ifndef UTVM_KERNELS_QUANTIZE_F32_H_
#define UTVM_KERNELS_QUANTIZE_F32_H_

#include <math.h>

#include "quantize.h"

/* float32 -> int8/int16 (reference_ops::AffineQuantize). */
typedef struct {
  int32_t size;
  int32_t out_bits;
  float scale; /* output scale, float32 as in the reference's static_cast<float>(scale) */
  int32_t zero_point;
  int32_t qmin;
  int32_t qmax;
} utvm_quantize_f32_params;

static inline void utvm_quantize_f32_one(const utvm_quantize_f32_params* p, const float* in, void* out,
                                         int32_t i) {
  float r = roundf(in[i] / p->scale);
  int32_t q;
  /* any |r| >= 2^24 saturates the int8/int16 output anyway; keeps the cast defined */
  if (!(r >= -16777216.0f)) {
    r = -16777216.0f;
  }
  if (r > 16777216.0f) {
    r = 16777216.0f;
  }
  q = (int32_t)r + p->zero_point;
  utvm_q_store(out, p->out_bits, i, utvm_clamp_i32(q, p->qmin, p->qmax));
}

static void utvm_quantize_f32(const utvm_quantize_f32_params* p, const float* in, void* out) {
  UTVM_EACH_ELEMENT(p, utvm_quantize_f32_one, in, out);
}

#endif /* UTVM_KERNELS_QUANTIZE_F32_H_ */
