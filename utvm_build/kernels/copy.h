/* utvm-build kernels: byte copy for RESHAPE / SQUEEZE that could not become an alias
 * (e.g. a model input reshaped straight into a model output). TFLite's reshape.cc copies the
 * bytes unchanged (no requantization). */
#ifndef UTVM_KERNELS_COPY_H_
#define UTVM_KERNELS_COPY_H_

#include <string.h>

#include "common.h"

static void utvm_copy(const void* in, void* out, size_t bytes) {
  if (bytes > 0u) {
    (void)memcpy(out, in, bytes);
  }
}

#endif /* UTVM_KERNELS_COPY_H_ */
