/*
 * utvm-build C runtime: declarations shared by the runtime sources (not installed).
 */
#ifndef UTVM_CRT_SRC_CRT_INTERNAL_H_
#define UTVM_CRT_SRC_CRT_INTERNAL_H_

#include <stddef.h>
#include <stdint.h>

#include <tvm/runtime/crt/crt_config_check.h>
#include <tvm/runtime/crt/error_codes.h>

/*!
 * \brief Length of s, looking at no more than max_len characters.
 * \return the length, or max_len when there is no NUL among the first max_len characters.
 */
size_t TVMCRTStrLenBounded(const char* s, size_t max_len);

/*!
 * \brief Compare two strings of known length len for equality.
 * \return 1 when the first len characters are equal, 0 otherwise.
 */
int32_t TVMCRTStrEqualN(const char* a, const char* b, size_t len);

/*!
 * \brief Record an error: message "what" or "what: detail" (truncated) and its code.
 * \param code the error code
 * \param what fixed description
 * \param detail variable part (a name), or NULL
 */
void TVMCRTSetError(tvm_crt_error_t code, const char* what, const char* detail);

/*!
 * \brief Record an error with two numbers: "what: expected E, got G".
 */
void TVMCRTSetErrorCount(tvm_crt_error_t code, const char* what, uint32_t expected, int32_t got);

/*! \brief Clear the last error. */
void TVMCRTClearError(void);

#endif /* UTVM_CRT_SRC_CRT_INTERNAL_H_ */
