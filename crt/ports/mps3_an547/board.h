/* QEMU mps3-an547 (Cortex-M55, SSE-300): what crt/ports/cmsdk_rpc_main.c needs to know of the board.
 * The core starts in the Secure state, so the UART is reached through its Secure alias. */
#ifndef UTVM_BOARD_H_
#define UTVM_BOARD_H_

#define UTVM_BOARD_UART0_BASE 0x59303000UL /* CMSDK APB UART0 (Secure alias): QEMU's first -serial */
#define UTVM_BOARD_UART0_IRQ_A 33U /* UART0 receive and transmit interrupts (QEMU 7.2 swaps the two: both are enabled) */
#define UTVM_BOARD_UART0_IRQ_B 34U
#define UTVM_BOARD_CPU_HZ 32000000U        /* SysTick counts the CPU clock */

#endif
