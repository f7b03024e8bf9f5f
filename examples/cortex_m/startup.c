/*
 * Startup code for Cortex-M0 / Cortex-M4 / Cortex-M55: vector table, reset handler, fault handler.
 *
 * Reset_Handler enables the FPU (and MVE on Cortex-M55) where there is one, copies .data from flash, zeroes .bss
 * and calls main(). The model's workspace (.bss.noinit.tvm) is deliberately not zeroed: the
 * generated code never reads it before writing it.
 */
#include <stdint.h>

#include "semihosting.h"

int main(void);

/* Defined by the linker script. */
extern uint32_t __data_load__[], __data_start__[], __data_end__[];
extern uint32_t __bss_start__[], __bss_end__[];
extern uint32_t __stack_top__[];

void Reset_Handler(void);
void Fault_Handler(void);

static void start(void) __attribute__((noinline, noreturn));

void Reset_Handler(void) {
#if defined(__ARM_FP) || defined(__ARM_FEATURE_MVE)
  /* CPACR: full access to CP10/CP11 (FPU, MVE) before any code that may use them (Armv6-M has
   * no CPACR: nothing to enable on Cortex-M0). */
  *(volatile uint32_t*)0xE000ED88u |= 0xFu << 20;
  __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
  start();
}

static void start(void) {
  const uint32_t* src = __data_load__;
  for (uint32_t* dst = __data_start__; dst < __data_end__;) {
    *dst++ = *src++;
  }
  for (uint32_t* dst = __bss_start__; dst < __bss_end__;) {
    *dst++ = 0;
  }
  semihosting_exit(main());
}

void Fault_Handler(void) {
  semihosting_write0("fault\n");
  semihosting_exit(3);
}

/* Initial stack pointer, then the 15 system exceptions; no device interrupts are used. */
__attribute__((section(".vectors"), used)) static void (*const vectors[16])(void) = {
    (void (*)(void))(uintptr_t)__stack_top__,
    Reset_Handler,
    Fault_Handler, /* NMI */
    Fault_Handler, /* HardFault */
    Fault_Handler, /* MemManage */
    Fault_Handler, /* BusFault */
    Fault_Handler, /* UsageFault */
    Fault_Handler, /* SecureFault (v8-M) */
    0, 0, 0,
    Fault_Handler, /* SVCall */
    Fault_Handler, /* DebugMonitor */
    0,
    Fault_Handler, /* PendSV */
    Fault_Handler, /* SysTick */
};
