/*
 * utvm-build C runtime: LIFO stack allocator over a caller-supplied buffer.
 *
 * Each allocation costs TVM_CRT_STACK_ALLOCATOR_ALIGN bytes of bookkeeping
 * in the buffer; every returned pointer is aligned to that value. Frees must
 * come in reverse order of allocation (checked).
 */
#ifndef TVM_RUNTIME_CRT_STACK_ALLOCATOR_H_
#define TVM_RUNTIME_CRT_STACK_ALLOCATOR_H_

#include <stddef.h>
#include <stdint.h>

#include <tvm/runtime/crt/error_codes.h>

#ifdef __cplusplus
extern "C" {
#endif

/*! \brief State of one stack allocator (all offsets relative to `base`). */
typedef struct TVMStackAllocator {
  uint8_t* base;    /*!< aligned start of the usable buffer */
  size_t size;      /*!< usable bytes from base */
  size_t top;       /*!< first free offset (aligned) */
  size_t last;      /*!< offset of the last allocation's data, 0 when empty */
  size_t max_used;  /*!< high-water mark of top */
} TVMStackAllocator;

/*!
 * \brief Initialize an allocator over buffer (the start is aligned up internally).
 * \return kTvmErrorNoError, kTvmErrorBufferTooSmall or kTvmErrorInvalidArgument.
 */
tvm_crt_error_t TVMStackAllocator_Init(TVMStackAllocator* alloc, uint8_t* buffer,
                                       size_t buffer_size_bytes);

/*!
 * \brief Allocate nbytes (0 allowed) aligned to TVM_CRT_STACK_ALLOCATOR_ALIGN.
 * \return kTvmErrorNoError, kTvmErrorPlatformNoMemory or kTvmErrorInvalidArgument.
 */
tvm_crt_error_t TVMStackAllocator_Allocate(TVMStackAllocator* alloc, size_t nbytes,
                                           void** out_ptr);

/*!
 * \brief Free the most recent allocation.
 * \return kTvmErrorNoError, kTvmErrorPlatformStackAllocBadFree (not the most recent) or
 *         kTvmErrorInvalidArgument.
 */
tvm_crt_error_t TVMStackAllocator_Free(TVMStackAllocator* alloc, void* ptr);

/*! \brief Drop all allocations at once (the high-water mark is kept). */
void TVMStackAllocator_Reset(TVMStackAllocator* alloc);

/*! \brief Largest number of buffer bytes in use at any time since Init (0 for NULL). */
size_t TVMStackAllocator_MaxUsed(const TVMStackAllocator* alloc);

#ifdef __cplusplus
}
#endif

#endif /* TVM_RUNTIME_CRT_STACK_ALLOCATOR_H_ */
