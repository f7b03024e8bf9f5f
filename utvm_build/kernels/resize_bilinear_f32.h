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

static void utvm_resize_bilinear_f32(const utvm_resize_bilinear_params* p, const int32_t* rows,
                                     const float* dy, const int32_t* cols, const float* dx, const float* in,
                                     float* out) {
  const size_t depth = (size_t)p->depth;
  int32_t b;
  int32_t y;
  int32_t x;
  int32_t c;
  float* o = out;
  for (b = 0; b < p->batch; ++b) {
    const size_t plane = (size_t)b * (size_t)p->in_h;
    for (y = 0; y < p->out_h; ++y) {
      const size_t r0 = (plane + (size_t)rows[2 * y]) * (size_t)p->in_w;
      const size_t r1 = (plane + (size_t)rows[(2 * y) + 1]) * (size_t)p->in_w;
      const float wy = dy[y];
      const float wy1 = 1.0f - wy;
      for (x = 0; x < p->out_w; ++x) {
        const float* v00 = &in[(r0 + (size_t)cols[2 * x]) * depth];
        const float* v10 = &in[(r1 + (size_t)cols[2 * x]) * depth];
        const float* v01 = &in[(r0 + (size_t)cols[(2 * x) + 1]) * depth];
        const float* v11 = &in[(r1 + (size_t)cols[(2 * x) + 1]) * depth];
        const float wx = dx[x];
        const float wx1 = 1.0f - wx;
        for (c = 0; c < p->depth; ++c) {
          const float t00 = (v00[c] * wy1) * wx1;
          const float t10 = (v10[c] * wy) * wx1;
          const float t01 = (v01[c] * wy1) * wx;
          const float t11 = (v11[c] * wy) * wx;
          o[c] = ((t00 + t10) + t01) + t11;
        }
        o = &o[depth];
      }
    }
  }
}

#endif /* UTVM_KERNELS_RESIZE_BILINEAR_F32_H_ */
