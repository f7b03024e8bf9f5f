/*
 * utvm-build C runtime: LIFO stack allocator.
 *
 * Layout of one allocation at offset o (o aligned):
 *   [o, o + ALIGN)       header: offset of the previous allocation's data (size_t)
 *   [o + ALIGN, ...)     the caller's bytes
 * Freeing the allocation whose data is at offset `last` sets top = last - ALIGN and
 * last = the stored previous offset.
 */
#include <string.h>

#include <tvm/runtime/crt/stack_allocator.h>

#include "crt_internal.h"

#define ALIGN ((size_t)TVM_CRT_STACK_ALLOCATOR_ALIGN)

tvm_crt_error_t TVMStackAllocator_Init(TVMStackAllocator* alloc, uint8_t* buffer,
                                       size_t buffer_size_bytes) {
  tvm_crt_error_t err = kTvmErrorInvalidArgument;
  if ((alloc != NULL) && (buffer != NULL)) {
    const size_t misalignment = (size_t)((uintptr_t)buffer % ALIGN);
    const size_t skip = (misalignment == 0U) ? 0U : (ALIGN - misalignment);
    if (buffer_size_bytes < (skip + (2U * ALIGN))) {
      err = kTvmErrorBufferTooSmall;
    } else {
      alloc->base = &buffer[skip];
      alloc->size = (buffer_size_bytes - skip) - ((buffer_size_bytes - skip) % ALIGN);
      alloc->top = 0U;
      alloc->last = 0U;
      alloc->max_used = 0U;
      err = kTvmErrorNoError;
    }
  }
  return err;
}

tvm_crt_error_t TVMStackAllocator_Allocate(TVMStackAllocator* alloc, size_t nbytes,
                                           void** out_ptr) {
  tvm_crt_error_t err = kTvmErrorInvalidArgument;
  if ((alloc != NULL) && (alloc->base != NULL) && (out_ptr != NULL)) {
    const size_t available = alloc->size - alloc->top; /* multiple of ALIGN */
    const size_t space = (available >= ALIGN) ? (available - ALIGN) : 0U;
    const size_t padding = (ALIGN - (nbytes % ALIGN)) % ALIGN;
    if ((available < ALIGN) || (nbytes > space) || (padding > (space - nbytes))) {
      err = kTvmErrorPlatformNoMemory;
    } else {
      const size_t header = alloc->top;
      (void)memcpy(&alloc->base[header], &alloc->last, sizeof(alloc->last));
      alloc->last = header + ALIGN;
      alloc->top = alloc->last + nbytes + padding;
      if (alloc->top > alloc->max_used) {
        alloc->max_used = alloc->top;
      }
      *out_ptr = &alloc->base[alloc->last];
      err = kTvmErrorNoError;
    }
  }
  return err;
}

tvm_crt_error_t TVMStackAllocator_Free(TVMStackAllocator* alloc, void* ptr) {
  tvm_crt_error_t err = kTvmErrorInvalidArgument;
  if ((alloc != NULL) && (alloc->base != NULL) && (ptr != NULL)) {
    if ((alloc->last == 0U) || (ptr != (void*)&alloc->base[alloc->last])) {
      err = kTvmErrorPlatformStackAllocBadFree;
    } else {
      const size_t header = alloc->last - ALIGN;
      size_t previous = 0U;
      (void)memcpy(&previous, &alloc->base[header], sizeof(previous));
      alloc->top = header;
      alloc->last = previous;
      err = kTvmErrorNoError;
    }
  }
  return err;
}

void TVMStackAllocator_Reset(TVMStackAllocator* alloc) {
  if (alloc != NULL) {
    alloc->top = 0U;
    alloc->last = 0U;
  }
}

size_t TVMStackAllocator_MaxUsed(const TVMStackAllocator* alloc) {
  return (alloc != NULL) ? alloc->max_used : 0U;
}
