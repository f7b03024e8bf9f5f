/*
 * utvm-build C runtime: bounded string helpers (no reliance on NUL within unknown bounds).
 */
#include "crt_internal.h"

size_t TVMCRTStrLenBounded(const char* s, size_t max_len) {
  size_t len = 0U;
  if (s != NULL) {
    while ((len < max_len) && (s[len] != '\0')) {
      ++len;
    }
  }
  return len;
}

int32_t TVMCRTStrEqualN(const char* a, const char* b, size_t len) {
  int32_t equal = 1;
  size_t i = 0U;
  while ((equal == 1) && (i < len)) {
    if (a[i] != b[i]) {
      equal = 0;
    }
    ++i;
  }
  return equal;
}
