/* utvm-build kernels: hybrid EMBEDDING_LOOKUP: int8 rows, float32 output.
 *
 * TFLite embedding_lookup.cc EvalHybrid: output = value * scale, the scale of the tensor or, for
 * a per-row (axis 0) quantized table, of the row; the product is taken in double there. An int8
 * times a float32 scale is exact in double (at most 32 significant bits), so rounding it once to
 * float equals the float32 product computed here, bit for bit. The reference fails on an index
 * outside [0, rows); here that row of the output is +0.0f (no access outside the table).
 */
#ifndef UTVM_KERNELS_EMBEDDING_LOOKUP_HYBRID_H_
#define UTVM_KERNELS_EMBEDDING_LOOKUP_HYBRID_H_

#include "common.h"

typedef struct {
  int32_t lookups;
  int32_t rows;
  int32_t cols;
  int32_t per_row;   /* 1: scales[row], 0: scales[0] */
} utvm_embedding_hybrid_params;

static void utvm_embedding_lookup_hybrid(const utvm_embedding_hybrid_params* p, const int32_t* lookup,
                                         const int8_t* value, const float* scales, float* out) {
  int32_t i;
  int32_t j;
  for (i = 0; i < p->lookups; ++i) {
    const int32_t r = lookup[i];
    float* o = &out[(size_t)i * (size_t)p->cols];
    if ((r >= 0) && (r < p->rows)) {
      const float s = scales[(p->per_row != 0) ? r : 0];
      const int8_t* v = &value[(size_t)r * (size_t)p->cols];
      for (j = 0; j < p->cols; ++j) {
        o[j] = (float)v[j] * s;
      }
    } else {
      for (j = 0; j < p->cols; ++j) {
        o[j] = 0.0f;
      }
    }
  }
}

#endif /* UTVM_KERNELS_EMBEDDING_LOOKUP_HYBRID_H_ */
