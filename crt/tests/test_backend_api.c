/*
 * Tests of the backend API (workspace memory through the platform hooks, parallel launch,
 * global lookup for generated code).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <tvm/runtime/c_backend_api.h>
#include <tvm/runtime/crt/crt.h>

#include "unittest.h"

static int g_lambda_task = -1;
static int32_t g_lambda_num_task = -1;

static int Lambda(int task_id, TVMParallelGroupEnv* penv, void* cdata) {
  g_lambda_task = task_id;
  g_lambda_num_task = penv->num_task;
  *(int*)cdata += 1;
  return 7;
}

static int Nop(TVMValue* args, int* codes, int n, TVMValue* rv, int* rc, void* res) {
  (void)args; (void)codes; (void)n; (void)rv; (void)rc; (void)res;
  return 0;
}

static void TestWorkspace(void) {
  void* p = TVMBackendAllocWorkspace((int)kDLCPU, 0, 100U, (int)kDLInt, 8);
  UTVM_CHECK(p != NULL);
  if (p != NULL) {
    (void)memset(p, 0, 100U);
  }
  UTVM_CHECK(TVMBackendFreeWorkspace((int)kDLCPU, 0, p) == 0);
  UTVM_CHECK(TVMBackendAllocWorkspace((int)kDLCUDA, 0, 100U, 0, 0) == NULL);
  UTVM_CHECK(TVMCRTGetLastErrorCode() == kTvmErrorInvalidArgument);
  UTVM_CHECK(TVMBackendFreeWorkspace((int)kDLCPU, 0, NULL) == -1);
  UTVM_CHECK(TVMBackendFreeWorkspace((int)kDLCUDA, 0, &p) == -1);
}

static void TestWorkspaceTooLarge(void) {
  /* more than the platform can give: NULL and an error (never a crash) */
  UTVM_CHECK(TVMBackendAllocWorkspace((int)kDLCPU, 0, ~(uint64_t)0, 0, 0) == NULL);
  UTVM_CHECK(TVMCRTGetLastErrorCode() == kTvmErrorPlatformNoMemory);
}

static void TestParallel(void) {
  int counter = 0;
  TVMParallelGroupEnv env;
  UTVM_CHECK(TVMBackendParallelLaunch(&Lambda, &counter, 4) == 7);
  UTVM_CHECK((counter == 1) && (g_lambda_task == 0) && (g_lambda_num_task == 1));
  UTVM_CHECK(TVMBackendParallelLaunch(NULL, &counter, 1) == -1);
  env.sync_handle = NULL;
  env.num_task = 1;
  UTVM_CHECK(TVMBackendParallelBarrier(0, &env) == 0);
}

static void TestGetFuncFromEnv(void) {
  TVMFunctionHandle f = NULL;
  UTVM_CHECK(TVMFuncRegisterGlobal("env.nop", &Nop, 0) == 0);
  UTVM_CHECK(TVMBackendGetFuncFromEnv(NULL, "env.nop", &f) == 0);
  UTVM_CHECK(f != NULL);
  UTVM_CHECK(TVMBackendGetFuncFromEnv(NULL, "env.missing", &f) == -1);
  UTVM_CHECK(f == NULL);
  UTVM_CHECK(TVMBackendGetFuncFromEnv(NULL, NULL, &f) == -1);
}

#define BACKEND_API_CASES(X) X(Workspace) X(WorkspaceTooLarge) X(Parallel) X(GetFuncFromEnv)

UTVM_SUITE(backend_api, BACKEND_API_CASES)
