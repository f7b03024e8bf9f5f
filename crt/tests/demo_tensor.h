/*
 * The demo model's tensors (int8, on the CPU, compact): one DLTensor set-up for the packed tests
 * (test_packed_demo.c) and the packed-path size firmware (firmware/main_packed.c).
 */
#ifndef UTVM_CRT_TESTS_DEMO_TENSOR_H_
#define UTVM_CRT_TESTS_DEMO_TENSOR_H_

#include <stddef.h>
#include <stdint.h>

#include <tvm/runtime/c_runtime_api.h>

static inline void SetTensor(DLTensor* t, void* data, int64_t* shape, int32_t ndim) {
  t->data = data;
  t->device.device_type = kDLCPU;
  t->device.device_id = 0;
  t->ndim = ndim;
  t->dtype.code = (uint8_t)kDLInt;
  t->dtype.bits = 8U;
  t->dtype.lanes = 1U;
  t->shape = shape;
  t->strides = NULL;
  t->byte_offset = 0U;
}

#endif /* UTVM_CRT_TESTS_DEMO_TENSOR_H_ */
