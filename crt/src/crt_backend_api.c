/*
 * utvm-build C runtime: backend API for generated code (workspace memory, parallel loops).
 */
#include <tvm/runtime/c_backend_api.h>
#include <tvm/runtime/crt/platform.h>

#include "crt_internal.h"

void* TVMBackendAllocWorkspace(int device_type, int device_id, uint64_t nbytes,
                               int dtype_code_hint, int dtype_bits_hint) {
  void* ptr = NULL;
  const size_t size = (size_t)nbytes;
  (void)dtype_code_hint;
  (void)dtype_bits_hint;
  if (device_type != (int)kDLCPU) {
    TVMCRTSetError(kTvmErrorInvalidArgument, "TVMBackendAllocWorkspace: device must be kDLCPU",
                   NULL);
  } else if ((uint64_t)size != nbytes) {
    TVMCRTSetError(kTvmErrorPlatformNoMemory, "TVMBackendAllocWorkspace: size too large", NULL);
  } else {
    DLDevice dev;
    tvm_crt_error_t err;
    dev.device_type = kDLCPU;
    dev.device_id = (int32_t)device_id;
    err = TVMPlatformMemoryAllocate(size, dev, &ptr);
    if (err != kTvmErrorNoError) {
      ptr = NULL;
      TVMCRTSetError(err, "TVMBackendAllocWorkspace: TVMPlatformMemoryAllocate failed", NULL);
    }
  }
  return ptr;
}

int TVMBackendFreeWorkspace(int device_type, int device_id, void* ptr) {
  int result = -1;
  if ((device_type != (int)kDLCPU) || (ptr == NULL)) {
    TVMCRTSetError(kTvmErrorInvalidArgument,
                   "TVMBackendFreeWorkspace: device must be kDLCPU and ptr not NULL", NULL);
  } else {
    DLDevice dev;
    tvm_crt_error_t err;
    dev.device_type = kDLCPU;
    dev.device_id = (int32_t)device_id;
    err = TVMPlatformMemoryFree(ptr, dev);
    if (err == kTvmErrorNoError) {
      result = 0;
    } else {
      TVMCRTSetError(err, "TVMBackendFreeWorkspace: TVMPlatformMemoryFree failed", NULL);
    }
  }
  return result;
}

int TVMBackendParallelLaunch(FTVMParallelLambda flambda, void* cdata, int num_task) {
  int result = -1;
  (void)num_task;
  if (flambda == NULL) {
    TVMCRTSetError(kTvmErrorInvalidArgument, "TVMBackendParallelLaunch: NULL lambda", NULL);
  } else {
    TVMParallelGroupEnv env;
    env.sync_handle = NULL;
    env.num_task = 1;
    result = flambda(0, &env, cdata);
  }
  return result;
}

int TVMBackendParallelBarrier(int task_id, TVMParallelGroupEnv* penv) {
  (void)task_id;
  (void)penv;
  return 0;
}
