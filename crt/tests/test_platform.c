/*
 * Tests of the platform hooks' contract (run against whatever implementation is linked:
 * platform_host.c on the host, the firmware's on a device). TVMPlatformAbort is not called.
 */
#include <stddef.h>
#include <stdint.h>

#include <tvm/runtime/crt/platform.h>

#include "unittest.h"

static void TestTimer(void) {
  double seconds = -1.0;
  UTVM_CHECK(TVMPlatformTimerStop(&seconds) == kTvmErrorPlatformTimerBadState);
  UTVM_CHECK(TVMPlatformTimerStart() == kTvmErrorNoError);
  UTVM_CHECK(TVMPlatformTimerStart() == kTvmErrorPlatformTimerBadState);
  UTVM_CHECK(TVMPlatformTimerStop(NULL) == kTvmErrorInvalidArgument);
  UTVM_CHECK(TVMPlatformTimerStop(&seconds) == kTvmErrorNoError);
  UTVM_CHECK(seconds >= 0.0);
  UTVM_CHECK(TVMPlatformTimerStop(&seconds) == kTvmErrorPlatformTimerBadState);
}

static void TestMemory(void) {
  DLDevice cpu;
  void* p = NULL;
  cpu.device_type = kDLCPU;
  cpu.device_id = 0;
  UTVM_CHECK(TVMPlatformMemoryAllocate(64U, cpu, &p) == kTvmErrorNoError);
  UTVM_CHECK((p != NULL) && (((uintptr_t)p % 8U) == 0U));
  UTVM_CHECK(TVMPlatformMemoryFree(p, cpu) == kTvmErrorNoError);
  UTVM_CHECK(TVMPlatformMemoryAllocate(64U, cpu, NULL) == kTvmErrorInvalidArgument);
  UTVM_CHECK(TVMPlatformMemoryFree(NULL, cpu) == kTvmErrorInvalidArgument);
}

static void TestLog(void) {
  TVMLogf("%s", ""); /* must not crash; prints nothing */
  UTVM_CHECK(1);
}

#define PLATFORM_CASES(X) X(Timer) X(Memory) X(Log)

UTVM_SUITE(platform, PLATFORM_CASES)
