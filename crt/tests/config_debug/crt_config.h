/*
 * utvm-build C runtime: test configuration: debug checks, all logging, other limits.
 *
 * Used when the build is given no other CRT_CONFIG_DIR. The code generator
 * writes a crt_config.h with the same parameters into each generated
 * directory (see docs/crt.md for the meaning and limits of each).
 */
#ifndef TVM_RUNTIME_CRT_CONFIG_H_
#define TVM_RUNTIME_CRT_CONFIG_H_

/*! Support low-level debugging in the runtime (1: internal checks call TVMPlatformAbort) */
#define TVM_CRT_DEBUG 1

/*! Maximum supported number of dimensions of a tensor argument */
#define TVM_CRT_MAX_NDIM 6
/*! Maximum supported number of arguments of a packed call */
#define TVM_CRT_MAX_ARGS 3
/*! Maximum supported string length in dltype, e.g. "int8", "float32" (NUL included) */
#define TVM_CRT_MAX_STRLEN_DLTYPE 10
/*! Maximum supported string length in function names (NUL included) */
#define TVM_CRT_MAX_STRLEN_FUNCTION_NAME 80
/*! Maximum supported string length in tensor/parameter names (NUL included) */
#define TVM_CRT_MAX_STRLEN_PARAM_NAME 80
/*! Size of the last-error message buffer (NUL included) */
#define TVM_CRT_MAX_STRLEN_ERROR_MESSAGE 128

/*! Maximum number of registered modules (the system library counts as one) */
#define TVM_CRT_MAX_REGISTERED_MODULES 4
/*! Bytes of RAM for the global function registry (names + function pointers) */
#define TVM_CRT_GLOBAL_FUNC_REGISTRY_SIZE_BYTES 256

/*! Register runtime.SystemLib in TVMInitializeRuntime (needs TVMSystemLibEntryPoint) */
#define TVM_CRT_SYSTEM_LIB 1
/*! Alignment (and per-allocation overhead) of the stack allocator, power of two >= 8 */
#define TVM_CRT_STACK_ALLOCATOR_ALIGN 8

/*! Log level: 0 off, 1 error, 2 warning, 3 info, 4 debug */
#define TVM_CRT_LOG_LEVEL 4

#endif /* TVM_RUNTIME_CRT_CONFIG_H_ */
