/*
 * Device-side platform hooks for running the CRT unit tests on a Cortex-M (QEMU mps2-an386 or a
 * board with a debugger): output and exit through Arm semihosting, memory from a
 * TVMStackAllocator over a static buffer, a software timer. An example of the hooks a firmware
 * supplies; not a board support package.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include <tvm/runtime/crt/platform.h>
#include <tvm/runtime/crt/stack_allocator.h>

#include "semihost.h"

#define SYS_WRITE0 0x04
#define SYS_EXIT 0x18
#define ADP_STOPPED_APPLICATION_EXIT 0x20026
#define ADP_STOPPED_RUNTIME_ERROR 0x20023

static int32_t Semihost(int32_t op, const void* arg) {
  register int32_t r0 __asm__("r0") = op;
  register const void* r1 __asm__("r1") = arg;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

void SemihostWrite(const char* text) { (void)Semihost(SYS_WRITE0, text); }

void SemihostExit(int32_t success) {
  (void)Semihost(SYS_EXIT, (const void*)(uintptr_t)(success != 0 ? ADP_STOPPED_APPLICATION_EXIT
                                                                 : ADP_STOPPED_RUNTIME_ERROR));
  for (;;) {
  }
}

void TVMPlatformAbort(tvm_crt_error_t code) {
  char line[48];
  (void)snprintf(line, sizeof(line), "TVMPlatformAbort: 0x%04x\n", (unsigned int)code);
  SemihostWrite(line);
  SemihostExit(0);
}

static int32_t g_timer_running = 0;
static uint32_t g_timer_ticks = 0U;

tvm_crt_error_t TVMPlatformTimerStart(void) {
  tvm_crt_error_t err = kTvmErrorPlatformTimerBadState;
  if (g_timer_running == 0) {
    g_timer_running = 1;
    g_timer_ticks = 0U; /* a real port would read SysTick or DWT->CYCCNT here */
    err = kTvmErrorNoError;
  }
  return err;
}

tvm_crt_error_t TVMPlatformTimerStop(double* elapsed_time_seconds) {
  tvm_crt_error_t err = kTvmErrorPlatformTimerBadState;
  if (elapsed_time_seconds == NULL) {
    err = kTvmErrorInvalidArgument;
  } else if (g_timer_running != 0) {
    *elapsed_time_seconds = (double)g_timer_ticks * 1e-6;
    g_timer_running = 0;
    err = kTvmErrorNoError;
  } else {
    /* not running */
  }
  return err;
}

static uint8_t g_heap[16384];
static TVMStackAllocator g_allocator;
static int32_t g_allocator_ready = 0;

tvm_crt_error_t TVMPlatformMemoryAllocate(size_t num_bytes, DLDevice dev, void** out_ptr) {
  tvm_crt_error_t err = kTvmErrorInvalidArgument;
  if ((out_ptr != NULL) && (dev.device_type == kDLCPU)) {
    err = kTvmErrorNoError;
    if (g_allocator_ready == 0) {
      err = TVMStackAllocator_Init(&g_allocator, g_heap, sizeof(g_heap));
      g_allocator_ready = (err == kTvmErrorNoError) ? 1 : 0;
    }
    if (err == kTvmErrorNoError) {
      err = TVMStackAllocator_Allocate(&g_allocator, num_bytes, out_ptr);
    }
  }
  return err;
}

tvm_crt_error_t TVMPlatformMemoryFree(void* ptr, DLDevice dev) {
  tvm_crt_error_t err = kTvmErrorInvalidArgument;
  if ((ptr != NULL) && (dev.device_type == kDLCPU) && (g_allocator_ready != 0)) {
    err = TVMStackAllocator_Free(&g_allocator, ptr);
  }
  return err;
}

void TVMLogf(const char* fmt, ...) {
  char line[160];
  va_list args;
  va_start(args, fmt);
  (void)vsnprintf(line, sizeof(line), fmt, args);
  va_end(args);
  SemihostWrite(line);
}
