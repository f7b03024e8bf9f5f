/* utvm-build kernels: ARG_MAX / ARG_MIN, int32 input (see arg_min_max.h). */
#ifndef UTVM_KERNELS_ARG_MIN_MAX_S32_H_
#define UTVM_KERNELS_ARG_MIN_MAX_S32_H_

#include "arg_min_max.h"

static void utvm_arg_min_max_s32(const utvm_arg_params* p, const int32_t* in, int32_t* out32, int64_t* out64) {
  int32_t outer;
  int32_t inner;
  int32_t i;
  for (outer = 0; outer < p->outer; ++outer) {
    const int32_t* base = &in[outer * p->axis_size * p->inner];
    for (inner = 0; inner < p->inner; ++inner) {
      int32_t best = base[inner];
      int32_t best_index = 0;
      for (i = 1; i < p->axis_size; ++i) {
        const int32_t v = base[(i * p->inner) + inner];
        const bool better = (p->is_max != 0) ? (v > best) : (v < best);
        if (better) {
          best = v;
          best_index = i;
        }
      }
      utvm_arg_store(out32, out64, (outer * p->inner) + inner, best_index);
    }
  }
}

#endif /* UTVM_KERNELS_ARG_MIN_MAX_S32_H_ */
