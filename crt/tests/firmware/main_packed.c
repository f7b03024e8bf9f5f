/*
 * Size-report firmware: runs the demo model through the CRT (runtime.SystemLib,
 * TVMModGetFunction, TVMFuncCall), to show what the packed path costs.
 */
#include <stdint.h>

#include <tvm/runtime/c_runtime_api.h>
#include <tvm/runtime/crt/crt.h>

#include "../demo_tensor.h"

static int8_t g_input_a[8];
static int8_t g_input_b[8];
static int8_t g_output[8];
static int64_t g_shape_a[4] = {1, 2, 2, 2};
static int64_t g_shape_b[1] = {8};
static int64_t g_shape_out[2] = {1, 8};

int main(void) {
  int status = -1;
  TVMFunctionHandle syslib = NULL;
  TVMFunctionHandle run = NULL;
  TVMValue rv;
  int rc = 0;
  DLTensor tensors[3];
  TVMValue args[3];
  int codes[3] = {(int)kTVMDLTensorHandle, (int)kTVMDLTensorHandle, (int)kTVMDLTensorHandle};
  SetTensor(&tensors[0], g_input_a, g_shape_a, 4);
  SetTensor(&tensors[1], g_input_b, g_shape_b, 1);
  SetTensor(&tensors[2], g_output, g_shape_out, 2);
  args[0].v_handle = &tensors[0];
  args[1].v_handle = &tensors[1];
  args[2].v_handle = &tensors[2];
  if ((TVMInitializeRuntime() == 0) && (TVMFuncGetGlobal("runtime.SystemLib", &syslib) == 0) &&
      (syslib != NULL) && (TVMFuncCall(syslib, NULL, NULL, 0, &rv, &rc) == 0) &&
      (TVMModGetFunction(rv.v_handle, "tvmgen_demo_run", 0, &run) == 0) && (run != NULL)) {
    status = TVMFuncCall(run, args, codes, 3, &rv, &rc);
  }
  return status;
}
