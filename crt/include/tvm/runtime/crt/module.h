/*
 * utvm-build C runtime: modules.
 *
 * A CRT module is a struct whose first member is a TVMModule, usually a
 * const object generated with the model. Registering it places a pointer in
 * the module table; its handle encodes the table index.
 */
#ifndef TVM_RUNTIME_CRT_MODULE_H_
#define TVM_RUNTIME_CRT_MODULE_H_

#include <tvm/runtime/c_runtime_api.h>
#include <tvm/runtime/crt/error_codes.h>
#include <tvm/runtime/crt/func_registry.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Handle encoding (values of the void* handles, see docs/crt.md):
 *   function handle, 32 bits: | V (31) | module index (30..16) | function index (15..0) |
 *     V = 1: function of the registered module at that index.
 *     V = 0: global function; the module field must be TVM_CRT_HANDLE_GLOBAL_MODULE (0x7FFF),
 *            so that no valid handle is 0 (NULL means "not found").
 *   module handle: TVM_CRT_MODULE_HANDLE_VALID_BIT | module index.
 */
#define TVM_CRT_HANDLE_VALID_BIT 0x80000000UL
#define TVM_CRT_HANDLE_MODULE_SHIFT 16U
#define TVM_CRT_HANDLE_MODULE_MASK 0x7FFFUL
#define TVM_CRT_HANDLE_FUNCTION_MASK 0xFFFFUL
#define TVM_CRT_HANDLE_GLOBAL_MODULE 0x7FFFUL
#define TVM_CRT_MODULE_HANDLE_VALID_BIT 0x8000UL

/*! \brief Module container of TVM. */
typedef struct TVMModule {
  /*! \brief The function registry associated with this module. */
  const TVMFuncRegistry* registry;
} TVMModule;

/*!
 * \brief Register a module and get its handle. Registering the same module twice returns
 *        the first handle.
 * \param mod the module; it must outlive the runtime (normally a const object)
 * \param out_handle receives the handle
 * \return kTvmErrorNoError, kTvmErrorModuleTableFull, kTvmErrorNotInitialized or
 *         kTvmErrorInvalidArgument (NULL argument or module without registry).
 */
tvm_crt_error_t TVMModCreateFromCModule(const TVMModule* mod, TVMModuleHandle* out_handle);

/*!
 * \brief Entry point for the system library module (supplied by the generated packed model, or,
 *        for several packed models, by the file `utvm-build syslib` writes).
 * Called the first time runtime.SystemLib is called.
 * \return the system library module, or NULL when there is none.
 */
const TVMModule* TVMSystemLibEntryPoint(void);

#ifdef __cplusplus
}
#endif

#endif /* TVM_RUNTIME_CRT_MODULE_H_ */
