/* utvm-build kernels: element movement by per-dimension offset tables, for any element type.
 *
 * Serves every operator whose output element (i0, ..., i5) is the input element at byte offset
 * t0[i0] + t1[i1] + ... + t5[i5], the tables computed at compile time (ops/movement.py):
 * TRANSPOSE, SLICE, SPLIT, SPLIT_V, UNPACK, REVERSE_V2, BROADCAST_TO, MIRROR_PAD, DEPTH_TO_SPACE,
 * SPACE_TO_DEPTH, BATCH_TO_SPACE_ND, RESIZE_NEAREST_NEIGHBOR and GATHER with constant indices.
 * The output is written in order; each innermost step copies `run_bytes` contiguous bytes (the
 * trailing dimensions that stay contiguous, merged by the generator). The generator checks that
 * every table entry is >= 0 and that the largest sum plus `run_bytes` stays within the input, so
 * no offset can leave the input and no partial sum can overflow.
 */
#ifndef UTVM_KERNELS_GATHER_DIMS_H_
#define UTVM_KERNELS_GATHER_DIMS_H_

#include <string.h>

#include "common.h"

typedef struct {
  int32_t count[6];    /* output extent per dimension, outermost first */
  int32_t first[6];    /* index of dimension d's first entry in offsets[] */
  int32_t run_bytes;   /* contiguous bytes per innermost step */
} utvm_gather_dims_params;

static inline void utvm_gather_dims_step(uint8_t* dst, const uint8_t* src, size_t n) {
  if (n == 1u) {
    *dst = *src;
  } else if (n == 4u) {
    (void)memcpy(dst, src, 4u);
  } else {
    (void)memcpy(dst, src, n);
  }
}

static void utvm_gather_dims(const utvm_gather_dims_params* p, const int32_t* offsets, const void* in,
                             void* out) {
  const uint8_t* src = (const uint8_t*)in;
  uint8_t* dst = (uint8_t*)out;
  const size_t run = (size_t)p->run_bytes;
  const int32_t* t0 = &offsets[p->first[0]];
  const int32_t* t1 = &offsets[p->first[1]];
  const int32_t* t2 = &offsets[p->first[2]];
  const int32_t* t3 = &offsets[p->first[3]];
  const int32_t* t4 = &offsets[p->first[4]];
  const int32_t* t5 = &offsets[p->first[5]];
  int32_t i0;
  int32_t i1;
  int32_t i2;
  int32_t i3;
  int32_t i4;
  int32_t i5;
  for (i0 = 0; i0 < p->count[0]; ++i0) {
    const int32_t o0 = t0[i0];
    for (i1 = 0; i1 < p->count[1]; ++i1) {
      const int32_t o1 = o0 + t1[i1];
      for (i2 = 0; i2 < p->count[2]; ++i2) {
        const int32_t o2 = o1 + t2[i2];
        for (i3 = 0; i3 < p->count[3]; ++i3) {
          const int32_t o3 = o2 + t3[i3];
          for (i4 = 0; i4 < p->count[4]; ++i4) {
            const int32_t o4 = o3 + t4[i4];
            for (i5 = 0; i5 < p->count[5]; ++i5) {
              utvm_gather_dims_step(dst, &src[o4 + t5[i5]], run);
              dst = &dst[run];
            }
          }
        }
      }
    }
  }
}

#endif /* UTVM_KERNELS_GATHER_DIMS_H_ */
