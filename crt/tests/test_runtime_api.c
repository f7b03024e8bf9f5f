/*
 * Tests of the runtime C API: life cycle, global functions, modules, handles, TVMFuncCall,
 * last error.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <tvm/runtime/c_runtime_api.h>
#include <tvm/runtime/crt/crt.h>
#include <tvm/runtime/crt/module.h>

#include "crt_config.h"
#include "unittest.h"

static void* g_seen_resource = (void*)&g_seen_resource;
static int g_seen_num_args = -1;

/* Returns args[0] + 1 as an int; records resource_handle and num_args. */
static int AddOne(TVMValue* args, int* codes, int n, TVMValue* rv, int* rc, void* res) {
  int result = -1;
  g_seen_resource = res;
  g_seen_num_args = n;
  if ((n == 1) && (codes[0] == (int)kTVMArgInt)) {
    rv->v_int64 = args[0].v_int64 + 1;
    *rc = (int)kTVMArgInt;
    result = 0;
  } else {
    TVMAPISetLastError("AddOne: expected one int");
  }
  return result;
}

/* Does nothing, records resource_handle. */
static int Nop(TVMValue* args, int* codes, int n, TVMValue* rv, int* rc, void* res) {
  (void)args; (void)codes; (void)rv; (void)rc;
  g_seen_resource = res;
  g_seen_num_args = n;
  return 0;
}

static int Fails(TVMValue* args, int* codes, int n, TVMValue* rv, int* rc, void* res) {
  (void)args; (void)codes; (void)n; (void)rv; (void)rc; (void)res;
  TVMAPISetLastError("boom");
  return -1;
}

static const TVMBackendPackedCFunc kModFuncs[2] = {&Nop, &AddOne};
static const TVMFuncRegistry kModRegistry = {"\x02" "nop\0" "add_one\0", kModFuncs};
static const TVMModule kModA = {&kModRegistry};
static const TVMModule kModB = {&kModRegistry};
static const TVMModule kModC = {&kModRegistry};
static const TVMModule kModNoRegistry = {NULL};

static TVMFunctionHandle MakeHandle(uint32_t value) { return (TVMFunctionHandle)(uintptr_t)value; }

/* ---- before TVMInitializeRuntime (run first, without init) ---- */

static void TestNotInitialized(void) {
  TVMFunctionHandle f = MakeHandle(1U);
  TVMModuleHandle m = NULL;
  TVMValue rv;
  int rc = 0;
  UTVM_CHECK(TVMFuncGetGlobal("runtime.SystemLib", &f) == -1);
  UTVM_CHECK(f == NULL);
  UTVM_CHECK(TVMCRTGetLastErrorCode() == kTvmErrorNotInitialized);
  UTVM_CHECK(TVMFuncRegisterGlobal("x", &Nop, 0) == -1);
  UTVM_CHECK(TVMModCreateFromCModule(&kModA, &m) == kTvmErrorNotInitialized);
  UTVM_CHECK(TVMModGetFunction(MakeHandle(0x8000U), "nop", 0, &f) == -1);
  UTVM_CHECK(TVMFuncCall(MakeHandle(0x7FFF0000U), NULL, NULL, 0, &rv, &rc) == -1);
  UTVM_CHECK(TVMModFree(MakeHandle(0x8000U)) == -1);
  UTVM_CHECK(TVMFuncFree(MakeHandle(0x7FFF0000U)) == -1);
  UTVM_CHECK(TVMGetLastError() != NULL);
}

/* ---- life cycle ---- */

static void TestInitializeResets(void) {
  TVMFunctionHandle f = NULL;
  TVMModuleHandle m = NULL;
  UTVM_CHECK(TVMFuncRegisterGlobal("x", &Nop, 0) == 0);
  UTVM_CHECK(TVMModCreateFromCModule(&kModA, &m) == kTvmErrorNoError);
  TVMAPISetLastError("stale");
  UTVM_CHECK(TVMInitializeRuntime() == 0);
  UTVM_CHECK(TVMCRTGetLastErrorCode() == kTvmErrorNoError); /* error cleared */
  UTVM_CHECK(TVMGetLastError()[0] == '\0');
  UTVM_CHECK((TVMFuncGetGlobal("x", &f) == 0) && (f == NULL));
  UTVM_CHECK(TVMModFree(m) == -1); /* module table emptied */
  UTVM_CHECK((TVMFuncGetGlobal("runtime.SystemLib", &f) == 0) && (f != NULL));
}

/* ---- global functions ---- */

static void TestGetGlobal(void) {
  TVMFunctionHandle f = NULL;
  char long_name[TVM_CRT_MAX_STRLEN_FUNCTION_NAME + 1];
  UTVM_CHECK(TVMFuncGetGlobal("runtime.SystemLib", &f) == 0);
  UTVM_CHECK(f != NULL);
  f = MakeHandle(1U);
  UTVM_CHECK(TVMFuncGetGlobal("no.such.function", &f) == 0);
  UTVM_CHECK(f == NULL);
  UTVM_CHECK(TVMCRTGetLastErrorCode() == kTvmErrorFunctionNameNotFound);
  UTVM_CHECK(strstr(TVMGetLastError(), "no.such.function") != NULL);
  UTVM_CHECK(TVMFuncGetGlobal(NULL, &f) == -1);
  UTVM_CHECK(TVMCRTGetLastErrorCode() == kTvmErrorInvalidArgument);
  UTVM_CHECK(TVMFuncGetGlobal("runtime.SystemLib", NULL) == -1);
  (void)memset(long_name, 'z', sizeof(long_name));
  long_name[TVM_CRT_MAX_STRLEN_FUNCTION_NAME] = '\0';
  UTVM_CHECK(TVMFuncGetGlobal(long_name, &f) == -1);
  UTVM_CHECK(TVMCRTGetLastErrorCode() == kTvmErrorFunctionNameTooLong);
  UTVM_CHECK(f == NULL);
}

static void TestRegisterAndCallGlobal(void) {
  TVMFunctionHandle f = NULL;
  TVMValue arg;
  int code = (int)kTVMArgInt;
  TVMValue rv;
  int rc = -1;
  UTVM_CHECK(TVMFuncRegisterGlobal("test.add_one", &AddOne, 0) == 0);
  UTVM_CHECK((TVMFuncGetGlobal("test.add_one", &f) == 0) && (f != NULL));
  arg.v_int64 = 41;
  g_seen_resource = (void*)&g_seen_resource;
  UTVM_CHECK(TVMFuncCall(f, &arg, &code, 1, &rv, &rc) == 0);
  UTVM_CHECK(rc == (int)kTVMArgInt);
  UTVM_CHECK(rv.v_int64 == 42);
  UTVM_CHECK(g_seen_resource == NULL); /* globals get resource_handle NULL */
  UTVM_CHECK(TVMFuncFree(f) == 0);
}

static void TestRegisterOverride(void) {
  TVMFunctionHandle f = NULL;
  TVMValue rv;
  int rc = -1;
  UTVM_CHECK(TVMFuncRegisterGlobal("test.f", &Fails, 0) == 0);
  UTVM_CHECK(TVMFuncRegisterGlobal("test.f", &Nop, 0) == -1);
  UTVM_CHECK(TVMCRTGetLastErrorCode() == kTvmErrorFunctionAlreadyDefined);
  UTVM_CHECK((TVMFuncGetGlobal("test.f", &f) == 0) && (f != NULL));
  UTVM_CHECK(TVMFuncCall(f, NULL, NULL, 0, &rv, &rc) == -1); /* still Fails */
  UTVM_CHECK(TVMFuncRegisterGlobal("test.f", &Nop, 1) == 0);
  UTVM_CHECK(TVMFuncCall(f, NULL, NULL, 0, &rv, &rc) == 0); /* same handle, new function */
  /* runtime.SystemLib can be replaced only on purpose */
  UTVM_CHECK(TVMFuncRegisterGlobal("runtime.SystemLib", &Nop, 0) == -1);
}

static void TestRegisterFull(void) {
  char name[8] = "full_00";
  uint32_t i;
  int last = 0;
  for (i = 0U; (i < 100U) && (last == 0); ++i) {
    name[5] = (char)('0' + (char)(i / 10U));
    name[6] = (char)('0' + (char)(i % 10U));
    last = TVMFuncRegisterGlobal(name, &Nop, 0);
  }
  UTVM_CHECK(last == -1);
  UTVM_CHECK(TVMCRTGetLastErrorCode() == kTvmErrorFunctionRegistryFull);
  UTVM_CHECK(i > 1U);
  /* existing entries still usable */
  {
    TVMFunctionHandle f = NULL;
    UTVM_CHECK((TVMFuncGetGlobal("full_00", &f) == 0) && (f != NULL));
  }
}

static void TestRegisterBadArgs(void) {
  char long_name[TVM_CRT_MAX_STRLEN_FUNCTION_NAME + 1];
  (void)memset(long_name, 'q', sizeof(long_name));
  long_name[TVM_CRT_MAX_STRLEN_FUNCTION_NAME] = '\0';
  UTVM_CHECK(TVMFuncRegisterGlobal(long_name, &Nop, 0) == -1);
  UTVM_CHECK(TVMCRTGetLastErrorCode() == kTvmErrorFunctionNameTooLong);
  UTVM_CHECK(TVMFuncRegisterGlobal(NULL, &Nop, 0) == -1);
  UTVM_CHECK(TVMCRTGetLastErrorCode() == kTvmErrorInvalidArgument);
  UTVM_CHECK(TVMFuncRegisterGlobal("ok", NULL, 0) == -1);
  UTVM_CHECK(TVMFuncRegisterGlobal("", &Nop, 0) == -1);
}

/* ---- modules ---- */

static void TestSystemLib(void) {
  TVMFunctionHandle f = NULL;
  TVMValue rv;
  int rc = -1;
  TVMModuleHandle first;
  TVMValue arg;
  int code = (int)kTVMArgInt;
  UTVM_CHECK((TVMFuncGetGlobal("runtime.SystemLib", &f) == 0) && (f != NULL));
  UTVM_CHECK(TVMFuncCall(f, NULL, NULL, 0, &rv, &rc) == 0);
  UTVM_CHECK(rc == (int)kTVMModuleHandle);
  UTVM_CHECK(rv.v_handle != NULL);
  first = rv.v_handle;
  UTVM_CHECK(TVMFuncCall(f, NULL, NULL, 0, &rv, &rc) == 0);
  UTVM_CHECK(rv.v_handle == first); /* one instance */
  UTVM_CHECK(TVMModFree(first) == 0);
  arg.v_int64 = 0;
  UTVM_CHECK(TVMFuncCall(f, &arg, &code, 1, &rv, &rc) == -1);
  UTVM_CHECK(TVMCRTGetLastErrorCode() == kTvmErrorFunctionCallNumArguments);
}

static void TestModuleFunction(void) {
  TVMModuleHandle m = NULL;
  TVMFunctionHandle f = NULL;
  TVMValue arg;
  int code = (int)kTVMArgInt;
  TVMValue rv;
  int rc = -1;
  UTVM_CHECK(TVMModCreateFromCModule(&kModA, &m) == kTvmErrorNoError);
  UTVM_CHECK(m != NULL);
  UTVM_CHECK(TVMModGetFunction(m, "add_one", 1, &f) == 0);
  UTVM_CHECK(f != NULL);
  arg.v_int64 = -1;
  UTVM_CHECK(TVMFuncCall(f, &arg, &code, 1, &rv, &rc) == 0);
  UTVM_CHECK((rc == (int)kTVMArgInt) && (rv.v_int64 == 0));
  UTVM_CHECK(g_seen_resource == (const void*)&kModA); /* module functions get their module */
  UTVM_CHECK(g_seen_num_args == 1);
  /* wrong argument count/type is reported by the function itself */
  code = (int)kTVMArgFloat;
  UTVM_CHECK(TVMFuncCall(f, &arg, &code, 1, &rv, &rc) == -1);
  UTVM_CHECK(strstr(TVMGetLastError(), "AddOne") != NULL);
  UTVM_CHECK(TVMCRTGetLastErrorCode() == kTvmErrorFunctionCallFailed);
  UTVM_CHECK(TVMFuncFree(f) == 0);
  UTVM_CHECK(TVMModFree(m) == 0);
}

static void TestModGetFunctionErrors(void) {
  TVMModuleHandle m = NULL;
  TVMFunctionHandle f = MakeHandle(1U);
  UTVM_CHECK(TVMModCreateFromCModule(&kModA, &m) == kTvmErrorNoError);
  UTVM_CHECK(TVMModGetFunction(m, "missing", 0, &f) == 0);
  UTVM_CHECK(f == NULL);
  UTVM_CHECK(TVMCRTGetLastErrorCode() == kTvmErrorFunctionNameNotFound);
  UTVM_CHECK(TVMModGetFunction(m, NULL, 0, &f) == -1);
  UTVM_CHECK(TVMModGetFunction(m, "nop", 0, NULL) == -1);
  UTVM_CHECK(TVMModGetFunction(NULL, "nop", 0, &f) == -1);
  UTVM_CHECK(TVMCRTGetLastErrorCode() == kTvmErrorModuleHandleInvalid);
  UTVM_CHECK(TVMModGetFunction(MakeHandle(0x0000U), "nop", 0, &f) == -1); /* no valid bit */
  UTVM_CHECK(TVMModGetFunction(MakeHandle(0x8001U), "nop", 0, &f) == -1); /* unregistered */
  UTVM_CHECK(TVMModGetFunction(MakeHandle(0x8000U + TVM_CRT_MAX_REGISTERED_MODULES), "nop", 0,
                               &f) == -1); /* out of range */
  UTVM_CHECK(TVMModGetFunction(MakeHandle(0x18000U), "nop", 0, &f) == -1); /* stray bits */
  UTVM_CHECK(f == NULL);
  UTVM_CHECK(TVMModFree(NULL) == -1);
  UTVM_CHECK(TVMModFree(MakeHandle(0x8001U)) == -1);
}

static void TestModuleTable(void) {
  TVMModuleHandle a = NULL;
  TVMModuleHandle a2 = NULL;
  TVMModuleHandle b = NULL;
  TVMModuleHandle c = NULL;
  UTVM_CHECK(TVMModCreateFromCModule(NULL, &a) == kTvmErrorInvalidArgument);
  UTVM_CHECK(TVMModCreateFromCModule(&kModNoRegistry, &a) == kTvmErrorInvalidArgument);
  UTVM_CHECK(TVMModCreateFromCModule(&kModA, NULL) == kTvmErrorInvalidArgument);
  UTVM_CHECK(TVMModCreateFromCModule(&kModA, &a) == kTvmErrorNoError);
  UTVM_CHECK(TVMModCreateFromCModule(&kModA, &a2) == kTvmErrorNoError);
  UTVM_CHECK(a == a2);
#if TVM_CRT_MAX_REGISTERED_MODULES == 2
  UTVM_CHECK(TVMModCreateFromCModule(&kModB, &b) == kTvmErrorNoError);
  UTVM_CHECK((b != NULL) && (b != a));
  UTVM_CHECK(TVMModCreateFromCModule(&kModC, &c) == kTvmErrorModuleTableFull);
  UTVM_CHECK(TVMCRTGetLastErrorCode() == kTvmErrorModuleTableFull);
  UTVM_CHECK(c == NULL);
#else
  (void)b;
  (void)c;
  (void)kModB;
  (void)kModC;
#endif
}

static void TestFuncCallBadHandles(void) {
  TVMModuleHandle m = NULL;
  TVMValue rv;
  int rc = -1;
  uint32_t i;
  const uint32_t bad[] = {
      0x00000000U,                         /* NULL */
      0x00000000U | 0x1234U,               /* V=0 but module field not 0x7FFF */
      0x7FFF0000U | 0x00FFU,               /* global, index out of range */
      0x80000000U | (1U << 16),            /* V=1, module 1 not registered */
      0x80000000U | (0x7FFEU << 16),       /* V=1, module index out of range */
      0x80000000U | 0x0002U,               /* V=1, module 0, function index out of range */
      0x80000000U | 0xFFFFU,               /* V=1, module 0, function index out of range */
  };
  UTVM_CHECK(TVMModCreateFromCModule(&kModA, &m) == kTvmErrorNoError);
  for (i = 0U; i < (uint32_t)(sizeof(bad) / sizeof(bad[0])); ++i) {
    UTVM_CHECK(TVMFuncCall(MakeHandle(bad[i]), NULL, NULL, 0, &rv, &rc) == -1);
    UTVM_CHECK(TVMCRTGetLastErrorCode() == kTvmErrorFunctionHandleInvalid);
    UTVM_CHECK(TVMFuncFree(MakeHandle(bad[i])) == -1);
  }
  /* module 0, function 0 is valid: the forged encoding matches the documented one */
  UTVM_CHECK(TVMFuncCall(MakeHandle(0x80000000U), NULL, NULL, 0, &rv, &rc) == 0);
  UTVM_CHECK(g_seen_resource == (const void*)&kModA);
  if (sizeof(uintptr_t) > 4U) {
    /* a pointer-sized value with bits above 31 is never a handle */
    const uintptr_t wide = ((uintptr_t)1 << 16U) << 16U;
    UTVM_CHECK(TVMFuncCall((TVMFunctionHandle)(wide | 0x80000000U), NULL, NULL, 0, &rv, &rc) ==
               -1);
  }
}

static void TestFuncCallArgChecks(void) {
  TVMFunctionHandle f = NULL;
  TVMValue args[TVM_CRT_MAX_ARGS + 1];
  int codes[TVM_CRT_MAX_ARGS + 1];
  TVMValue rv;
  int rc = -1;
  (void)memset(args, 0, sizeof(args));
  (void)memset(codes, 0, sizeof(codes));
  UTVM_CHECK(TVMFuncRegisterGlobal("test.nop", &Nop, 0) == 0);
  UTVM_CHECK((TVMFuncGetGlobal("test.nop", &f) == 0) && (f != NULL));
  UTVM_CHECK(TVMFuncCall(f, args, codes, -1, &rv, &rc) == -1);
  UTVM_CHECK(TVMCRTGetLastErrorCode() == kTvmErrorFunctionCallNumArguments);
  UTVM_CHECK(TVMFuncCall(f, args, codes, TVM_CRT_MAX_ARGS + 1, &rv, &rc) == -1);
  UTVM_CHECK(TVMCRTGetLastErrorCode() == kTvmErrorFunctionCallNumArguments);
  UTVM_CHECK(TVMFuncCall(f, args, codes, TVM_CRT_MAX_ARGS, &rv, &rc) == 0);
  UTVM_CHECK(g_seen_num_args == TVM_CRT_MAX_ARGS);
  UTVM_CHECK(TVMFuncCall(f, NULL, codes, 1, &rv, &rc) == -1);
  UTVM_CHECK(TVMCRTGetLastErrorCode() == kTvmErrorInvalidArgument);
  UTVM_CHECK(TVMFuncCall(f, args, NULL, 1, &rv, &rc) == -1);
  UTVM_CHECK(TVMFuncCall(f, args, codes, 0, NULL, &rc) == -1);
  UTVM_CHECK(TVMFuncCall(f, args, codes, 0, &rv, NULL) == -1);
  /* the runtime clears the return value before the call */
  rv.v_int64 = 77;
  rc = (int)kTVMArgInt;
  UTVM_CHECK(TVMFuncCall(f, NULL, NULL, 0, &rv, &rc) == 0);
  UTVM_CHECK((rc == (int)kTVMNullptr) && (rv.v_int64 == 0));
}

static void TestFuncCallPropagatesFailure(void) {
  TVMFunctionHandle f = NULL;
  TVMValue rv;
  int rc = -1;
  UTVM_CHECK(TVMFuncRegisterGlobal("test.fails", &Fails, 0) == 0);
  UTVM_CHECK((TVMFuncGetGlobal("test.fails", &f) == 0) && (f != NULL));
  UTVM_CHECK(TVMFuncCall(f, NULL, NULL, 0, &rv, &rc) == -1);
  UTVM_CHECK(strcmp(TVMGetLastError(), "boom") == 0);
  UTVM_CHECK(TVMCRTGetLastErrorCode() == kTvmErrorFunctionCallFailed);
}

/* ---- last error ---- */

static void TestLastError(void) {
  char msg[TVM_CRT_MAX_STRLEN_ERROR_MESSAGE * 2];
  UTVM_CHECK(TVMGetLastError() != NULL);
  TVMAPISetLastError("short");
  UTVM_CHECK(strcmp(TVMGetLastError(), "short") == 0);
  (void)memset(msg, 'e', sizeof(msg));
  msg[sizeof(msg) - 1U] = '\0';
  TVMAPISetLastError(msg);
  UTVM_CHECK(strlen(TVMGetLastError()) == (size_t)(TVM_CRT_MAX_STRLEN_ERROR_MESSAGE - 1));
  TVMAPISetLastError(TVMGetLastError()); /* aliasing is harmless */
  UTVM_CHECK(strlen(TVMGetLastError()) == (size_t)(TVM_CRT_MAX_STRLEN_ERROR_MESSAGE - 1));
  TVMAPISetLastError(NULL);
  UTVM_CHECK(TVMGetLastError()[0] == '\0');
  UTVM_CHECK(TVMCRTGetLastErrorCode() == kTvmErrorNoError);
}

#define RUNTIME_API_CASES(X) \
  X(InitializeResets) X(GetGlobal) X(RegisterAndCallGlobal) X(RegisterOverride) X(RegisterFull) \
  X(RegisterBadArgs) X(SystemLib) X(ModuleFunction) X(ModGetFunctionErrors) X(ModuleTable) \
  X(FuncCallBadHandles) X(FuncCallArgChecks) X(FuncCallPropagatesFailure) X(LastError)

void utvm_suite_runtime_api(uint32_t* passed, uint32_t* failed) {
  /* Must run before anything initializes the runtime. */
  g_utvm_check_failures = 0U;
  TestNotInitialized();
  if (g_utvm_check_failures == 0U) {
    ++*passed;
  } else {
    ++*failed;
    TVMLogf("FAILED runtime_api.NotInitialized\n");
  }
  UTVM_RUN_CASES("runtime_api", RUNTIME_API_CASES, passed, failed);
}
