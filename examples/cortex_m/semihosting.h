/* Minimal Arm semihosting: console output and exit, no C library needed. */
#ifndef SEMIHOSTING_H
#define SEMIHOSTING_H

/* Writes a NUL-terminated string to the debugger's (QEMU's) console. */
void semihosting_write0(const char* s);

/* Ends the program; QEMU exits with `status`. */
void semihosting_exit(int status) __attribute__((noreturn));

#endif /* SEMIHOSTING_H */
