/* utvm-build kernels: run-time input quantization of the hybrid operators (see hybrid.h):
 * tensor_utils::SymmetricQuantizeFloats / AsymmetricQuantizeFloats per batch. */
#ifndef UTVM_KERNELS_HYBRID_QUANTIZE_H_
#define UTVM_KERNELS_HYBRID_QUANTIZE_H_

#include "hybrid.h"

static inline void utvm_hybrid_minmax(const float* x, int32_t n, float* mn, float* mx) {
  float lo = x[0];
  float hi = x[0];
  int32_t i;
  for (i = 1; i < n; ++i) {
    if (x[i] < lo) {
      lo = x[i];
    }
    if (!(x[i] < hi)) {
      hi = x[i];
    }
  }
  *mn = lo;
  *mx = hi;
}

static inline void utvm_hybrid_symmetric(const float* x, int32_t n, int8_t* q, float* sf) {
  float lo;
  float hi;
  float range;
  int32_t i;
  utvm_hybrid_minmax(x, n, &lo, &hi);
  range = (fabsf(lo) < fabsf(hi)) ? fabsf(hi) : fabsf(lo);
  if (range == 0.0f) {
    for (i = 0; i < n; ++i) {
      q[i] = 0;
    }
    *sf = 1.0f;
  } else {
    const float inv = 127.0f / range;
    *sf = range / 127.0f;
    for (i = 0; i < n; ++i) {
      const int32_t v = utvm_hybrid_to_i32(roundf(x[i] * inv));
      q[i] = (int8_t)utvm_clamp_i32(v, -127, 127);
    }
  }
}

static inline void utvm_hybrid_asymmetric(const float* x, int32_t n, int8_t* q, float* sf, int32_t* offset) {
  float lo;
  float hi;
  double rmin;
  double rmax;
  int32_t i;
  utvm_hybrid_minmax(x, n, &lo, &hi);
  rmin = (double)((lo < 0.0f) ? lo : 0.0f);
  rmax = (double)((0.0f < hi) ? hi : 0.0f);
  if (rmin == rmax) {
    for (i = 0; i < n; ++i) {
      q[i] = 0;
    }
    *sf = 1.0f;
    *offset = 0;
  } else {
    const double scale = (rmax - rmin) / 255.0;
    const double zp_from_min = -128.0 - (rmin / scale);
    const double zp_from_max = 127.0 - (rmax / scale);
    const double err_min = 128.0 + fabs(rmin / scale);
    const double err_max = 127.0 + fabs(rmax / scale);
    const double zp = (err_min < err_max) ? zp_from_min : zp_from_max;
    int32_t nudged;
    float inv;
    if (zp <= -128.0) {
      nudged = -128;
    } else if (zp >= 127.0) {
      nudged = 127;
    } else if (zp != zp) {
      nudged = 0; /* NaN (non-finite inputs): the reference's int8 cast of it gives 0 on x86 */
    } else {
      nudged = (int32_t)round(zp);
    }
    *sf = (float)scale;
    *offset = nudged;
    inv = 1.0f / *sf;
    for (i = 0; i < n; ++i) {
      const int32_t v = utvm_hybrid_to_i32(roundf((float)nudged + (x[i] * inv)));
      q[i] = (int8_t)utvm_clamp_i32(v, -128, 127);
    }
  }
}

/* q: batches * batch_size int8; sf: batches floats; offset: batches int32 (0 when symmetric). */
static void utvm_hybrid_quantize(const utvm_hybrid_q_params* p, const float* in, int8_t* q, float* sf,
                                 int32_t* offset) {
  int32_t b;
  for (b = 0; b < p->batches; ++b) {
    const int32_t base = b * p->batch_size;
    if (p->asymmetric != 0) {
      utvm_hybrid_asymmetric(&in[base], p->batch_size, &q[base], &sf[b], &offset[b]);
    } else {
      utvm_hybrid_symmetric(&in[base], p->batch_size, &q[base], &sf[b]);
      offset[b] = 0;
    }
    if (p->fold_filter_scale != 0) {
      sf[b] = sf[b] * p->filter_scale;
    }
  }
}

#endif /* UTVM_KERNELS_HYBRID_QUANTIZE_H_ */
