/* utvm-build kernels: SPACE_TO_BATCH_ND for any element type (reference SpaceToBatchND on the
 * 4-D view; 3-D inputs are [batch, height, 1, depth]).
 *
 * Output batch ob takes input batch ob % in_batch at the spatial shift (ob / in_batch) of the
 * block; positions in the padding are filled byte-wise with `pad_byte` (the reference memsets
 * the output offset: the zero point for int8, 0 for float32).
 */
#ifndef UTVM_KERNELS_SPACE_TO_BATCH_H_
#define UTVM_KERNELS_SPACE_TO_BATCH_H_

#include <string.h>

#include "common.h"

typedef struct {
  int32_t in_batch;
  int32_t in_h;
  int32_t in_w;
  int32_t out_batch;
  int32_t out_h;
  int32_t out_w;
  int32_t block_h;
  int32_t block_w;
  int32_t pad_top;
  int32_t pad_left;
  int32_t depth_bytes;   /* depth x element size */
  int32_t pad_byte;
} utvm_space_to_batch_params;

static void utvm_space_to_batch(const utvm_space_to_batch_params* p, const void* in, void* out) {
  const uint8_t* src = (const uint8_t*)in;
  uint8_t* dst = (uint8_t*)out;
  const size_t depth = (size_t)p->depth_bytes;
  int32_t ob;
  int32_t oh;
  int32_t ow;
  for (ob = 0; ob < p->out_batch; ++ob) {
    const int32_t b = ob % p->in_batch;
    const int32_t shift_w = (ob / p->in_batch) % p->block_w;
    const int32_t shift_h = (ob / p->in_batch) / p->block_w;
    for (oh = 0; oh < p->out_h; ++oh) {
      const int32_t h = ((oh * p->block_h) + shift_h) - p->pad_top;
      for (ow = 0; ow < p->out_w; ++ow) {
        const int32_t w = ((ow * p->block_w) + shift_w) - p->pad_left;
        if ((h < 0) || (h >= p->in_h) || (w < 0) || (w >= p->in_w)) {
          (void)memset(dst, p->pad_byte, depth);
        } else {
          const size_t at = ((((size_t)b * (size_t)p->in_h) + (size_t)h) * (size_t)p->in_w) + (size_t)w;
          (void)memcpy(dst, &src[at * depth], depth);
        }
        dst = &dst[depth];
      }
    }
  }
}

#endif /* UTVM_KERNELS_SPACE_TO_BATCH_H_ */
