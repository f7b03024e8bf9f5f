/*
 * RPC server firmware for Arm's MPS2/MPS3 boards as QEMU models them (mps2-an386: Cortex-M4,
 * mps3-an547: Cortex-M55): the CRT's RPC server on the board's first CMSDK APB UART (its first
 * -serial chardev), TVMPlatformTimerStart/Stop on SysTick (1 ms interrupts plus the counter for
 * sub-millisecond resolution). The board's UART address and CPU clock come from its board.h
 * (crt/ports/<board>/, on the include path), the memory map from its linker script there.
 * Built by `utvm-build rpc-server MODEL --device qemu-m4|qemu-m55` and `make -C crt size` with the
 * model's packed entry point (system library) and the runtime.
 *
 * The UART carries the RPC packets as they are (QEMU's chardev is lossless and flow-controlled),
 * or, with UTVM_RPC_FRAMED=1, in the frames of rpc_framing.h as a real serial line needs.
 */
#include <stdint.h>

#include <tvm/runtime/crt/crt.h>
#include <tvm/runtime/crt/platform.h>
#include <tvm/runtime/crt/rpc_framing.h>
#include <tvm/runtime/crt/rpc_server.h>

/* 1: the UART carries the frames of rpc_framing.h (CRC, resending), as a real serial line needs. */
#ifndef UTVM_RPC_FRAMED
#define UTVM_RPC_FRAMED 0
#endif
/* 1: leave QEMU (semihosting) after a Shutdown packet; 0: wait for the next session. */
#ifndef UTVM_RPC_EXIT_ON_SHUTDOWN
#define UTVM_RPC_EXIT_ON_SHUTDOWN 0
#endif
#ifndef UTVM_RPC_ARENA_BYTES
#define UTVM_RPC_ARENA_BYTES (64U * 1024U)
#endif

#include "board.h" /* UTVM_BOARD_UART0_BASE, UTVM_BOARD_CPU_HZ */

#define CPU_HZ UTVM_BOARD_CPU_HZ
#define TICKS_PER_MS (CPU_HZ / 1000U)

#define UART0_BASE UTVM_BOARD_UART0_BASE
#define UART_DATA (*(volatile uint32_t*)(UART0_BASE + 0x00U))
#define UART_STATE (*(volatile uint32_t*)(UART0_BASE + 0x04U))
#define UART_CTRL (*(volatile uint32_t*)(UART0_BASE + 0x08U))
#define UART_INTCLEAR (*(volatile uint32_t*)(UART0_BASE + 0x0CU))
#define UART_BAUDDIV (*(volatile uint32_t*)(UART0_BASE + 0x10U))
#define UART_CTRL_RX_IRQ 8U
#define UART_STATE_TX_FULL 1U
#define UART_STATE_RX_FULL 2U

#define NVIC_ISER(irq) (*(volatile uint32_t*)(0xE000E100UL + (4UL * ((uint32_t)(irq) / 32U))))
#define SYST_CSR (*(volatile uint32_t*)0xE000E010UL)
#define SYST_RVR (*(volatile uint32_t*)0xE000E014UL)
#define SYST_CVR (*(volatile uint32_t*)0xE000E018UL)

extern uint32_t _sidata;
extern uint32_t _sdata;
extern uint32_t _edata;
extern uint32_t _sbss;
extern uint32_t _ebss;
extern uint32_t _estack;

int main(void);
void Reset_Handler(void);
void Default_Handler(void);
void SysTick_Handler(void);
void Uart_Handler(void);

static volatile uint32_t g_ms = 0U;
static uint8_t g_arena[UTVM_RPC_ARENA_BYTES] __attribute__((aligned(16)));

/* ---- startup ---- */

void Reset_Handler(void) {
  const uint32_t* src = &_sidata;
  uint32_t* dst = &_sdata;
#if defined(__ARM_FP)
  *(volatile uint32_t*)0xE000ED88UL |= (0xFUL << 20); /* CP10, CP11 full access */
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

void SysTick_Handler(void) { g_ms = g_ms + 1U; }

/* The UART's receive interrupt only wakes the core from WFI in UartRead (the data is read there). */
void Uart_Handler(void) { UART_INTCLEAR = 3U; }

typedef void (*vector_t)(void);

/* 16 system exceptions, then 48 device interrupts: the UART lines of both boards lie below 48. */
#define NUM_VECTORS 64U
#define V16(h) h, h, h, h, h, h, h, h, h, h, h, h, h, h, h, h
__attribute__((section(".isr_vector"), used)) static const vector_t g_vectors[NUM_VECTORS] = {
    (vector_t)(uintptr_t)&_estack, &Reset_Handler, &Default_Handler, &Default_Handler,
    &Default_Handler, &Default_Handler, &Default_Handler, NULL, NULL, NULL, NULL,
    &Default_Handler, &Default_Handler, NULL, &Default_Handler, &SysTick_Handler,
    V16(&Uart_Handler), V16(&Uart_Handler), V16(&Uart_Handler)};

/* ---- time ---- */

/* Time in SysTick ticks since reset (wraps after ~170 s; differences stay exact). */
static uint32_t NowTicks(void) {
  uint32_t ms;
  uint32_t cvr;
  do {
    ms = g_ms;
    cvr = SYST_CVR;
  } while (ms != g_ms);
  return (ms * TICKS_PER_MS) + ((TICKS_PER_MS - 1U) - cvr);
}

static uint32_t g_timer_start = 0U;
static uint32_t g_timer_running = 0U;

tvm_crt_error_t TVMPlatformTimerStart(void) {
  tvm_crt_error_t err = kTvmErrorPlatformTimerBadState;
  if (g_timer_running == 0U) {
    g_timer_running = 1U;
    g_timer_start = NowTicks();
    err = kTvmErrorNoError;
  }
  return err;
}

tvm_crt_error_t TVMPlatformTimerStop(double* elapsed_time_seconds) {
  tvm_crt_error_t err = kTvmErrorPlatformTimerBadState;
  if (elapsed_time_seconds == NULL) {
    err = kTvmErrorInvalidArgument;
  } else if (g_timer_running != 0U) {
    const uint32_t ticks = NowTicks() - g_timer_start;
    *elapsed_time_seconds = (double)ticks / (double)CPU_HZ;
    g_timer_running = 0U;
    err = kTvmErrorNoError;
  } else {
    /* not running */
  }
  return err;
}

void TVMPlatformAbort(tvm_crt_error_t code) {
  (void)code;
  for (;;) {
  }
}

/* ---- transport: UART0 ---- */

static int32_t UartWrite(void* context, const uint8_t* data, size_t size) {
  size_t i;
  (void)context;
  for (i = 0U; i < size; ++i) {
    while ((UART_STATE & UART_STATE_TX_FULL) != 0U) {
    }
    UART_DATA = (uint32_t)data[i];
  }
  return (int32_t)size;
}

static int32_t UartRead(void* context, uint8_t* data, size_t size, uint32_t timeout_ms) {
  const uint32_t start = g_ms;
  size_t n = 0U;
  (void)context;
  while ((n == 0U) && ((timeout_ms == 0xFFFFFFFFU) || ((g_ms - start) <= timeout_ms))) {
    while ((n < size) && ((UART_STATE & UART_STATE_RX_FULL) != 0U)) {
      data[n] = (uint8_t)UART_DATA;
      ++n;
    }
    /* Sleep until a byte (UART interrupt) or the next SysTick: with interrupts masked, a byte
     * arriving between the test and WFI still ends the WFI (pending), and the handler runs after. */
    __asm__ volatile("cpsid i" ::: "memory");
    if ((n == 0U) && ((UART_STATE & UART_STATE_RX_FULL) == 0U)) {
      __asm__ volatile("wfi" ::: "memory");
    }
    __asm__ volatile("cpsie i" ::: "memory");
  }
  return (int32_t)n;
}

#if UTVM_RPC_EXIT_ON_SHUTDOWN
/* Arm semihosting SYS_EXIT (QEMU -semihosting-config enable=on): ends the emulator. */
static void SemihostExit(void) {
  static const uint32_t block[2] = {0x20026U /* ADP_Stopped_ApplicationExit */, 0U};
  register uint32_t r0 __asm__("r0") = 0x18U;
  register const uint32_t* r1 __asm__("r1") = block;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
}
#endif

int main(void) {
  TVMRpcServerConfig cfg;
  UART_BAUDDIV = 16U;
  UART_CTRL = 3U | UART_CTRL_RX_IRQ; /* TX and RX enabled, receive interrupt */
  NVIC_ISER(UTVM_BOARD_UART0_IRQ_A) = 1UL << (UTVM_BOARD_UART0_IRQ_A % 32U);
  NVIC_ISER(UTVM_BOARD_UART0_IRQ_B) = 1UL << (UTVM_BOARD_UART0_IRQ_B % 32U);
  SYST_RVR = TICKS_PER_MS - 1U;
  SYST_CVR = 0U;
  SYST_CSR = 7U; /* CPU clock, interrupt, enabled */
  (void)TVMInitializeRuntime();
#if UTVM_RPC_FRAMED
  {
    TVMRpcFramingConfig link;
    link.write = UartWrite;
    link.read = UartRead;
    link.io_context = NULL;
    link.ack_timeout_ms = 100U;
    link.max_retries = 50U;
    (void)TVMRpcFraming_Init(&link);
    TVMRpcFraming_Announce(); /* a host in the middle of a session learns of the reset */
  }
  cfg.write = TVMRpcFraming_Write;
  cfg.read = TVMRpcFraming_Read;
#else
  cfg.write = UartWrite;
  cfg.read = UartRead;
#endif
  cfg.io_context = NULL;
  cfg.arena = g_arena;
  cfg.arena_size = sizeof(g_arena);
  cfg.read_timeout_ms = 2000U;
  (void)TVMRpcServer_Init(&cfg);
  for (;;) {
    if (TVMRpcServer_Run() == kTVMRpcShutdown) {
#if UTVM_RPC_EXIT_ON_SHUTDOWN
      SemihostExit(); /* the emulator has served its one session */
#endif
    }
  }
  return 0;
}
