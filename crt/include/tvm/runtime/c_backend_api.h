/*
 * utvm-build C runtime: the backend API (what generated code may call).
 */
#ifndef TVM_RUNTIME_C_BACKEND_API_H_
#define TVM_RUNTIME_C_BACKEND_API_H_

#include <stdint.h>

#include <tvm/runtime/c_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/*! \brief Environment of a parallel group (the CRT always runs one task). */
typedef struct {
  void* sync_handle; /*!< unused; NULL */
  int32_t num_task;  /*!< number of tasks; always 1 */
} TVMParallelGroupEnv;

/*! \brief Body of a parallel loop. */
typedef int (*FTVMParallelLambda)(int task_id, TVMParallelGroupEnv* penv, void* cdata);

/*!
 * \brief Allocate workspace memory through TVMPlatformMemoryAllocate.
 * \param device_type must be kDLCPU
 * \param device_id device ordinal
 * \param nbytes size in bytes
 * \param dtype_code_hint ignored
 * \param dtype_bits_hint ignored
 * \return the memory, or NULL (last error set).
 */
TVM_DLL void* TVMBackendAllocWorkspace(int device_type, int device_id, uint64_t nbytes,
                                       int dtype_code_hint, int dtype_bits_hint);

/*!
 * \brief Free memory from TVMBackendAllocWorkspace through TVMPlatformMemoryFree.
 * \return 0 on success, -1 on failure (last error set).
 */
TVM_DLL int TVMBackendFreeWorkspace(int device_type, int device_id, void* ptr);

/*!
 * \brief Look a function up in the global registry (for generated code).
 * \param mod_node the calling module (unused)
 * \param func_name NUL-terminated name
 * \param out receives the handle
 * \return 0 when found, -1 otherwise (last error set).
 */
TVM_DLL int TVMBackendGetFuncFromEnv(void* mod_node, const char* func_name,
                                     TVMFunctionHandle* out);

/*!
 * \brief Run a parallel loop body serially as task 0 of 1.
 * \return what flambda returned, or -1 when flambda is NULL.
 */
TVM_DLL int TVMBackendParallelLaunch(FTVMParallelLambda flambda, void* cdata, int num_task);

/*!
 * \brief Barrier inside a parallel loop; a no-op with one task.
 * \return 0.
 */
TVM_DLL int TVMBackendParallelBarrier(int task_id, TVMParallelGroupEnv* penv);

#ifdef __cplusplus
}
#endif

#endif /* TVM_RUNTIME_C_BACKEND_API_H_ */
