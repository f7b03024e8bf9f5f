/* utvm-build kernels: RESIZE_BILINEAR parameter struct and walk (resize_bilinear_f32.h, _q.h: the
 * element operation).
 * The generator computes, per output row and column, the two source rows/columns and the
 * weights exactly as the reference's ComputeInterpolationValues(Integer) does. */
#ifndef UTVM_KERNELS_RESIZE_BILINEAR_H_
#define UTVM_KERNELS_RESIZE_BILINEAR_H_

#include "common.h"

typedef struct {
  int32_t batch;
  int32_t in_h;
  int32_t in_w;
  int32_t out_h;
  int32_t out_w;
  int32_t depth;
} utvm_resize_bilinear_params;

/* The walk of every RESIZE_BILINEAR kernel, written once: for each output pixel the four source
 * pixels v00 (y0, x0), v10 (y1, x0), v01 (y0, x1), v11 (y1, x1) and, per channel,
 * out = (T)LERP(v00, v10, v01, v11, wy, 1 - wy, wx, 1 - wx) with W the weights' type and ONE the
 * weight 1 (1024 in the integer kernels' 10-bit fixed point, 1.0f in float). LERP is the type's
 * static inline element operation; the macro expands in place, at no run-time cost. */
#define UTVM_RESIZE_BILINEAR_WALK(p, rows, wy, cols, wx, in, out, T, W, ONE, LERP)           \
  do {                                                                                       \
    const size_t depth_ = (size_t)(p)->depth;                                                \
    int32_t b_;                                                                              \
    int32_t y_;                                                                              \
    int32_t x_;                                                                              \
    int32_t c_;                                                                              \
    T* o_ = (out);                                                                           \
    for (b_ = 0; b_ < (p)->batch; ++b_) {                                                    \
      const size_t plane_ = (size_t)b_ * (size_t)(p)->in_h;                                  \
      for (y_ = 0; y_ < (p)->out_h; ++y_) {                                                  \
        const size_t r0_ = (plane_ + (size_t)(rows)[2 * y_]) * (size_t)(p)->in_w;            \
        const size_t r1_ = (plane_ + (size_t)(rows)[(2 * y_) + 1]) * (size_t)(p)->in_w;      \
        const W fy_ = (W)(wy)[y_];                                                           \
        const W fy1_ = (ONE) - fy_;                                                          \
        for (x_ = 0; x_ < (p)->out_w; ++x_) {                                                \
          const T* v00_ = &(in)[(r0_ + (size_t)(cols)[2 * x_]) * depth_];                    \
          const T* v10_ = &(in)[(r1_ + (size_t)(cols)[2 * x_]) * depth_];                    \
          const T* v01_ = &(in)[(r0_ + (size_t)(cols)[(2 * x_) + 1]) * depth_];              \
          const T* v11_ = &(in)[(r1_ + (size_t)(cols)[(2 * x_) + 1]) * depth_];              \
          const W fx_ = (W)(wx)[x_];                                                         \
          const W fx1_ = (ONE) - fx_;                                                        \
          for (c_ = 0; c_ < (p)->depth; ++c_) {                                              \
            o_[c_] = (T)LERP(v00_[c_], v10_[c_], v01_[c_], v11_[c_], fy_, fy1_, fx_, fx1_);  \
          }                                                                                  \
          o_ = &o_[depth_];                                                                  \
        }                                                                                    \
      }                                                                                      \
    }                                                                                        \
  } while (0)

/* The integer kernels' interpolation (int8 and int16 alike): four int64 products, summed,
 * rounded half away from zero at 2^20 (the reference's double-rounding build: (sum +/- 2^19) /
 * 2^20, truncating); the walk narrows it as the reference's static_cast does. */
static inline int64_t utvm_resize_bilinear_q(int64_t v00, int64_t v10, int64_t v01, int64_t v11, int64_t fy,
                                             int64_t fy1, int64_t fx, int64_t fx1) {
  const int64_t sum = (((v00 * fy1) * fx1) + ((v10 * fy) * fx1)) + (((v01 * fy1) * fx) + ((v11 * fy) * fx));
  const int64_t round = (sum > 0) ? INT64_C(524288) : -INT64_C(524288);
  return (sum + round) / INT64_C(1048576);
}

#endif /* UTVM_KERNELS_RESIZE_BILINEAR_H_ */
