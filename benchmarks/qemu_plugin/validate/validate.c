/*
 * Validation firmware for the insn_count plugin: a region of exactly known instruction count
 * between the two markers, for Cortex-M4 (mps2-an386) and Cortex-M55 (mps3-an547).
 *
 * Build: arm-none-eabi-gcc -mcpu=cortex-m4 -mthumb -mfloat-abi=soft -O2 -ffreestanding -nostdlib
 *        -DLOOP_N=<n> [-DPAIRS=<k>] -T validate.ld validate.c -o validate.elf   (validate.py does it)
 *
 * measured(n) runs `bl bench_marker_start`, n iterations of `subs; nop; bne` and
 * `bl bench_marker_end`. Counted by the plugin (from the start marker's entry, included, to the
 * end marker's entry, excluded): the start marker's `bx lr`, 3n loop instructions and the
 * `bl bench_marker_end`, so 3n + 2 per pair; LOOP_N=0 calls the markers back to back instead
 * (an empty region: `bx lr` + `bl`, 2). The region runs PAIRS times (default 1).
 */
#include <stdint.h>

#ifndef LOOP_N
#error "define LOOP_N (iterations of the measured loop, 0: empty region)"
#endif
#ifndef PAIRS
#define PAIRS 1
#endif

/* The markers, as the benchmark firmware declares them. */
void bench_marker_start(void) __attribute__((noinline, used));
void bench_marker_end(void) __attribute__((noinline, used));
void bench_marker_start(void) { __asm__ volatile("" ::: "memory"); }
void bench_marker_end(void) { __asm__ volatile("" ::: "memory"); }

/* Naked: no compiler-generated instructions between the markers. n (r0) must be >= 1. */
__attribute__((naked, noinline)) static void measured(uint32_t n) {
  (void)n;
  __asm__ volatile(
      "push {r4, lr}\n\t"
      "mov r4, r0\n\t"
      "bl bench_marker_start\n"
      "1:\n\t"
      "subs r4, r4, #1\n\t"
      "nop\n\t"
      "bne 1b\n\t"
      "bl bench_marker_end\n\t"
      "pop {r4, pc}\n");
}

__attribute__((naked, noinline)) static void empty_region(void) {
  __asm__ volatile(
      "push {r4, lr}\n\t"
      "bl bench_marker_start\n\t"
      "bl bench_marker_end\n\t"
      "pop {r4, pc}\n");
}

/* Arm semihosting (BKPT 0xAB on M-profile; QEMU -semihosting). */
#define SYS_WRITE0 0x04u
#define SYS_EXIT_EXTENDED 0x20u
#define ADP_STOPPED_APPLICATION_EXIT 0x20026u

static uint32_t semihosting_call(uint32_t op, const void *arg) {
  register uint32_t r0 __asm__("r0") = op;
  register const void *r1 __asm__("r1") = arg;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

static void write0(const char *s) { (void)semihosting_call(SYS_WRITE0, s); }

__attribute__((noreturn)) static void exit_with(uint32_t status) {
  const uint32_t block[2] = {ADP_STOPPED_APPLICATION_EXIT, status};
  (void)semihosting_call(SYS_EXIT_EXTENDED, block);
  for (;;) {
  }
}

#define STR2(x) #x
#define STR(x) STR2(x)

void Reset_Handler(void) __attribute__((noreturn));
void Fault_Handler(void) __attribute__((noreturn));

void Reset_Handler(void) {
  write0("validate: LOOP_N=" STR(LOOP_N) " PAIRS=" STR(PAIRS) "\n");
  for (int i = 0; i < PAIRS; i++) {
    if (LOOP_N == 0) {
      empty_region();
    } else {
      measured(LOOP_N);
    }
  }
  write0("validate: done\n");
  exit_with(0);
}

void Fault_Handler(void) {
  write0("validate: fault\n");
  exit_with(3);
}

extern uint32_t __stack_top__[];

/* Initial stack pointer, reset vector, then the other system exceptions (no device interrupts). */
__attribute__((section(".vectors"), used)) static void (*const vectors[16])(void) = {
    (void (*)(void))(uintptr_t)__stack_top__,
    Reset_Handler,
    Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler,
    0, 0, 0,
    Fault_Handler, Fault_Handler, 0, Fault_Handler, Fault_Handler,
};
