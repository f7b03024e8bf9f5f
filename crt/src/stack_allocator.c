/*
 * utvm-build C runtime: LIFO stack allocator.
 *
 * Layout of one allocation at offset o (o aligned):
 *   [o, o + ALIGN)       header: offset of the previous allocation's data (size_t)
 *   [o + ALIGN, ...)     the caller's bytes
 * Freeing the allocation whose data is at offset `last` sets top = last - ALIGN and
 * last = the stored previous offset.
 */
#include <tvm/runtime/crt/stack_allocator.h>

#include "crt_internal.h"

#define ALIGN ((size_t)TVM_CRT_STACK_ALLOCATOR_ALIGN)

/* Store an offset in the header at `at`, byte by byte (no alignment or aliasing concerns). */
static void StoreOffset(uint8_t* base, size_t at, size_t value) {
  size_t i;
  for (i = 0U; i < sizeof(size_t); ++i) {
    base[at + i] = (uint8_t)((value >> (8U * i)) & 0xFFU);
  }
}

static size_t LoadOffset(const uint8_t* base, size_t at) {
  size_t value = 0U;
  size_t i;
  for (i = 0U; i < sizeof(size_t); ++i) {
    value |= ((size_t)base[at + i]) << (8U * i);
  }
  return value;
}

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
      StoreOffset(alloc->base, header, alloc->last);
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
      alloc->top = header;
      alloc->last = LoadOffset(alloc->base, header);
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
