/*
 * utvm-build C runtime: platform hooks.
 *
 * The firmware supplies these functions; the runtime never calls malloc,
 * printf or an OS. A host implementation for tests and examples is in
 * crt/src/platform_host.c (libutvm_crt_host.a). Only the hooks a program
 * actually reaches need to exist: TVMLogf only when TVM_CRT_LOG_LEVEL > 0,
 * TVMPlatformAbort only when TVM_CRT_DEBUG is 1, the memory hooks only when
 * TVMBackendAllocWorkspace is used.
 */
#ifndef TVM_RUNTIME_CRT_PLATFORM_H_
#define TVM_RUNTIME_CRT_PLATFORM_H_

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <dlpack/dlpack.h>
#include <tvm/runtime/crt/error_codes.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef TVM_CRT_NORETURN
#if defined(__GNUC__) || defined(__clang__)
#define TVM_CRT_NORETURN __attribute__((noreturn))
#else
#define TVM_CRT_NORETURN
#endif
#endif

/*!
 * \brief Called on an unrecoverable error (failed internal check). Must not return.
 * \param code the reason
 */
TVM_CRT_NORETURN void TVMPlatformAbort(tvm_crt_error_t code);

/*!
 * \brief Start the platform timer (wall-clock time).
 * \return kTvmErrorNoError, or kTvmErrorPlatformTimerBadState when already running.
 */
tvm_crt_error_t TVMPlatformTimerStart(void);

/*!
 * \brief Stop the platform timer.
 * \param elapsed_time_seconds receives the time since TVMPlatformTimerStart
 * \return kTvmErrorNoError, kTvmErrorPlatformTimerBadState when not running, or
 *         kTvmErrorInvalidArgument.
 */
tvm_crt_error_t TVMPlatformTimerStop(double* elapsed_time_seconds);

/*!
 * \brief Allocate memory for the runtime (workspace of TVMBackendAllocWorkspace).
 * \param num_bytes size in bytes
 * \param dev device the memory is for
 * \param out_ptr receives the memory (at least 8-byte aligned)
 * \return kTvmErrorNoError, kTvmErrorPlatformNoMemory or kTvmErrorInvalidArgument.
 */
tvm_crt_error_t TVMPlatformMemoryAllocate(size_t num_bytes, DLDevice dev, void** out_ptr);

/*!
 * \brief Free memory from TVMPlatformMemoryAllocate.
 * \return kTvmErrorNoError or kTvmErrorInvalidArgument.
 */
tvm_crt_error_t TVMPlatformMemoryFree(void* ptr, DLDevice dev);

/*!
 * \brief Write a log message (printf-style format). Used only when TVM_CRT_LOG_LEVEL > 0.
 * \param fmt format string
 */
void TVMLogf(const char* fmt, ...);

/*
 * Hooks of microTVM's platform API that this runtime never calls. They are declared so that a
 * microTVM project's platform file (which defines them) compiles unchanged, also with
 * -Wmissing-prototypes; a new port need not define them (docs/crt.md, "Migrating from microTVM").
 */
/*! \brief microTVM: set up the platform (call it from main if your port needs it). */
tvm_crt_error_t TVMPlatformInitialize(void);
/*! \brief microTVM: called around time measurements by its RPC server; not by ours. */
tvm_crt_error_t TVMPlatformBeforeMeasurement(void);
/*! \brief microTVM: see TVMPlatformBeforeMeasurement. */
tvm_crt_error_t TVMPlatformAfterMeasurement(void);
/*! \brief microTVM: format a log message (its TVMLogf); our runtime logs through TVMLogf. */
size_t TVMPlatformFormatMessage(char* out_buf, size_t out_buf_size_bytes, const char* fmt, va_list args);
/*! \brief microTVM: random bytes (its RPC server's nonce); not used here. */
tvm_crt_error_t TVMPlatformGenerateRandom(uint8_t* buffer, size_t num_bytes);

#ifdef __cplusplus
}
#endif

#endif /* TVM_RUNTIME_CRT_PLATFORM_H_ */
