/* utvm-build kernels: dynamic-range ("hybrid") operators: float32 activations, int8 constant weights
 * (kernels: hybrid_quantize.h, hybrid_fc.h, hybrid_conv.h).
 *
 * As TFLite's hybrid kernels (tensor_utils portable code, fully_connected.cc EvalHybridDense,
 * conv.cc EvalHybrid / EvalHybridPerChannel, depthwise_conv.cc EvalHybridPerChannel): every batch
 * of the float input is quantized to int8 at run time (symmetric: scale max|x| / 127, zero point
 * 0; asymmetric: the [min(x,0), max(x,0)] range over 255 steps with a nudged zero point, computed
 * in double as the reference does), the products with the int8 weights accumulate in int32, and
 * the accumulator is scaled back in float (input scale x weight scale) and added to the float
 * bias. The reference computes these steps in float/double; so does this C.
 */
#ifndef UTVM_KERNELS_HYBRID_H_
#define UTVM_KERNELS_HYBRID_H_

#include <math.h>

#include "common.h"

typedef struct {
  int32_t batches;
  int32_t batch_size;        /* elements quantized together (one scale per batch) */
  int32_t asymmetric;        /* 1: AsymmetricQuantizeFloats, 0: SymmetricQuantizeFloats */
  int32_t fold_filter_scale; /* per-tensor weights: scaling_factor *= filter_scale */
  float filter_scale;
} utvm_hybrid_q_params;

/* static_cast<int32_t>(v) of a rounded float: values outside int32 (and NaN) give INT32_MIN, as
 * the x86 conversion instruction of the reference build does (in C the cast would be undefined). */
static inline int32_t utvm_hybrid_to_i32(float v) {
  int32_t r = (int32_t)INT32_MIN;
  if ((v >= -2147483648.0f) && (v < 2147483648.0f)) {
    r = (int32_t)v;
  }
  return r;
}

#endif /* UTVM_KERNELS_HYBRID_H_ */
