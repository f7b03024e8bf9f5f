/* utvm-build kernels: RESIZE_BILINEAR, float32 (reference_ops::ResizeBilinear).
 *
 * rows[2y], rows[2y+1] = y0, y1 and dy[y] = input_y - y0 (float, as the reference computes it),
 * the same for columns. The four products and their sum are evaluated in the reference's order:
 * v00*(1-dy)*(1-dx) + v10*dy*(1-dx) + v01*(1-dy)*dx + v11*dy*dx, bit-exact when the compiler does
 * not contract them into fused multiply-adds (ISO C modes, e.g. -std=c99, do not).
 */
#ifndef UTVM_KERNELS_RESIZE_BILINEAR_F32_H_
#define UTVM_KERNELS_RESIZE_BILINEAR_F32_H_

#include "resize_bilinear.h"

static inline float utvm_resize_bilinear_f32_lerp(float v00, float v10, float v01, float v11, float wy, float wy1,
                                                  float wx, float wx1) {
  const float t00 = (v00 * wy1) * wx1;
  const float t10 = (v10 * wy) * wx1;
  const float t01 = (v01 * wy1) * wx;
  const float t11 = (v11 * wy) * wx;
  return ((t00 + t10) + t01) + t11;
}

static void utvm_resize_bilinear_f32(const utvm_resize_bilinear_params* p, const int32_t* rows,
                                     const float* dy, const int32_t* cols, const float* dx, const float* in,
                                     float* out) {
  UTVM_RESIZE_BILINEAR_WALK(p, rows, dy, cols, dx, in, out, float, float, 1.0f, utvm_resize_bilinear_f32_lerp);
}

#endif /* UTVM_KERNELS_RESIZE_BILINEAR_F32_H_ */
