/* utvm-build kernels: ABS, int16 (TFLite elementwise.cc).
 * Quantized (zero points 0): |x|, rescaled by MultiplyByQuantizedMultiplier when the scales differ,
 * saturated to int16. Unquantized: static_cast<int16_t>(abs(int32 x)) (-32768 stays -32768). */
#ifndef UTVM_KERNELS_ABS_S16_H_
#define UTVM_KERNELS_ABS_S16_H_

#include "common.h"

typedef struct {
  int32_t quantized;     /* 0: plain integer abs */
  int32_t needs_rescale; /* input scale != output scale */
  int32_t multiplier;
  int32_t shift;
} utvm_abs_s16_params;

static void utvm_abs_s16(const utvm_abs_s16_params* p, int32_t size, const int16_t* in, int16_t* out) {
  int32_t i;
  for (i = 0; i < size; ++i) {
    const int32_t v = (in[i] < 0) ? -(int32_t)in[i] : (int32_t)in[i];
    int32_t r;
    if (p->quantized == 0) {
      r = (v > 32767) ? -32768 : v;
    } else if (p->needs_rescale == 0) {
      r = utvm_min_i32(v, 32767);
    } else {
      r = utvm_clamp_i32(utvm_mul_by_quantized_mul(v, p->multiplier, p->shift), -32768, 32767);
    }
    out[i] = (int16_t)r;
  }
}

#endif /* UTVM_KERNELS_ABS_S16_H_ */
