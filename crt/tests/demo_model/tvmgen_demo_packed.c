/*
 * Fake generated model "demo": packed entry point, function registry and system-library
 * module. This file is the exact template of docs/crt.md ("Packed entry point"): the code
 * generator emits it with "demo", the tensor specs and the counts substituted.
 */
#include <tvm/runtime/c_backend_api.h>
#include <tvm/runtime/c_runtime_api.h>
#include <tvm/runtime/crt/func_registry.h>
#include <tvm/runtime/crt/module.h>
#include <tvm/runtime/crt/tensor_args.h>

#include "crt_config.h"
#include "tvmgen_demo.h"

/* The model's needs; a crt_config.h that does not meet them fails the build. */
#if TVM_CRT_MAX_ARGS < 3
#error "crt_config.h: TVM_CRT_MAX_ARGS must be at least 3 for model demo"
#endif
#if TVM_CRT_MAX_NDIM < 4
#error "crt_config.h: TVM_CRT_MAX_NDIM must be at least 4 for model demo"
#endif
#if TVM_CRT_MAX_STRLEN_FUNCTION_NAME < 16
#error "crt_config.h: TVM_CRT_MAX_STRLEN_FUNCTION_NAME must be at least 16 for model demo"
#endif
#if TVM_CRT_MAX_STRLEN_PARAM_NAME < 8
#error "crt_config.h: TVM_CRT_MAX_STRLEN_PARAM_NAME must be at least 8 for model demo"
#endif
#if TVM_CRT_MAX_STRLEN_DLTYPE < 5
#error "crt_config.h: TVM_CRT_MAX_STRLEN_DLTYPE must be at least 5 for model demo"
#endif
#if TVM_CRT_MAX_REGISTERED_MODULES < 1
#error "crt_config.h: TVM_CRT_MAX_REGISTERED_MODULES must be at least 1 for model demo"
#endif

int tvmgen_demo_run_packed(TVMValue* args, int* type_codes, int num_args,
                           TVMValue* out_ret_value, int* out_ret_tcode, void* resource_handle);

int tvmgen_demo_run_packed(TVMValue* args, int* type_codes, int num_args,
                           TVMValue* out_ret_value, int* out_ret_tcode, void* resource_handle) {
  static const int64_t input_a_shape[4] = {1, 2, 2, 2};
  static const int64_t input_b_shape[1] = {8};
  static const int64_t output_shape[2] = {1, 8};
  /* Inputs in model order, then outputs in model order. */
  static const TVMCRTTensorSpec arg_specs[3] = {
      {"input_a", input_a_shape, 4, {(uint8_t)kDLInt, 8U, 1U}, 8U},
      {"input_b", input_b_shape, 1, {(uint8_t)kDLInt, 8U, 1U}, 8U},
      {"output", output_shape, 2, {(uint8_t)kDLInt, 8U, 1U}, 8U},
  };
  void* data[3];
  int status = -1;
  (void)out_ret_value;
  (void)out_ret_tcode;
  (void)resource_handle;
  if (TVMCRTUnpackTensorArgs(args, type_codes, num_args, arg_specs, 3U, data) ==
      kTvmErrorNoError) {
    struct tvmgen_demo_inputs inputs;
    struct tvmgen_demo_outputs outputs;
    inputs.input_a = data[0];
    inputs.input_b = data[1];
    outputs.output = data[2];
    if (tvmgen_demo_run(&inputs, &outputs) == 0) {
      status = 0;
    } else {
      TVMAPISetLastError("tvmgen_demo_run failed");
    }
  }
  return status;
}

/* Function registry: count byte, names each ending in NUL, one extra NUL (string end). */
static const TVMBackendPackedCFunc tvmgen_demo_funcs[1] = {
    &tvmgen_demo_run_packed,
};
static const TVMFuncRegistry tvmgen_demo_registry = {
    "\x01"
    "tvmgen_demo_run\0",
    tvmgen_demo_funcs,
};
static const TVMModule tvmgen_demo_module = {&tvmgen_demo_registry};

const TVMModule* tvmgen_demo_get_module(void);

const TVMModule* tvmgen_demo_get_module(void) { return &tvmgen_demo_module; }

const TVMModule* TVMSystemLibEntryPoint(void) { return &tvmgen_demo_module; }
