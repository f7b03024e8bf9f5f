/*
 * On-device runner of the CRT unit tests (acceptance test): prints "N passed, N failed" through
 * semihosting and exits with status 0 only when every test passed.
 */
#include <stdint.h>
#include <stdio.h>

#include "../unittest.h"
#include "semihost.h"

int main(void) {
  uint32_t passed = 0U;
  uint32_t failed = 0U;
  char line[64];
  utvm_crt_run_all_tests(&passed, &failed);
  (void)snprintf(line, sizeof(line), "%u passed, %u failed\n", (unsigned int)passed,
                 (unsigned int)failed);
  SemihostWrite(line);
  SemihostExit((failed == 0U) ? 1 : 0);
  return 0;
}
