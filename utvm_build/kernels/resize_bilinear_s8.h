/* utvm-build kernels: RESIZE_BILINEAR, int8_t (reference_ops::ResizeBilinearInteger).
 *
 * rows[2y], rows[2y+1] = y0, y1 and wy[y] = input_y - 1024 y0 (10-bit fixed point, as the
 * reference's ComputeInterpolationValuesInteger computes them; the generator does that), the
 * same for columns. Four int64 products, summed, rounded half away from zero at 2^20 (the
 * reference's double-rounding build: (sum +/- 2^19) / 2^20, truncating) and narrowed to int8_t as
 * the reference's static_cast does. No quantization parameters are used: the reference copies
 * the input's scale.
 */
#ifndef UTVM_KERNELS_RESIZE_BILINEAR_S8_H_
#define UTVM_KERNELS_RESIZE_BILINEAR_S8_H_

#include "resize_bilinear.h"

static void utvm_resize_bilinear_s8(const utvm_resize_bilinear_params* p, const int32_t* rows, const int32_t* wy,
                                    const int32_t* cols, const int32_t* wx, const int8_t* in, int8_t* out) {
  const size_t depth = (size_t)p->depth;
  int32_t b;
  int32_t y;
  int32_t x;
  int32_t c;
  int8_t* o = out;
  for (b = 0; b < p->batch; ++b) {
    const size_t plane = (size_t)b * (size_t)p->in_h;
    for (y = 0; y < p->out_h; ++y) {
      const size_t r0 = (plane + (size_t)rows[2 * y]) * (size_t)p->in_w;
      const size_t r1 = (plane + (size_t)rows[(2 * y) + 1]) * (size_t)p->in_w;
      const int64_t fy = (int64_t)wy[y];
      const int64_t fy1 = 1024 - fy;
      for (x = 0; x < p->out_w; ++x) {
        const int8_t* v00 = &in[(r0 + (size_t)cols[2 * x]) * depth];
        const int8_t* v10 = &in[(r1 + (size_t)cols[2 * x]) * depth];
        const int8_t* v01 = &in[(r0 + (size_t)cols[(2 * x) + 1]) * depth];
        const int8_t* v11 = &in[(r1 + (size_t)cols[(2 * x) + 1]) * depth];
        const int64_t fx = (int64_t)wx[x];
        const int64_t fx1 = 1024 - fx;
        for (c = 0; c < p->depth; ++c) {
          const int64_t sum = ((((int64_t)v00[c] * fy1) * fx1) + (((int64_t)v10[c] * fy) * fx1)) +
                              ((((int64_t)v01[c] * fy1) * fx) + (((int64_t)v11[c] * fy) * fx));
          const int64_t round = (sum > 0) ? INT64_C(524288) : -INT64_C(524288);
          o[c] = (int8_t)((sum + round) / INT64_C(1048576));
        }
        o = &o[depth];
      }
    }
  }
}

#endif /* UTVM_KERNELS_RESIZE_BILINEAR_S8_H_ */
