/*
 * utvm-build C runtime: host (POSIX) implementation of the platform hooks, for tests,
 * examples and host-driven runs. Firmware supplies its own implementation instead.
 */
#define _POSIX_C_SOURCE 199309L

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <tvm/runtime/crt/platform.h>

static struct timespec g_timer_start;
static int g_timer_running = 0;

void TVMPlatformAbort(tvm_crt_error_t code) {
  (void)fprintf(stderr, "TVMPlatformAbort: error 0x%04x\n", (unsigned int)code);
  (void)fflush(stderr);
  abort();
}

tvm_crt_error_t TVMPlatformTimerStart(void) {
  tvm_crt_error_t err = kTvmErrorPlatformTimerBadState;
  if (g_timer_running == 0) {
    if (clock_gettime(CLOCK_MONOTONIC, &g_timer_start) == 0) {
      g_timer_running = 1;
      err = kTvmErrorNoError;
    }
  }
  return err;
}

tvm_crt_error_t TVMPlatformTimerStop(double* elapsed_time_seconds) {
  tvm_crt_error_t err = kTvmErrorPlatformTimerBadState;
  struct timespec now;
  if (elapsed_time_seconds == NULL) {
    err = kTvmErrorInvalidArgument;
  } else if ((g_timer_running != 0) && (clock_gettime(CLOCK_MONOTONIC, &now) == 0)) {
    *elapsed_time_seconds = (double)(now.tv_sec - g_timer_start.tv_sec) +
                            ((double)(now.tv_nsec - g_timer_start.tv_nsec) * 1e-9);
    g_timer_running = 0;
    err = kTvmErrorNoError;
  } else {
    /* not running */
  }
  return err;
}

tvm_crt_error_t TVMPlatformMemoryAllocate(size_t num_bytes, DLDevice dev, void** out_ptr) {
  tvm_crt_error_t err = kTvmErrorInvalidArgument;
  if ((out_ptr != NULL) && (dev.device_type == kDLCPU)) {
    void* ptr = malloc((num_bytes == 0U) ? 1U : num_bytes);
    if (ptr == NULL) {
      err = kTvmErrorPlatformNoMemory;
    } else {
      *out_ptr = ptr;
      err = kTvmErrorNoError;
    }
  }
  return err;
}

tvm_crt_error_t TVMPlatformMemoryFree(void* ptr, DLDevice dev) {
  tvm_crt_error_t err = kTvmErrorInvalidArgument;
  if ((ptr != NULL) && (dev.device_type == kDLCPU)) {
    free(ptr);
    err = kTvmErrorNoError;
  }
  return err;
}

void TVMLogf(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  (void)vfprintf(stderr, fmt, args);
  va_end(args);
}
