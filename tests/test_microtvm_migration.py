"""docs/crt.md "Migrating from microTVM": a microTVM project's platform file (every hook of its
platform.h, its error-code names) compiles unchanged against our headers with strict warnings,
links with the runtime, and the runtime uses its timer."""

from __future__ import annotations

import subprocess
from pathlib import Path

from system_tools import need

from utvm_build.host import STRICT_CFLAGS
from utvm_build.paths import crt_dir

PLATFORM = r"""
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include <tvm/runtime/c_runtime_api.h>
#include <tvm/runtime/crt/crt.h>
#include <tvm/runtime/crt/platform.h>

static struct timespec g_start;
static int g_running = 0;

void TVMPlatformAbort(tvm_crt_error_t error_code) {
  fprintf(stderr, "abort %d\n", (int)error_code);
  for (;;) {
  }
}

size_t TVMPlatformFormatMessage(char* out_buf, size_t out_buf_size_bytes, const char* fmt, va_list args) {
  return (size_t)vsnprintf(out_buf, out_buf_size_bytes, fmt, args);
}

void TVMLogf(const char* fmt, ...) {
  char buf[128];
  va_list args;
  va_start(args, fmt);
  (void)TVMPlatformFormatMessage(buf, sizeof(buf), fmt, args);
  va_end(args);
}

static unsigned char g_pool[1024];
static size_t g_used = 0;

tvm_crt_error_t TVMPlatformMemoryAllocate(size_t num_bytes, DLDevice dev, void** out_ptr) {
  (void)dev;
  if (g_used + num_bytes > sizeof(g_pool)) {
    return kTvmErrorPlatformNoMemory;
  }
  *out_ptr = &g_pool[g_used];
  g_used += (num_bytes + 15u) & ~(size_t)15u;
  return kTvmErrorNoError;
}

tvm_crt_error_t TVMPlatformMemoryFree(void* ptr, DLDevice dev) {
  (void)ptr;
  (void)dev;
  return kTvmErrorNoError;
}

tvm_crt_error_t TVMPlatformTimerStart(void) {
  if (g_running) {
    return kTvmErrorPlatformTimerBadState;
  }
  g_running = 1;
  return clock_gettime(CLOCK_MONOTONIC, &g_start) == 0 ? kTvmErrorNoError : kTvmErrorPlatformCheckFailure;
}

tvm_crt_error_t TVMPlatformTimerStop(double* elapsed_time_seconds) {
  struct timespec now;
  if (!g_running) {
    return kTvmErrorPlatformTimerBadState;
  }
  g_running = 0;
  (void)clock_gettime(CLOCK_MONOTONIC, &now);
  *elapsed_time_seconds = (double)(now.tv_sec - g_start.tv_sec) + 1e-9 * (double)(now.tv_nsec - g_start.tv_nsec);
  return kTvmErrorNoError;
}

tvm_crt_error_t TVMPlatformBeforeMeasurement(void) { return kTvmErrorNoError; }
tvm_crt_error_t TVMPlatformAfterMeasurement(void) { return kTvmErrorNoError; }

tvm_crt_error_t TVMPlatformGenerateRandom(uint8_t* buffer, size_t num_bytes) {
  size_t i;
  for (i = 0; i < num_bytes; ++i) {
    buffer[i] = (uint8_t)(i * 13u);
  }
  return kTvmErrorNoError;
}

tvm_crt_error_t TVMPlatformInitialize(void) {
  return (sizeof(g_pool) >= 1024u) ? kTvmErrorNoError : kTvmErrorPlatformMemoryManagerInitialized;
}

/* The program's part (not the platform file): an empty system library. */
#include <tvm/runtime/crt/module.h>
const TVMModule* TVMSystemLibEntryPoint(void);
const TVMModule* TVMSystemLibEntryPoint(void) { return NULL; }

int main(void) {
  double seconds = -1.0;
  tvm_crt_error_t other[3] = {kTvmErrorPlatformShutdown, kTvmErrorFunctionCallNotImplemented,
                              kTvmErrorPlatformStackAllocBadFree};
  (void)other;
  if (TVMPlatformInitialize() != kTvmErrorNoError || TVMInitializeRuntime() != 0) {
    return 1;
  }
  if (TVMPlatformTimerStart() != kTvmErrorNoError || TVMPlatformTimerStop(&seconds) != kTvmErrorNoError) {
    return 2;
  }
  printf("ok %d\n", seconds >= 0.0);
  return 0;
}
"""


def test_microtvm_platform_file_compiles_unchanged(tmp_path: Path) -> None:
    need("cc")
    crt = crt_dir()
    (tmp_path / "platform.c").write_text(PLATFORM)
    sources = [tmp_path / "platform.c"] + [p for p in sorted((crt / "src").glob("*.c")) if p.name != "platform_host.c"]
    exe = tmp_path / "prog"
    # gnu99: the platform file uses clock_gettime (POSIX), as a host port does
    flags = [f for f in STRICT_CFLAGS if f != "-std=c99"] + ["-std=gnu99", "-Wmissing-prototypes",
                                                             "-Wstrict-prototypes"]
    cfg = crt / "config"
    p = subprocess.run(["cc", *flags, f"-I{crt / 'include'}", f"-I{cfg}", *map(str, sources), "-o", str(exe)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    out = subprocess.run([str(exe)], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0 and out.stdout == "ok 1\n", out
