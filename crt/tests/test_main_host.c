/*
 * Host main of the CRT unit tests: prints "N passed, N failed"; exit status 1 on failure.
 */
#include <stdio.h>

#include "unittest.h"

int main(void) {
  uint32_t passed = 0U;
  uint32_t failed = 0U;
  utvm_crt_run_all_tests(&passed, &failed);
  (void)printf("%u passed, %u failed\n", (unsigned int)passed, (unsigned int)failed);
  return (failed == 0U) ? 0 : 1;
}
