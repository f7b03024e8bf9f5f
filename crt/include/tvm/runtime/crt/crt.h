/*
 * utvm-build C runtime: life cycle.
 */
#ifndef TVM_RUNTIME_CRT_CRT_H_
#define TVM_RUNTIME_CRT_CRT_H_

#include <tvm/runtime/c_runtime_api.h>
#include <tvm/runtime/crt/error_codes.h>

#ifdef __cplusplus
extern "C" {
#endif

/*!
 * \brief Initialize internal runtime components; call before any other runtime function.
 * Calling it again resets the runtime: the global registry and module table are emptied and
 * runtime.SystemLib is registered again (when TVM_CRT_SYSTEM_LIB is 1).
 * \return 0 on success, otherwise minus a tvm_crt_error_t code.
 */
TVM_DLL int TVMInitializeRuntime(void);

/*!
 * \brief Code of the last error recorded by the runtime (kTvmErrorNoError when none).
 * TVMAPISetLastError records kTvmErrorFunctionCallFailed.
 */
TVM_DLL tvm_crt_error_t TVMCRTGetLastErrorCode(void);

#ifdef __cplusplus
}
#endif

#endif /* TVM_RUNTIME_CRT_CRT_H_ */
