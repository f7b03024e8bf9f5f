/* utvm-build kernels: BATCH_MATMUL, int16 (16x16, zero points 0, int64 accumulator) (see batch_matmul.h). */
#ifndef UTVM_KERNELS_BATCH_MATMUL_S16_H_
#define UTVM_KERNELS_BATCH_MATMUL_S16_H_

#include "batch_matmul.h"

static void utvm_batch_matmul_s16(const utvm_bmm_q_params* p, const int16_t* lhs, const int16_t* rhs, int16_t* out) {
  UTVM_BMM_WALK(p, &p->g, lhs, rhs, out, int16_t, int64_t, utvm_bmm_s16_mac, utvm_bmm_s16_out);
}

#endif /* UTVM_KERNELS_BATCH_MATMUL_S16_H_ */
