/*
 * Arm semihosting output and exit for the on-device test runner.
 */
#ifndef UTVM_CRT_TESTS_FIRMWARE_SEMIHOST_H_
#define UTVM_CRT_TESTS_FIRMWARE_SEMIHOST_H_

#include <stdint.h>

/*! \brief Write a NUL-terminated string to the host console. */
void SemihostWrite(const char* text);

/*! \brief End the program: host exit status 0 when success != 0, 1 otherwise. */
__attribute__((noreturn)) void SemihostExit(int32_t success);

#endif /* UTVM_CRT_TESTS_FIRMWARE_SEMIHOST_H_ */
