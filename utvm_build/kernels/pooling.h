/* utvm-build kernels: AVERAGE_POOL_2D / MAX_POOL_2D parameter structs
 * and their window walk (kernels: pooling_{avg,max}_{s8,s16,f32}.h, pooling_l2_f32.h).
 *
 * Layout NHWC. Each window is clamped to the image as in TFLite's reference kernels
 * (internal/reference/pooling.h, internal/reference/integer_ops/pooling.h): taps in the padding
 * are skipped, the average divides by the number of taps inside the image.
 */
#ifndef UTVM_KERNELS_POOLING_H_
#define UTVM_KERNELS_POOLING_H_

#include "common.h"

/* The geometry both parameter structs start with (one list, so that they cannot drift apart). */
#define UTVM_POOL_GEOMETRY_FIELDS  \
  int32_t batches;                 \
  int32_t in_h;                    \
  int32_t in_w;                    \
  int32_t channels;                \
  int32_t out_h;                   \
  int32_t out_w;                   \
  int32_t stride_h;                \
  int32_t stride_w;                \
  int32_t filter_h;                \
  int32_t filter_w;                \
  int32_t pad_h;                   \
  int32_t pad_w;

typedef struct {
  UTVM_POOL_GEOMETRY_FIELDS
  int32_t act_min;
  int32_t act_max;
} utvm_pool_q_params;

typedef struct {
  UTVM_POOL_GEOMETRY_FIELDS
  float act_min;
  float act_max;
} utvm_pool_f32_params;

/* The window of output (out_y, out_x) clamped to the image: filter rows [*fy0, *fy1), columns
 * [*fx0, *fx1), relative to the input origin (*iy, *ix). */
#define UTVM_POOL_WINDOW(p, out_y, out_x, iy, ix, fy0, fy1, fx0, fx1)  \
  do {                                                                 \
    (ix) = (out_x) * (p)->stride_w - (p)->pad_w;                       \
    (iy) = (out_y) * (p)->stride_h - (p)->pad_h;                       \
    (fx0) = utvm_max_i32(0, -(ix));                                    \
    (fx1) = utvm_min_i32((p)->filter_w, (p)->in_w - (ix));             \
    (fy0) = utvm_max_i32(0, -(iy));                                    \
    (fy1) = utvm_min_i32((p)->filter_h, (p)->in_h - (iy));             \
  } while (0)

/* Integer AVERAGE_POOL_2D's element operations (int8 and int16 alike): the sum of the taps (a
 * macro: as an inline function GCC 12 allocates the window loop's registers worse, +6 bytes at
 * -Os on Cortex-M4), and the average rounded half away from zero (C division truncates, as in the reference; count > 0),
 * clamped to the activation range. */
#define UTVM_POOL_ADD_I32(acc, v) ((acc) + (int32_t)(v))

static inline int32_t utvm_pool_avg_q_out(const utvm_pool_q_params* p, int32_t acc, int32_t count) {
  const int32_t avg = (acc > 0) ? ((acc + (count / 2)) / count) : ((acc - (count / 2)) / count);
  return utvm_clamp_i32(avg, p->act_min, p->act_max);
}

/* Integer MAX_POOL_2D's output: the largest tap, clamped to the activation range. */
static inline int32_t utvm_pool_max_q_out(const utvm_pool_q_params* p, int32_t m, int32_t count) {
  (void)count;
  return utvm_clamp_i32(m, p->act_min, p->act_max);
}

/* The window walk of every pooling kernel (pooling_{avg,max,l2}_*.h), written once: for each
 * output element (b, oy, ox, c), ACC acc = INIT, then acc = TAP(acc, v) for every input value v
 * of the window inside the image (rows outer, in the reference's order), and the output is
 * (T)FINISH(p, acc, count) with count the number of those taps (> 0: checked at code generation).
 * TAP and FINISH are the type's static inline element operations; the macro expands in place,
 * so a kernel costs what the loops spelled out by hand cost. */
#define UTVM_POOL_WALK(T, p, in, out, ACC, INIT, TAP, FINISH)                                        \
  do {                                                                                               \
    int32_t b_;                                                                                      \
    int32_t oy_;                                                                                     \
    int32_t ox_;                                                                                     \
    int32_t c_;                                                                                      \
    for (b_ = 0; b_ < (p)->batches; ++b_) {                                                          \
      for (oy_ = 0; oy_ < (p)->out_h; ++oy_) {                                                       \
        for (ox_ = 0; ox_ < (p)->out_w; ++ox_) {                                                     \
          int32_t iy_;                                                                               \
          int32_t ix_;                                                                               \
          int32_t fy0_;                                                                              \
          int32_t fy1_;                                                                              \
          int32_t fx0_;                                                                              \
          int32_t fx1_;                                                                              \
          UTVM_POOL_WINDOW(p, oy_, ox_, iy_, ix_, fy0_, fy1_, fx0_, fx1_);                           \
          for (c_ = 0; c_ < (p)->channels; ++c_) {                                                   \
            int32_t fy_;                                                                             \
            int32_t fx_;                                                                             \
            ACC acc_ = (INIT);                                                                       \
            int32_t count_ = 0;                                                                      \
            for (fy_ = fy0_; fy_ < fy1_; ++fy_) {                                                    \
              for (fx_ = fx0_; fx_ < fx1_; ++fx_) {                                                  \
                acc_ = TAP(acc_, (in)[(((((b_ * (p)->in_h) + iy_ + fy_) * (p)->in_w) + ix_ + fx_) *  \
                                       (p)->channels) + c_]);                                        \
                ++count_;                                                                            \
              }                                                                                      \
            }                                                                                        \
            (out)[(((((b_ * (p)->out_h) + oy_) * (p)->out_w) + ox_) * (p)->channels) + c_] =         \
                (T)FINISH((p), acc_, count_);                                                        \
          }                                                                                          \
        }                                                                                            \
      }                                                                                              \
    }                                                                                                \
  } while (0)

#endif /* UTVM_KERNELS_POOLING_H_ */
