/*
 * utvm-build C runtime: last-error storage (static, bounded, truncating).
 */
#include <tvm/runtime/c_runtime_api.h>
#include <tvm/runtime/crt/crt.h>

#include "crt_internal.h"

static char g_last_error[TVM_CRT_MAX_STRLEN_ERROR_MESSAGE];
static tvm_crt_error_t g_last_error_code = kTvmErrorNoError;

/* Append s at pos, never writing past the last byte reserved for the NUL; returns the new pos. */
static size_t AppendString(size_t pos, const char* s) {
  size_t out = pos;
  size_t i = 0U;
  if (s != NULL) {
    while ((out < (sizeof(g_last_error) - 1U)) && (s[i] != '\0')) {
      g_last_error[out] = s[i];
      ++out;
      ++i;
    }
  }
  return out;
}

/* Append the decimal digits of value at pos; returns the new pos. */
static size_t AppendUnsigned(size_t pos, uint32_t value) {
  char digits[10];
  size_t n = 0U;
  size_t out = pos;
  uint32_t v = value;
  do {
    digits[n] = (char)('0' + (v % 10U));
    v /= 10U;
    ++n;
  } while ((v != 0U) && (n < sizeof(digits)));
  while ((n > 0U) && (out < (sizeof(g_last_error) - 1U))) {
    --n;
    g_last_error[out] = digits[n];
    ++out;
  }
  return out;
}

void TVMCRTSetError(tvm_crt_error_t code, const char* what, const char* detail) {
  size_t pos = AppendString(0U, what);
  if (detail != NULL) {
    pos = AppendString(pos, ": ");
    pos = AppendString(pos, detail);
  }
  g_last_error[pos] = '\0';
  g_last_error_code = code;
}

void TVMCRTSetErrorCount(tvm_crt_error_t code, const char* what, uint32_t expected, int32_t got) {
  size_t pos = AppendString(0U, what);
  pos = AppendString(pos, ": expected ");
  pos = AppendUnsigned(pos, expected);
  pos = AppendString(pos, ", got ");
  if (got < 0) {
    pos = AppendString(pos, "-");
    pos = AppendUnsigned(pos, (uint32_t)(-(got + 1)) + 1U);
  } else {
    pos = AppendUnsigned(pos, (uint32_t)got);
  }
  g_last_error[pos] = '\0';
  g_last_error_code = code;
}

void TVMCRTClearError(void) {
  g_last_error[0] = '\0';
  g_last_error_code = kTvmErrorNoError;
}

void TVMAPISetLastError(const char* msg) {
  if (msg == NULL) {
    TVMCRTClearError();
  } else {
    TVMCRTSetError(kTvmErrorFunctionCallFailed, msg, NULL);
  }
}

const char* TVMGetLastError(void) { return g_last_error; }

tvm_crt_error_t TVMCRTGetLastErrorCode(void) { return g_last_error_code; }
