/* utvm-build kernels: BATCH_MATMUL, int8 (see batch_matmul.h). */
#ifndef UTVM_KERNELS_BATCH_MATMUL_S8_H_
#define UTVM_KERNELS_BATCH_MATMUL_S8_H_

#include "batch_matmul.h"

static void utvm_batch_matmul_s8(const utvm_bmm_q_params* p, const int8_t* lhs, const int8_t* rhs, int8_t* out) {
  UTVM_BMM_WALK(p, &p->g, lhs, rhs, out, int8_t, int32_t, utvm_bmm_s8_mac, utvm_bmm_s8_out);
}

#endif /* UTVM_KERNELS_BATCH_MATMUL_S8_H_ */
