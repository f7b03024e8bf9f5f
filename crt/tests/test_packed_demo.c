/*
 * Tests of the packed entry point of a generated model (demo_model/) through the whole chain:
 * TVMInitializeRuntime -> runtime.SystemLib -> TVMModGetFunction -> TVMFuncCall, and of
 * TVMCRTUnpackTensorArgs error paths.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <tvm/runtime/c_runtime_api.h>
#include <tvm/runtime/crt/crt.h>
#include <tvm/runtime/crt/module.h>
#include <tvm/runtime/crt/tensor_args.h>

#include "demo_model/tvmgen_demo.h"
#include "demo_tensor.h"
#include "unittest.h"

typedef struct {
  int8_t a[8];
  int8_t b[8];
  int8_t out[8];
  int64_t shape_a[4];
  int64_t shape_b[1];
  int64_t shape_out[2];
  DLTensor tensors[3];
  TVMValue args[3];
  int codes[3];
} DemoCall;

static void InitCall(DemoCall* c) {
  int32_t i;
  (void)memset(c, 0, sizeof(*c));
  for (i = 0; i < 8; ++i) {
    c->a[i] = (int8_t)(i * 20);
    c->b[i] = (int8_t)(-3 * i);
  }
  c->a[7] = 127;
  c->b[7] = 100; /* saturates */
  c->shape_a[0] = 1;
  c->shape_a[1] = 2;
  c->shape_a[2] = 2;
  c->shape_a[3] = 2;
  c->shape_b[0] = 8;
  c->shape_out[0] = 1;
  c->shape_out[1] = 8;
  SetTensor(&c->tensors[0], c->a, c->shape_a, 4);
  SetTensor(&c->tensors[1], c->b, c->shape_b, 1);
  SetTensor(&c->tensors[2], c->out, c->shape_out, 2);
  for (i = 0; i < 3; ++i) {
    c->args[i].v_handle = &c->tensors[i];
    c->codes[i] = (int)kTVMDLTensorHandle;
  }
}

/* The documented chain; returns the function handle (NULL on failure). */
static TVMFunctionHandle GetRunFunction(TVMModuleHandle* out_mod) {
  TVMFunctionHandle syslib = NULL;
  TVMFunctionHandle run = NULL;
  TVMValue rv;
  int rc = -1;
  UTVM_CHECK(TVMFuncGetGlobal("runtime.SystemLib", &syslib) == 0);
  UTVM_CHECK(syslib != NULL);
  UTVM_CHECK(TVMFuncCall(syslib, NULL, NULL, 0, &rv, &rc) == 0);
  UTVM_CHECK(rc == (int)kTVMModuleHandle);
  if (rc == (int)kTVMModuleHandle) {
    UTVM_CHECK(TVMModGetFunction(rv.v_handle, "tvmgen_demo_run", 0, &run) == 0);
    UTVM_CHECK(run != NULL);
    *out_mod = rv.v_handle;
  }
  return run;
}

/* The run function through the documented chain, and *c a valid call of it (three tensors). */
static TVMFunctionHandle PrepareRun(DemoCall* c) {
  TVMModuleHandle mod = NULL;
  TVMFunctionHandle run = GetRunFunction(&mod);
  InitCall(c);
  return run;
}

/* A global that shadows the model's entry in TestGlobalFallsBackToSystemLib. */
static int ReturnsSeven(TVMValue* args, int* codes, int n, TVMValue* rv, int* rc, void* res) {
  (void)args;
  (void)codes;
  (void)n;
  (void)res;
  rv->v_int64 = 7;
  *rc = (int)kTVMArgInt;
  return 0;
}

static TVMFunctionHandle MakeNonNull(void) { return (TVMFunctionHandle)(uintptr_t)1U; }

static int CallRun(TVMFunctionHandle run, DemoCall* c, int num_args) {
  TVMValue rv;
  int rc = -1;
  return TVMFuncCall(run, c->args, c->codes, num_args, &rv, &rc);
}

static void TestChainRuns(void) {
  DemoCall c;
  TVMModuleHandle mod = NULL;
  TVMFunctionHandle run = GetRunFunction(&mod);
  int32_t i;
  int32_t correct = 1;
  InitCall(&c);
  UTVM_CHECK(CallRun(run, &c, 3) == 0);
  for (i = 0; i < 7; ++i) {
    if (c.out[i] != (int8_t)((i * 20) + (-3 * i))) {
      correct = 0;
    }
  }
  UTVM_CHECK(correct == 1);
  UTVM_CHECK(c.out[7] == 127);
  /* an NDArray handle is a DLTensor* too; an opaque handle is never read as a tensor */
  c.codes[0] = (int)kTVMNDArrayHandle;
  UTVM_CHECK(CallRun(run, &c, 3) == 0);
  c.codes[1] = (int)kTVMOpaqueHandle;
  UTVM_CHECK(CallRun(run, &c, 3) != 0);
  UTVM_CHECK(strstr(TVMGetLastError(), "must be a DLTensor handle") != NULL);
  c.codes[1] = (int)kTVMObjectHandle;
  UTVM_CHECK(CallRun(run, &c, 3) != 0);
  c.codes[1] = (int)kTVMDLTensorHandle;
  /* compact strides are accepted */
  {
    int64_t strides[4] = {8, 4, 2, 1};
    c.tensors[0].strides = strides;
    UTVM_CHECK(CallRun(run, &c, 3) == 0);
    c.tensors[0].strides = NULL;
  }
  UTVM_CHECK(TVMModFree(mod) == 0);
}

static void TestChainSystemLibEntryPoint(void) {
  TVMModuleHandle mod = NULL;
  TVMModuleHandle direct = NULL;
  (void)GetRunFunction(&mod);
  /* registering the system lib module again yields the same handle */
  UTVM_CHECK(TVMModCreateFromCModule(TVMSystemLibEntryPoint(), &direct) == kTvmErrorNoError);
  UTVM_CHECK(direct == mod);
  {
    TVMFunctionHandle f = NULL;
    UTVM_CHECK(TVMModGetFunction(mod, "tvmgen_demo", 0, &f) == 0);
    UTVM_CHECK(f == NULL);
  }
}

/* TVMFuncGetGlobal falls back to the system library: the model's entry is found by name, runs like
 * the module's function, and a global of the same name still comes first. */
static void TestGlobalFallsBackToSystemLib(void) {
  DemoCall via_global;
  DemoCall via_module;
  TVMModuleHandle mod = NULL;
  TVMFunctionHandle from_module = NULL;
  TVMFunctionHandle from_global = NULL;
  TVMFunctionHandle f = NULL;
  UTVM_CHECK(TVMFuncGetGlobal("tvmgen_demo_run", &from_global) == 0);
  UTVM_CHECK(from_global != NULL);
  from_module = GetRunFunction(&mod);
  UTVM_CHECK(from_global == from_module); /* the same module function handle */
  InitCall(&via_global);
  InitCall(&via_module);
  UTVM_CHECK(CallRun(from_global, &via_global, 3) == 0);
  UTVM_CHECK(CallRun(from_module, &via_module, 3) == 0);
  UTVM_CHECK(memcmp(via_global.out, via_module.out, sizeof(via_global.out)) == 0);
  UTVM_CHECK(via_global.out[7] == 127);
  UTVM_CHECK(TVMFuncFree(from_global) == 0);
  /* neither the registry nor the system library has it: success, NULL, the name in the error */
  f = MakeNonNull();
  UTVM_CHECK(TVMFuncGetGlobal("tvmgen_demo", &f) == 0);
  UTVM_CHECK(f == NULL);
  UTVM_CHECK(TVMCRTGetLastErrorCode() == kTvmErrorFunctionNameNotFound);
  UTVM_CHECK(strstr(TVMGetLastError(), "tvmgen_demo") != NULL);
  /* the global registry is searched first */
  UTVM_CHECK(TVMFuncRegisterGlobal("tvmgen_demo_run", &ReturnsSeven, 0) == 0);
  UTVM_CHECK(TVMFuncGetGlobal("tvmgen_demo_run", &f) == 0);
  UTVM_CHECK((f != NULL) && (f != from_module));
  {
    TVMValue rv;
    int rc = -1;
    UTVM_CHECK(TVMFuncCall(f, NULL, NULL, 0, &rv, &rc) == 0);
    UTVM_CHECK((rc == (int)kTVMArgInt) && (rv.v_int64 == 7));
  }
}

static void ExpectFailure(TVMFunctionHandle run, DemoCall* c, int num_args,
                          tvm_crt_error_t code, const char* text) {
  UTVM_CHECK(CallRun(run, c, num_args) == -1);
  UTVM_CHECK(TVMCRTGetLastErrorCode() == code);
  UTVM_CHECK(strstr(TVMGetLastError(), text) != NULL);
}

static void TestWrongArgCount(void) {
  DemoCall c;
  TVMFunctionHandle run = PrepareRun(&c);
  ExpectFailure(run, &c, 2, kTvmErrorFunctionCallNumArguments, "expected 3, got 2");
  ExpectFailure(run, &c, 0, kTvmErrorFunctionCallNumArguments, "expected 3, got 0");
}

static void TestWrongArgType(void) {
  DemoCall c;
  TVMFunctionHandle run = PrepareRun(&c);
  c.codes[1] = (int)kTVMArgInt;
  ExpectFailure(run, &c, 3, kTvmErrorFunctionCallWrongArgType, "input_b");
  c.codes[1] = (int)kTVMNullptr;
  ExpectFailure(run, &c, 3, kTvmErrorFunctionCallWrongArgType, "input_b");
}

static void TestBadTensors(void) {
  DemoCall c;
  TVMFunctionHandle run = PrepareRun(&c);

  c.args[2].v_handle = NULL;
  ExpectFailure(run, &c, 3, kTvmErrorFunctionCallInvalidArg, "NULL tensor");
  InitCall(&c);
  c.tensors[2].data = NULL;
  ExpectFailure(run, &c, 3, kTvmErrorFunctionCallInvalidArg, "output");
  InitCall(&c);
  c.tensors[0].device.device_type = kDLCUDA;
  ExpectFailure(run, &c, 3, kTvmErrorFunctionCallInvalidArg, "device");
  InitCall(&c);
  c.tensors[0].dtype.code = (uint8_t)kDLUInt;
  ExpectFailure(run, &c, 3, kTvmErrorFunctionCallInvalidArg, "dtype");
  InitCall(&c);
  c.tensors[0].dtype.bits = 16U;
  ExpectFailure(run, &c, 3, kTvmErrorFunctionCallInvalidArg, "dtype");
  InitCall(&c);
  c.tensors[0].dtype.lanes = 2U;
  ExpectFailure(run, &c, 3, kTvmErrorFunctionCallInvalidArg, "dtype");
  InitCall(&c);
  c.tensors[1].ndim = 2;
  ExpectFailure(run, &c, 3, kTvmErrorFunctionCallInvalidArg, "ndim");
  InitCall(&c);
  c.tensors[1].shape = NULL;
  ExpectFailure(run, &c, 3, kTvmErrorFunctionCallInvalidArg, "ndim");
  InitCall(&c);
  c.shape_a[3] = 3;
  ExpectFailure(run, &c, 3, kTvmErrorFunctionCallInvalidArg, "shape");
  InitCall(&c);
  {
    int64_t strides[4] = {1, 2, 4, 8}; /* column-major: not compact row-major */
    c.tensors[0].strides = strides;
    ExpectFailure(run, &c, 3, kTvmErrorFunctionCallInvalidArg, "strides");
  }
  InitCall(&c);
  c.tensors[0].byte_offset = 1U;
  ExpectFailure(run, &c, 3, kTvmErrorFunctionCallInvalidArg, "byte_offset");
  /* nothing was written by the failed calls */
  UTVM_CHECK(c.out[0] == 0);
}

static void TestUnpackDirect(void) {
  static const int64_t shape[2] = {2, 3};
  static const TVMCRTTensorSpec specs[1] = {
      {"t", shape, 2, {(uint8_t)kDLFloat, 32U, 1U}, 24U}};
  static const TVMCRTTensorSpec bad_size[1] = {
      {"t", shape, 2, {(uint8_t)kDLFloat, 32U, 1U}, 20U}};
  float data[6];
  int64_t tshape[2] = {2, 3};
  DLTensor t;
  TVMValue arg;
  int code = (int)kTVMDLTensorHandle;
  void* out[1] = {NULL};
  (void)memset(&t, 0, sizeof(t));
  t.data = data;
  t.device.device_type = kDLCPU;
  t.ndim = 2;
  t.dtype.code = (uint8_t)kDLFloat;
  t.dtype.bits = 32U;
  t.dtype.lanes = 1U;
  t.shape = tshape;
  arg.v_handle = &t;
  UTVM_CHECK(TVMCRTUnpackTensorArgs(&arg, &code, 1, specs, 1U, out) == kTvmErrorNoError);
  UTVM_CHECK(out[0] == (void*)data);
  UTVM_CHECK(TVMCRTUnpackTensorArgs(&arg, &code, 1, bad_size, 1U, out) ==
             kTvmErrorFunctionCallInvalidArg);
  UTVM_CHECK(TVMCRTUnpackTensorArgs(NULL, &code, 1, specs, 1U, out) == kTvmErrorInvalidArgument);
  UTVM_CHECK(TVMCRTUnpackTensorArgs(&arg, NULL, 1, specs, 1U, out) == kTvmErrorInvalidArgument);
  UTVM_CHECK(TVMCRTUnpackTensorArgs(&arg, &code, 1, NULL, 1U, out) == kTvmErrorInvalidArgument);
  UTVM_CHECK(TVMCRTUnpackTensorArgs(&arg, &code, 1, specs, 1U, NULL) == kTvmErrorInvalidArgument);
  UTVM_CHECK(TVMCRTUnpackTensorArgs(&arg, &code, -1, specs, 1U, out) ==
             kTvmErrorFunctionCallNumArguments);
  UTVM_CHECK(TVMCRTUnpackTensorArgs(NULL, NULL, 0, specs, 0U, out) == kTvmErrorNoError);
}

static void TestTypedEntryPoint(void) {
  /* The "c" interface needs no runtime at all. */
  int8_t a[8] = {1, 2, 3, 4, 5, 6, 7, -128};
  int8_t b[8] = {1, 1, 1, 1, 1, 1, 1, -1};
  int8_t out[8] = {0};
  struct tvmgen_demo_inputs inputs;
  struct tvmgen_demo_outputs outputs;
  inputs.input_a = a;
  inputs.input_b = b;
  outputs.output = out;
  UTVM_CHECK(tvmgen_demo_run(&inputs, &outputs) == 0);
  UTVM_CHECK((out[0] == 2) && (out[6] == 8) && (out[7] == -128));
  outputs.output = NULL;
  UTVM_CHECK(tvmgen_demo_run(&inputs, &outputs) != 0);
}

#define PACKED_DEMO_CASES(X) \
  X(ChainRuns) X(ChainSystemLibEntryPoint) X(GlobalFallsBackToSystemLib) X(WrongArgCount) \
  X(WrongArgType) X(BadTensors) X(UnpackDirect) X(TypedEntryPoint)

UTVM_SUITE(packed_demo, PACKED_DEMO_CASES)
