/*
 * utvm-build C runtime: runtime life cycle, global registry, module table, handles and
 * TVMFuncCall.
 *
 * State is static and sized by crt_config.h; nothing is allocated. The runtime is not
 * reentrant: callers serialize calls (one thread, or a lock around the runtime).
 */
#include <tvm/runtime/c_backend_api.h>
#include <tvm/runtime/c_runtime_api.h>
#include <tvm/runtime/crt/crt.h>
#include <tvm/runtime/crt/func_registry.h>
#include <tvm/runtime/crt/logging.h>
#include <tvm/runtime/crt/module.h>

#include "crt_internal.h"

static TVMMutableFuncRegistry g_global_registry;
static const TVMModule* g_modules[TVM_CRT_MAX_REGISTERED_MODULES];
static int32_t g_initialized = 0;
#if TVM_CRT_SYSTEM_LIB
static TVMModuleHandle g_system_lib_handle = NULL;
#endif

/* ---- handle encoding (the only conversions between handles and integers) ---- */

static TVMModuleHandle EncodeModuleHandle(uint16_t module_index) {
  const uintptr_t raw = (uintptr_t)(TVM_CRT_MODULE_HANDLE_VALID_BIT | (uint32_t)module_index);
  return (TVMModuleHandle)raw;
}

static TVMFunctionHandle EncodeFunctionHandle(uint32_t module_field, uint16_t function_index) {
  const uint32_t value = (module_field << TVM_CRT_HANDLE_MODULE_SHIFT) | (uint32_t)function_index;
  return (TVMFunctionHandle)(uintptr_t)value;
}

/* Handle value as 32 bits; returns 0 when it does not fit (never a valid handle). */
static uint32_t HandleValue(const void* handle) {
  const uintptr_t raw = (uintptr_t)handle;
  const uint32_t value = (uint32_t)raw;
  return ((uintptr_t)value == raw) ? value : 0U;
}

static tvm_crt_error_t DecodeModuleHandle(TVMModuleHandle mod, uint16_t* out_index) {
  const uint32_t value = HandleValue(mod);
  const uint32_t index = value & TVM_CRT_HANDLE_MODULE_MASK;
  tvm_crt_error_t err = kTvmErrorModuleHandleInvalid;
  if (((value & ~TVM_CRT_HANDLE_MODULE_MASK) == TVM_CRT_MODULE_HANDLE_VALID_BIT) &&
      (index < (uint32_t)TVM_CRT_MAX_REGISTERED_MODULES) && (g_modules[index] != NULL)) {
    *out_index = (uint16_t)index;
    err = kTvmErrorNoError;
  }
  return err;
}

/* Decode a function handle into the function and the resource_handle to pass it. */
static tvm_crt_error_t DecodeFunctionHandle(TVMFunctionHandle func, TVMBackendPackedCFunc* out_func,
                                            void** out_resource_handle) {
  const uint32_t value = HandleValue(func);
  const uint32_t module_field = (value >> TVM_CRT_HANDLE_MODULE_SHIFT) & TVM_CRT_HANDLE_MODULE_MASK;
  const uint16_t function_index = (uint16_t)(value & TVM_CRT_HANDLE_FUNCTION_MASK);
  const TVMFuncRegistry* registry = NULL;
  void* resource_handle = NULL;
  tvm_crt_error_t err = kTvmErrorFunctionHandleInvalid;

  if ((value & TVM_CRT_HANDLE_VALID_BIT) != 0U) {
    if ((module_field < (uint32_t)TVM_CRT_MAX_REGISTERED_MODULES) &&
        (g_modules[module_field] != NULL)) {
      registry = g_modules[module_field]->registry;
      /* The callee receives its module; the ABI type is void*, modules are const. */
      resource_handle = (void*)g_modules[module_field];
    }
  } else if ((value != 0U) && (module_field == TVM_CRT_HANDLE_GLOBAL_MODULE)) {
    registry = &g_global_registry.registry;
  } else {
    /* invalid */
  }
  if (registry != NULL) {
    if (TVMFuncRegistry_GetByIndex(registry, function_index, out_func) == kTvmErrorNoError) {
      *out_resource_handle = resource_handle;
      err = kTvmErrorNoError;
    }
  }
  return err;
}

/* ---- runtime.SystemLib ---- */

#if TVM_CRT_SYSTEM_LIB
/* The system library's module handle, registered on first use (runtime.SystemLib and the global
 * lookup's fallback share it). Records the error and returns it when there is no system library. */
static tvm_crt_error_t SystemLibHandle(TVMModuleHandle* out_handle) {
  tvm_crt_error_t err = kTvmErrorNoError;
  if (g_system_lib_handle == NULL) {
    const TVMModule* system_lib = TVMSystemLibEntryPoint();
    if (system_lib == NULL) {
      err = kTvmErrorSystemLibMissing;
      TVMCRTSetError(err, "runtime.SystemLib: TVMSystemLibEntryPoint returned NULL", NULL);
    } else {
      err = TVMModCreateFromCModule(system_lib, &g_system_lib_handle);
    }
  }
  if (err == kTvmErrorNoError) {
    *out_handle = g_system_lib_handle;
  }
  return err;
}

static int SystemLibFunc(TVMValue* args, int* type_codes, int num_args, TVMValue* out_ret_value,
                         int* out_ret_tcode, void* resource_handle) {
  int result = -1;
  (void)args;
  (void)type_codes;
  (void)resource_handle;
  if (num_args != 0) {
    TVMCRTSetErrorCount(kTvmErrorFunctionCallNumArguments, "runtime.SystemLib", 0U,
                        (int32_t)num_args);
  } else if ((out_ret_value == NULL) || (out_ret_tcode == NULL)) {
    TVMCRTSetError(kTvmErrorInvalidArgument, "runtime.SystemLib: NULL return pointer", NULL);
  } else {
    TVMModuleHandle handle = NULL;
    if (SystemLibHandle(&handle) == kTvmErrorNoError) {
      out_ret_value->v_handle = handle;
      *out_ret_tcode = (int)kTVMModuleHandle;
      result = 0;
    }
  }
  return result;
}
#endif

/* ---- life cycle ---- */

int TVMInitializeRuntime(void) {
  /* Memory of the global registry; TVMMutableFuncRegistry_Create aligns what it needs. */
  static uint8_t global_registry_memory[TVM_CRT_GLOBAL_FUNC_REGISTRY_SIZE_BYTES];
  uint32_t i;
  tvm_crt_error_t err;

  for (i = 0U; i < (uint32_t)TVM_CRT_MAX_REGISTERED_MODULES; ++i) {
    g_modules[i] = NULL;
  }
  TVMCRTClearError();
  err = TVMMutableFuncRegistry_Create(&g_global_registry, global_registry_memory,
                                      sizeof(global_registry_memory));
#if TVM_CRT_SYSTEM_LIB
  g_system_lib_handle = NULL;
  if (err == kTvmErrorNoError) {
    err = TVMMutableFuncRegistry_Set(&g_global_registry, "runtime.SystemLib", &SystemLibFunc, 0);
  }
#endif
  if (err == kTvmErrorNoError) {
    g_initialized = 1;
    TVM_CRT_LOG_INFO("CRT initialized: %u registry slots, %u module slots\n",
                     (unsigned int)g_global_registry.max_functions,
                     (unsigned int)TVM_CRT_MAX_REGISTERED_MODULES);
  } else {
    g_initialized = 0;
    TVMCRTSetError(err, "TVMInitializeRuntime failed", NULL);
    TVM_CRT_LOG_ERROR("TVMInitializeRuntime failed: 0x%04x\n", (unsigned int)err);
  }
  return (err == kTvmErrorNoError) ? 0 : -(int)err;
}

/* Record kTvmErrorNotInitialized and return 0 when the runtime is not initialized. */
static int32_t CheckInitialized(void) {
  if (g_initialized == 0) {
    TVMCRTSetError(kTvmErrorNotInitialized, "TVMInitializeRuntime has not been called", NULL);
  }
  return g_initialized;
}

/* ---- modules ---- */

tvm_crt_error_t TVMModCreateFromCModule(const TVMModule* mod, TVMModuleHandle* out_handle) {
  tvm_crt_error_t err = kTvmErrorInvalidArgument;
  if (CheckInitialized() == 0) {
    err = kTvmErrorNotInitialized;
  } else if ((mod == NULL) || (mod->registry == NULL) || (out_handle == NULL)) {
    TVMCRTSetError(err, "TVMModCreateFromCModule: NULL module, registry or handle", NULL);
  } else {
    uint32_t i;
    uint32_t free_slot = (uint32_t)TVM_CRT_MAX_REGISTERED_MODULES;
    uint32_t found = (uint32_t)TVM_CRT_MAX_REGISTERED_MODULES;
    for (i = 0U; i < (uint32_t)TVM_CRT_MAX_REGISTERED_MODULES; ++i) {
      if ((g_modules[i] == mod) && (found == (uint32_t)TVM_CRT_MAX_REGISTERED_MODULES)) {
        found = i;
      }
      if ((g_modules[i] == NULL) && (free_slot == (uint32_t)TVM_CRT_MAX_REGISTERED_MODULES)) {
        free_slot = i;
      }
    }
    if (found < (uint32_t)TVM_CRT_MAX_REGISTERED_MODULES) {
      *out_handle = EncodeModuleHandle((uint16_t)found);
      err = kTvmErrorNoError;
    } else if (free_slot < (uint32_t)TVM_CRT_MAX_REGISTERED_MODULES) {
      TVM_CRT_LOG_DEBUG("module registered at index %u\n", (unsigned int)free_slot);
      g_modules[free_slot] = mod;
      *out_handle = EncodeModuleHandle((uint16_t)free_slot);
      err = kTvmErrorNoError;
    } else {
      err = kTvmErrorModuleTableFull;
      TVMCRTSetError(err, "module table full (TVM_CRT_MAX_REGISTERED_MODULES)", NULL);
      TVM_CRT_LOG_WARNING("%s\n", TVMGetLastError());
    }
  }
  return err;
}

int TVMModGetFunction(TVMModuleHandle mod, const char* func_name, int query_imports,
                      TVMFunctionHandle* out) {
  int result = -1;
  uint16_t module_index = 0U;
  (void)query_imports;
  if (out != NULL) {
    *out = NULL;
  }
  if (CheckInitialized() == 0) {
    /* error recorded */
  } else if ((func_name == NULL) || (out == NULL)) {
    TVMCRTSetError(kTvmErrorInvalidArgument, "TVMModGetFunction: NULL argument", NULL);
  } else if (DecodeModuleHandle(mod, &module_index) != kTvmErrorNoError) {
    TVMCRTSetError(kTvmErrorModuleHandleInvalid, "TVMModGetFunction: invalid module handle", NULL);
  } else {
    tvm_function_index_t function_index = 0U;
    const tvm_crt_error_t err =
        TVMFuncRegistry_Lookup(g_modules[module_index]->registry, func_name, &function_index);
    if (err == kTvmErrorNoError) {
      *out = EncodeFunctionHandle((uint32_t)module_index | TVM_CRT_MODULE_HANDLE_VALID_BIT,
                                  function_index);
      result = 0;
    } else if (err == kTvmErrorFunctionNameNotFound) {
      TVMCRTSetError(err, "function not found in module", func_name);
      result = 0; /* as in TVM: success, *out == NULL */
    } else {
      TVMCRTSetError(err, "TVMModGetFunction: function name too long", func_name);
    }
  }
  return result;
}

int TVMModFree(TVMModuleHandle mod) {
  int result = -1;
  uint16_t module_index = 0U;
  if (CheckInitialized() == 0) {
    /* error recorded */
  } else if (DecodeModuleHandle(mod, &module_index) != kTvmErrorNoError) {
    TVMCRTSetError(kTvmErrorModuleHandleInvalid, "TVMModFree: invalid module handle", NULL);
  } else {
    result = 0;
  }
  return result;
}

/* ---- global functions ---- */

/* Not in the global registry: the system library's function of that name, if there is one, as a
 * module function handle (called with the module as resource_handle, like TVMModGetFunction's).
 * Returns kTvmErrorFunctionNameNotFound when neither has it. */
static tvm_crt_error_t SystemLibFallback(const char* name, TVMFunctionHandle* out) {
  tvm_crt_error_t err = kTvmErrorFunctionNameNotFound;
#if TVM_CRT_SYSTEM_LIB
  const TVMModule* system_lib = TVMSystemLibEntryPoint();
  tvm_function_index_t function_index = 0U;
  /* the module is registered (a module table slot) only when it has the name */
  if ((system_lib != NULL) && (system_lib->registry != NULL) &&
      (TVMFuncRegistry_Lookup(system_lib->registry, name, &function_index) == kTvmErrorNoError)) {
    TVMModuleHandle lib = NULL;
    uint16_t module_index = 0U;
    err = SystemLibHandle(&lib);
    if (err == kTvmErrorNoError) {
      err = DecodeModuleHandle(lib, &module_index);
    }
    if (err == kTvmErrorNoError) {
      *out = EncodeFunctionHandle((uint32_t)module_index | TVM_CRT_MODULE_HANDLE_VALID_BIT,
                                  function_index);
    }
  }
#else
  (void)name;
  (void)out;
#endif
  return err;
}

int TVMFuncGetGlobal(const char* name, TVMFunctionHandle* out) {
  int result = -1;
  if (out != NULL) {
    *out = NULL;
  }
  if (CheckInitialized() == 0) {
    /* error recorded */
  } else if ((name == NULL) || (out == NULL)) {
    TVMCRTSetError(kTvmErrorInvalidArgument, "TVMFuncGetGlobal: NULL argument", NULL);
  } else {
    tvm_function_index_t function_index = 0U;
    const tvm_crt_error_t err =
        TVMFuncRegistry_Lookup(&g_global_registry.registry, name, &function_index);
    if (err == kTvmErrorNoError) {
      *out = EncodeFunctionHandle(TVM_CRT_HANDLE_GLOBAL_MODULE, function_index);
      result = 0;
    } else if (err == kTvmErrorFunctionNameNotFound) {
      const tvm_crt_error_t lib_err = SystemLibFallback(name, out);
      if (lib_err == kTvmErrorFunctionNameNotFound) {
        TVMCRTSetError(err, "global function not found", name);
        result = 0; /* as in TVM: success, *out == NULL when neither has the name */
      } else if (lib_err == kTvmErrorNoError) {
        result = 0;
      } else {
        *out = NULL; /* found, but the module table is full: the error is recorded */
      }
    } else {
      TVMCRTSetError(err, "TVMFuncGetGlobal: function name too long", name);
    }
  }
  return result;
}

int TVMFuncRegisterGlobal(const char* name, TVMBackendPackedCFunc f, int override) {
  int result = -1;
  if (CheckInitialized() != 0) {
    const tvm_crt_error_t err = TVMMutableFuncRegistry_Set(&g_global_registry, name, f, override);
    if (err == kTvmErrorNoError) {
      result = 0;
    } else if (err == kTvmErrorFunctionAlreadyDefined) {
      TVMCRTSetError(err, "global function already registered (override not requested)", name);
    } else if (err == kTvmErrorFunctionRegistryFull) {
      TVMCRTSetError(err, "global registry full (TVM_CRT_GLOBAL_FUNC_REGISTRY_SIZE_BYTES)", name);
      TVM_CRT_LOG_WARNING("%s\n", TVMGetLastError());
    } else if (err == kTvmErrorFunctionNameTooLong) {
      TVMCRTSetError(err, "TVMFuncRegisterGlobal: function name too long", name);
    } else {
      TVMCRTSetError(err, "TVMFuncRegisterGlobal: NULL function, NULL or empty name", NULL);
    }
  }
  return result;
}

int TVMFuncFree(TVMFunctionHandle func) {
  int result = -1;
  TVMBackendPackedCFunc function = NULL;
  void* resource_handle = NULL;
  if (CheckInitialized() == 0) {
    /* error recorded */
  } else if (DecodeFunctionHandle(func, &function, &resource_handle) != kTvmErrorNoError) {
    TVMCRTSetError(kTvmErrorFunctionHandleInvalid, "TVMFuncFree: invalid function handle", NULL);
  } else {
    result = 0;
  }
  return result;
}

int TVMFuncCall(TVMFunctionHandle func, TVMValue* arg_values, int* type_codes, int num_args,
                TVMValue* ret_val, int* ret_type_code) {
  int result = -1;
  TVMBackendPackedCFunc function = NULL;
  void* resource_handle = NULL;

  if (CheckInitialized() == 0) {
    /* error recorded */
  } else if ((ret_val == NULL) || (ret_type_code == NULL)) {
    TVMCRTSetError(kTvmErrorInvalidArgument, "TVMFuncCall: NULL return value pointer", NULL);
  } else if ((num_args < 0) || (num_args > TVM_CRT_MAX_ARGS)) {
    TVMCRTSetErrorCount(kTvmErrorFunctionCallNumArguments,
                        "TVMFuncCall: num_args out of range, at most TVM_CRT_MAX_ARGS",
                        (uint32_t)TVM_CRT_MAX_ARGS, (int32_t)num_args);
  } else if ((num_args > 0) && ((arg_values == NULL) || (type_codes == NULL))) {
    TVMCRTSetError(kTvmErrorInvalidArgument, "TVMFuncCall: NULL arguments", NULL);
  } else if (DecodeFunctionHandle(func, &function, &resource_handle) != kTvmErrorNoError) {
    TVMCRTSetError(kTvmErrorFunctionHandleInvalid, "TVMFuncCall: invalid function handle", NULL);
  } else {
    ret_val->v_int64 = 0;
    *ret_type_code = (int)kTVMNullptr;
    result = function(arg_values, type_codes, num_args, ret_val, ret_type_code, resource_handle);
  }
  return result;
}

/* ---- backend: global lookup for generated code ---- */

int TVMBackendGetFuncFromEnv(void* mod_node, const char* func_name, TVMFunctionHandle* out) {
  int result = TVMFuncGetGlobal(func_name, out);
  (void)mod_node;
  if ((result == 0) && (*out == NULL)) {
    result = -1;
  }
  return result;
}
