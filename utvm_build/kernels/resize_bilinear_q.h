/* utvm-build kernels: RESIZE_BILINEAR, int8_t and int16_t (reference_ops::ResizeBilinearInteger).
 *
 * rows[2y], rows[2y+1] = y0, y1 and wy[y] = input_y - 1024 y0 (10-bit fixed point, as the
 * reference's ComputeInterpolationValuesInteger computes them; the generator does that), the
 * same for columns. Four int64 products, summed, rounded half away from zero at 2^20 (the
 * reference's double-rounding build: (sum +/- 2^19) / 2^20, truncating) and narrowed to the
 * element type as the reference's static_cast does. No quantization parameters are used: the
 * reference copies the input's scale. Both types live in this one file (static inline: a model
 * that uses one of them does not compile the other), their walk is UTVM_RESIZE_BILINEAR_WALK.
 */
#ifndef UTVM_KERNELS_RESIZE_BILINEAR_Q_H_
#define UTVM_KERNELS_RESIZE_BILINEAR_Q_H_

#include "resize_bilinear.h"

static inline void utvm_resize_bilinear_s8(const utvm_resize_bilinear_params* p, const int32_t* rows,
                                           const int32_t* wy, const int32_t* cols, const int32_t* wx,
                                           const int8_t* in, int8_t* out) {
  UTVM_RESIZE_BILINEAR_WALK(p, rows, wy, cols, wx, in, out, int8_t, int64_t, 1024, utvm_resize_bilinear_q);
}

/* int16_t: the same walk and interpolation, only the element type differs. */
static inline void utvm_resize_bilinear_s16(const utvm_resize_bilinear_params* p, const int32_t* rows,
                                            const int32_t* wy, const int32_t* cols, const int32_t* wx,
                                            const int16_t* in, int16_t* out) {
  UTVM_RESIZE_BILINEAR_WALK(p, rows, wy, cols, wx, in, out, int16_t, int64_t, 1024, utvm_resize_bilinear_q);
}

#endif /* UTVM_KERNELS_RESIZE_BILINEAR_Q_H_ */
