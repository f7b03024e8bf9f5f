/*
 * utvm-build C runtime: include crt_config.h and check it.
 *
 * crt_config.h is found on the include path (the directory given as
 * CRT_CONFIG_DIR to the build). Every parameter must be defined; the checks
 * below reject values the runtime cannot work with.
 */
#ifndef TVM_RUNTIME_CRT_CRT_CONFIG_CHECK_H_
#define TVM_RUNTIME_CRT_CRT_CONFIG_CHECK_H_

#include "crt_config.h"

#if !defined(TVM_CRT_DEBUG) || !defined(TVM_CRT_MAX_NDIM) || !defined(TVM_CRT_MAX_ARGS)
#error "crt_config.h: TVM_CRT_DEBUG, TVM_CRT_MAX_NDIM and TVM_CRT_MAX_ARGS must be defined"
#endif
#if !defined(TVM_CRT_MAX_STRLEN_DLTYPE) || !defined(TVM_CRT_MAX_STRLEN_FUNCTION_NAME) || \
    !defined(TVM_CRT_MAX_STRLEN_PARAM_NAME) || !defined(TVM_CRT_MAX_STRLEN_ERROR_MESSAGE)
#error "crt_config.h: the TVM_CRT_MAX_STRLEN_* parameters must be defined"
#endif
#if !defined(TVM_CRT_MAX_REGISTERED_MODULES) || !defined(TVM_CRT_GLOBAL_FUNC_REGISTRY_SIZE_BYTES)
#error "crt_config.h: TVM_CRT_MAX_REGISTERED_MODULES and TVM_CRT_GLOBAL_FUNC_REGISTRY_SIZE_BYTES must be defined"
#endif
#if !defined(TVM_CRT_LOG_LEVEL) || !defined(TVM_CRT_SYSTEM_LIB) || \
    !defined(TVM_CRT_STACK_ALLOCATOR_ALIGN)
#error "crt_config.h: TVM_CRT_LOG_LEVEL, TVM_CRT_SYSTEM_LIB and TVM_CRT_STACK_ALLOCATOR_ALIGN must be defined"
#endif

#if (TVM_CRT_DEBUG != 0) && (TVM_CRT_DEBUG != 1)
#error "crt_config.h: TVM_CRT_DEBUG must be 0 or 1"
#endif
#if (TVM_CRT_MAX_NDIM < 1) || (TVM_CRT_MAX_NDIM > 32)
#error "crt_config.h: TVM_CRT_MAX_NDIM must be in 1..32"
#endif
#if (TVM_CRT_MAX_ARGS < 1) || (TVM_CRT_MAX_ARGS > 255)
#error "crt_config.h: TVM_CRT_MAX_ARGS must be in 1..255"
#endif
#if (TVM_CRT_MAX_STRLEN_DLTYPE < 8) || (TVM_CRT_MAX_STRLEN_DLTYPE > 255)
#error "crt_config.h: TVM_CRT_MAX_STRLEN_DLTYPE must be in 8..255"
#endif
#if (TVM_CRT_MAX_STRLEN_FUNCTION_NAME < 2) || (TVM_CRT_MAX_STRLEN_FUNCTION_NAME > 255)
#error "crt_config.h: TVM_CRT_MAX_STRLEN_FUNCTION_NAME must be in 2..255"
#endif
#if (TVM_CRT_MAX_STRLEN_PARAM_NAME < 2) || (TVM_CRT_MAX_STRLEN_PARAM_NAME > 255)
#error "crt_config.h: TVM_CRT_MAX_STRLEN_PARAM_NAME must be in 2..255"
#endif
#if (TVM_CRT_MAX_STRLEN_ERROR_MESSAGE < 32) || (TVM_CRT_MAX_STRLEN_ERROR_MESSAGE > 1024)
#error "crt_config.h: TVM_CRT_MAX_STRLEN_ERROR_MESSAGE must be in 32..1024"
#endif
#if (TVM_CRT_MAX_REGISTERED_MODULES < 1) || (TVM_CRT_MAX_REGISTERED_MODULES > 32767)
#error "crt_config.h: TVM_CRT_MAX_REGISTERED_MODULES must be in 1..32767"
#endif
#if (TVM_CRT_GLOBAL_FUNC_REGISTRY_SIZE_BYTES < 64) || \
    (TVM_CRT_GLOBAL_FUNC_REGISTRY_SIZE_BYTES > 65535)
#error "crt_config.h: TVM_CRT_GLOBAL_FUNC_REGISTRY_SIZE_BYTES must be in 64..65535"
#endif
#if (TVM_CRT_LOG_LEVEL < 0) || (TVM_CRT_LOG_LEVEL > 4)
#error "crt_config.h: TVM_CRT_LOG_LEVEL must be in 0..4"
#endif
#if (TVM_CRT_SYSTEM_LIB != 0) && (TVM_CRT_SYSTEM_LIB != 1)
#error "crt_config.h: TVM_CRT_SYSTEM_LIB must be 0 or 1"
#endif
#if (TVM_CRT_STACK_ALLOCATOR_ALIGN < 8) || (TVM_CRT_STACK_ALLOCATOR_ALIGN > 4096) || \
    ((TVM_CRT_STACK_ALLOCATOR_ALIGN & (TVM_CRT_STACK_ALLOCATOR_ALIGN - 1)) != 0)
#error "crt_config.h: TVM_CRT_STACK_ALLOCATOR_ALIGN must be a power of two in 8..4096"
#endif

#endif /* TVM_RUNTIME_CRT_CRT_CONFIG_CHECK_H_ */
