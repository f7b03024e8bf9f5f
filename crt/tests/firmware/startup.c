/*
 * Minimal Cortex-M startup for the size-report firmware: vector table, .data/.bss setup,
 * main(). Not a board support package.
 */
#include <stdint.h>

extern uint32_t _sidata;
extern uint32_t _sdata;
extern uint32_t _edata;
extern uint32_t _sbss;
extern uint32_t _ebss;
extern uint32_t _estack;

int main(void);
void Reset_Handler(void);
void Default_Handler(void);

void Reset_Handler(void) {
  const uint32_t* src = &_sidata;
  uint32_t* dst = &_sdata;
#if defined(__ARM_FP)
  /* enable the FPU (CP10, CP11 full access) before any floating-point instruction */
  *(volatile uint32_t*)0xE000ED88UL |= (0xFUL << 20);
  __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
  while (dst < &_edata) {
    *dst = *src;
    ++dst;
    ++src;
  }
  dst = &_sbss;
  while (dst < &_ebss) {
    *dst = 0U;
    ++dst;
  }
  (void)main();
  for (;;) {
  }
}

void Default_Handler(void) {
  for (;;) {
  }
}

typedef void (*vector_t)(void);

__attribute__((section(".isr_vector"), used)) static const vector_t g_vectors[4] = {
    (vector_t)(uintptr_t)&_estack, /* initial stack pointer */
    &Reset_Handler,
    &Default_Handler, /* NMI */
    &Default_Handler, /* HardFault */
};
