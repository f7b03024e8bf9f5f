/*
 * utvm-build C runtime: the runtime C API (function lookup and calls).
 *
 * Names, type codes and the TVMValue layout follow the TVM C runtime API so
 * that callers written for microTVM (or a ctypes front end) work unchanged.
 * Differences are listed in docs/crt.md.
 */
#ifndef TVM_RUNTIME_C_RUNTIME_API_H_
#define TVM_RUNTIME_C_RUNTIME_API_H_

#include <stddef.h>
#include <stdint.h>

#include <dlpack/dlpack.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef TVM_DLL
#if defined(__GNUC__) || defined(__clang__)
#define TVM_DLL __attribute__((visibility("default")))
#else
#define TVM_DLL
#endif
#endif

/*! \brief Type codes of packed-call arguments (values are TVM's). */
typedef enum {
  kTVMArgInt = 0,
  kTVMArgFloat = 2,
  kTVMOpaqueHandle = 3,
  kTVMNullptr = 4,
  kTVMDataType = 5,
  kDLDevice = 6,
  kTVMDLTensorHandle = 7,
  kTVMObjectHandle = 8,
  kTVMModuleHandle = 9,
  kTVMPackedFuncHandle = 10,
  kTVMStr = 11,
  kTVMBytes = 12,
  kTVMNDArrayHandle = 13,
  kTVMObjectRValueRefArg = 14,
  kTVMArgBool = 15
} TVMArgTypeCode;

/*! \brief A byte array argument or return value (type code kTVMBytes; v_handle points to it). */
typedef struct {
  const char* data;
  size_t size;
} TVMByteArray;

/*! \brief One packed-call argument or return value; the type code says which member is valid. */
typedef union {
  int64_t v_int64;
  double v_float64;
  void* v_handle;
  const char* v_str;
  DLDataType v_type;
  DLDevice v_device;
} TVMValue;

/*! \brief Opaque handle to a registered module (encodes the module index). */
typedef void* TVMModuleHandle;
/*! \brief Opaque handle to a function (encodes module and function index, see docs/crt.md). */
typedef void* TVMFunctionHandle;

/*!
 * \brief The one function type the runtime calls (generated entry points and C functions alike).
 * \param args argument values, num_args entries
 * \param type_codes argument type codes (TVMArgTypeCode), num_args entries
 * \param num_args number of arguments
 * \param out_ret_value return value (set by the callee if it returns something)
 * \param out_ret_tcode type code of the return value (kTVMNullptr when nothing is returned)
 * \param resource_handle the TVMModule owning the function, or NULL for a global function
 * \return 0 on success, nonzero on failure after setting the message with TVMAPISetLastError.
 */
typedef int (*TVMBackendPackedCFunc)(TVMValue* args, int* type_codes, int num_args,
                                     TVMValue* out_ret_value, int* out_ret_tcode,
                                     void* resource_handle);

/*!
 * \brief Message describing the last error (never NULL; "" when none).
 * \return pointer to a static, NUL-terminated buffer, valid until the next runtime call.
 */
TVM_DLL const char* TVMGetLastError(void);

/*!
 * \brief Set the last error message (truncated to TVM_CRT_MAX_STRLEN_ERROR_MESSAGE - 1 chars).
 * \param msg NUL-terminated message; NULL clears the message.
 */
TVM_DLL void TVMAPISetLastError(const char* msg);

/*!
 * \brief Find a function in the global registry.
 * \param name NUL-terminated function name
 * \param out receives the handle, or NULL when no function has that name
 * \return 0 on success (including "not found", as in TVM), -1 on bad arguments or when the
 *         runtime is not initialized.
 */
TVM_DLL int TVMFuncGetGlobal(const char* name, TVMFunctionHandle* out);

/*!
 * \brief Add or replace a function in the global registry.
 * \param name NUL-terminated name, shorter than TVM_CRT_MAX_STRLEN_FUNCTION_NAME
 * \param f the function (a C function pointer, not a TVMFunctionHandle)
 * \param override nonzero to replace an existing function of the same name
 * \return 0 on success, -1 on failure (bad argument, too long, exists, registry full).
 */
TVM_DLL int TVMFuncRegisterGlobal(const char* name, TVMBackendPackedCFunc f, int override);

/*!
 * \brief Find a function in a module.
 * \param mod module handle (from runtime.SystemLib or TVMModCreateFromCModule)
 * \param func_name NUL-terminated function name
 * \param query_imports ignored (CRT modules have no imports)
 * \param out receives the handle, or NULL when the module has no function of that name
 * \return 0 on success (including "not found"), -1 on a bad handle or argument.
 */
TVM_DLL int TVMModGetFunction(TVMModuleHandle mod, const char* func_name, int query_imports,
                              TVMFunctionHandle* out);

/*!
 * \brief Release a module handle (modules are static; this only validates the handle).
 * \return 0 for a valid handle, -1 otherwise.
 */
TVM_DLL int TVMModFree(TVMModuleHandle mod);

/*!
 * \brief Release a function handle (handles are not allocated; this only validates it).
 * \return 0 for a valid handle, -1 otherwise.
 */
TVM_DLL int TVMFuncFree(TVMFunctionHandle func);

/*!
 * \brief Call a function through its handle.
 * \param func handle from TVMFuncGetGlobal or TVMModGetFunction
 * \param arg_values num_args values (may be NULL when num_args is 0)
 * \param type_codes num_args type codes (may be NULL when num_args is 0)
 * \param num_args 0 .. TVM_CRT_MAX_ARGS
 * \param ret_val receives the return value (zeroed before the call)
 * \param ret_type_code receives its type code (kTVMNullptr before the call)
 * \return -1 when the runtime rejects the call (bad handle, argument count, NULL pointer),
 *         otherwise what the function returned (0 on success).
 */
TVM_DLL int TVMFuncCall(TVMFunctionHandle func, TVMValue* arg_values, int* type_codes,
                        int num_args, TVMValue* ret_val, int* ret_type_code);

#ifdef __cplusplus
}
#endif

#endif /* TVM_RUNTIME_C_RUNTIME_API_H_ */
