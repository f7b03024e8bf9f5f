/* Arm semihosting calls (BKPT 0xAB on M-profile). QEMU: -semihosting. */
#include "semihosting.h"

#include <stdint.h>

#define SYS_WRITE0 0x04u
#define SYS_EXIT_EXTENDED 0x20u
#define ADP_STOPPED_APPLICATION_EXIT 0x20026u

static uint32_t semihosting_call(uint32_t op, const void* arg) {
  register uint32_t r0 __asm__("r0") = op;
  register const void* r1 __asm__("r1") = arg;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

void semihosting_write0(const char* s) { (void)semihosting_call(SYS_WRITE0, s); }

void semihosting_exit(int status) {
  const uint32_t block[2] = {ADP_STOPPED_APPLICATION_EXIT, (uint32_t)status};
  (void)semihosting_call(SYS_EXIT_EXTENDED, block);
  for (;;) {
  }
}
