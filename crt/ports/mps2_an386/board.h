/* QEMU mps2-an386 (Cortex-M4): what crt/ports/cmsdk_rpc_main.c needs to know of the board. */
#ifndef UTVM_BOARD_H_
#define UTVM_BOARD_H_

#define UTVM_BOARD_UART0_BASE 0x40004000UL /* CMSDK APB UART0: QEMU's first -serial */
#define UTVM_BOARD_UART0_IRQ_A 0U /* UART0 receive and transmit interrupts */
#define UTVM_BOARD_UART0_IRQ_B 1U
#define UTVM_BOARD_CPU_HZ 25000000U        /* SysTick counts the CPU clock */

#endif
