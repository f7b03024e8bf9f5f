/* utvm-build kernels, DSP extension: CONV_2D int8 with 1x1 filters, int8 weights
 * (conv2d_q15_1x1.h: the layer's loops, the data the generator prepares).
 */
#ifndef UTVM_KERNELS_ARM_DSP_CONV2D_S8_Q15_1X1_H_
#define UTVM_KERNELS_ARM_DSP_CONV2D_S8_Q15_1X1_H_

#if !defined(__ARM_FEATURE_DSP) || (__ARM_FEATURE_DSP != 1)
#error "utvm-build: these kernels were generated for a DSP target (--target cortex-m4/m7/m33/m55) but compiled without the DSP extension; use --target generic"
#endif

#include "conv2d_q15_1x1.h"

/* w: the channel pairs' data with int8 weights (conv2d_q15_1x1.h); scratch: 4 * in_c + 4 bytes. */
static UTVM_DSP_HOT void utvm_conv2d_s8_q15_1x1(const utvm_conv2d_q15_params* p, const int8_t* in, const int32_t* w,
                                                void* scratch, int8_t* out) {
  utvm_conv2d_q15_1x1_run(p, in, w, scratch, out, false);
}

#endif /* UTVM_KERNELS_ARM_DSP_CONV2D_S8_Q15_1X1_H_ */
