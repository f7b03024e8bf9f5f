/*
 * utvm-build C runtime: logging and checks.
 *
 * Log macros expand to TVMLogf calls for levels <= TVM_CRT_LOG_LEVEL and to
 * nothing otherwise (arguments are then not evaluated).
 * Levels: 0 off, 1 error, 2 warning, 3 info, 4 debug.
 */
#ifndef TVM_RUNTIME_CRT_LOGGING_H_
#define TVM_RUNTIME_CRT_LOGGING_H_

#include <tvm/runtime/crt/crt_config_check.h>
#include <tvm/runtime/crt/platform.h>

#define TVM_CRT_LOG_LEVEL_OFF 0
#define TVM_CRT_LOG_LEVEL_ERROR 1
#define TVM_CRT_LOG_LEVEL_WARNING 2
#define TVM_CRT_LOG_LEVEL_INFO 3
#define TVM_CRT_LOG_LEVEL_DEBUG 4

#if TVM_CRT_LOG_LEVEL >= TVM_CRT_LOG_LEVEL_ERROR
#define TVM_CRT_LOG_ERROR(...) TVMLogf(__VA_ARGS__)
#else
#define TVM_CRT_LOG_ERROR(...) ((void)0)
#endif

#if TVM_CRT_LOG_LEVEL >= TVM_CRT_LOG_LEVEL_WARNING
#define TVM_CRT_LOG_WARNING(...) TVMLogf(__VA_ARGS__)
#else
#define TVM_CRT_LOG_WARNING(...) ((void)0)
#endif

#if TVM_CRT_LOG_LEVEL >= TVM_CRT_LOG_LEVEL_INFO
#define TVM_CRT_LOG_INFO(...) TVMLogf(__VA_ARGS__)
#else
#define TVM_CRT_LOG_INFO(...) ((void)0)
#endif

#if TVM_CRT_LOG_LEVEL >= TVM_CRT_LOG_LEVEL_DEBUG
#define TVM_CRT_LOG_DEBUG(...) TVMLogf(__VA_ARGS__)
#else
#define TVM_CRT_LOG_DEBUG(...) ((void)0)
#endif

/*!
 * \brief Internal invariant check: calls TVMPlatformAbort(kTvmErrorPlatformCheckFailure)
 *        when cond is false and TVM_CRT_DEBUG is 1; compiled out otherwise.
 */
#if TVM_CRT_DEBUG
#define TVM_CRT_CHECK(cond)                                \
  do {                                                     \
    if (!(cond)) {                                         \
      TVM_CRT_LOG_ERROR("CHECK failed: %s:%d\n", __FILE__, __LINE__); \
      TVMPlatformAbort(kTvmErrorPlatformCheckFailure);     \
    }                                                      \
  } while (0)
#else
#define TVM_CRT_CHECK(cond) ((void)0)
#endif

#endif /* TVM_RUNTIME_CRT_LOGGING_H_ */
