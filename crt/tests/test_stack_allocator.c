/*
 * Tests of the LIFO stack allocator.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <tvm/runtime/crt/stack_allocator.h>

#include "crt_config.h"
#include "unittest.h"

#define ALIGN ((size_t)TVM_CRT_STACK_ALLOCATOR_ALIGN)

static size_t RoundUp(size_t n) { return ((n + ALIGN - 1U) / ALIGN) * ALIGN; }

static uint8_t g_buffer[1024 + TVM_CRT_STACK_ALLOCATOR_ALIGN];

static void TestInit(void) {
  TVMStackAllocator a;
  UTVM_CHECK(TVMStackAllocator_Init(NULL, g_buffer, sizeof(g_buffer)) == kTvmErrorInvalidArgument);
  UTVM_CHECK(TVMStackAllocator_Init(&a, NULL, sizeof(g_buffer)) == kTvmErrorInvalidArgument);
  UTVM_CHECK(TVMStackAllocator_Init(&a, g_buffer, ALIGN) == kTvmErrorBufferTooSmall);
  UTVM_CHECK(TVMStackAllocator_Init(&a, &g_buffer[1], sizeof(g_buffer) - 1U) == kTvmErrorNoError);
  UTVM_CHECK(((uintptr_t)a.base % ALIGN) == 0U);
  UTVM_CHECK(TVMStackAllocator_MaxUsed(&a) == 0U);
  UTVM_CHECK(TVMStackAllocator_MaxUsed(NULL) == 0U);
}

static void TestAllocateFreeLifo(void) {
  TVMStackAllocator a;
  void* p1 = NULL;
  void* p2 = NULL;
  void* p3 = NULL;
  UTVM_CHECK(TVMStackAllocator_Init(&a, g_buffer, sizeof(g_buffer)) == kTvmErrorNoError);
  UTVM_CHECK(TVMStackAllocator_Allocate(&a, 10U, &p1) == kTvmErrorNoError);
  UTVM_CHECK(TVMStackAllocator_Allocate(&a, 0U, &p2) == kTvmErrorNoError);
  UTVM_CHECK(TVMStackAllocator_Allocate(&a, 33U, &p3) == kTvmErrorNoError);
  UTVM_CHECK((p1 != NULL) && (p2 != NULL) && (p3 != NULL));
  UTVM_CHECK((p1 != p2) && (p2 != p3));
  UTVM_CHECK((((uintptr_t)p1 % ALIGN) == 0U) && (((uintptr_t)p3 % ALIGN) == 0U));
  (void)memset(p1, 0xA5, 10U);
  (void)memset(p3, 0x5A, 33U);
  /* out-of-order free refused */
  UTVM_CHECK(TVMStackAllocator_Free(&a, p1) == kTvmErrorPlatformStackAllocBadFree);
  UTVM_CHECK(TVMStackAllocator_Free(&a, p3) == kTvmErrorNoError);
  UTVM_CHECK(TVMStackAllocator_Free(&a, p3) == kTvmErrorPlatformStackAllocBadFree);
  UTVM_CHECK(TVMStackAllocator_Free(&a, p2) == kTvmErrorNoError);
  UTVM_CHECK(TVMStackAllocator_Free(&a, p1) == kTvmErrorNoError);
  UTVM_CHECK(TVMStackAllocator_Free(&a, p1) == kTvmErrorPlatformStackAllocBadFree);
  UTVM_CHECK(a.top == 0U);
  UTVM_CHECK(TVMStackAllocator_MaxUsed(&a) ==
             ((3U * ALIGN) + RoundUp(10U) + RoundUp(0U) + RoundUp(33U)));
  /* the same memory comes back after freeing */
  {
    void* again = NULL;
    UTVM_CHECK(TVMStackAllocator_Allocate(&a, 10U, &again) == kTvmErrorNoError);
    UTVM_CHECK(again == p1);
  }
}

static void TestExhaustion(void) {
  TVMStackAllocator a;
  void* p = NULL;
  void* q = NULL;
  const size_t usable = 4U * ALIGN;
  /* ALIGN - 1 spare bytes: exactly `usable` bytes remain whatever g_buffer's alignment */
  UTVM_CHECK(TVMStackAllocator_Init(&a, g_buffer, usable + ALIGN - 1U) == kTvmErrorNoError);
  UTVM_CHECK(a.size == usable);
  UTVM_CHECK(TVMStackAllocator_Allocate(&a, usable, &p) == kTvmErrorPlatformNoMemory);
  UTVM_CHECK(TVMStackAllocator_Allocate(&a, (size_t)-1, &p) == kTvmErrorPlatformNoMemory);
  UTVM_CHECK(TVMStackAllocator_Allocate(&a, usable - ALIGN, &p) == kTvmErrorNoError);
  UTVM_CHECK(TVMStackAllocator_Allocate(&a, 0U, &q) == kTvmErrorPlatformNoMemory);
  TVMStackAllocator_Reset(&a);
  UTVM_CHECK(TVMStackAllocator_Allocate(&a, 1U, &q) == kTvmErrorNoError);
  UTVM_CHECK(q == p);
  UTVM_CHECK(TVMStackAllocator_MaxUsed(&a) == usable);
}

static void TestNullArgs(void) {
  TVMStackAllocator a;
  TVMStackAllocator zeroed;
  void* p = NULL;
  (void)memset(&zeroed, 0, sizeof(zeroed));
  UTVM_CHECK(TVMStackAllocator_Init(&a, g_buffer, sizeof(g_buffer)) == kTvmErrorNoError);
  UTVM_CHECK(TVMStackAllocator_Allocate(NULL, 1U, &p) == kTvmErrorInvalidArgument);
  UTVM_CHECK(TVMStackAllocator_Allocate(&zeroed, 1U, &p) == kTvmErrorInvalidArgument);
  UTVM_CHECK(TVMStackAllocator_Allocate(&a, 1U, NULL) == kTvmErrorInvalidArgument);
  UTVM_CHECK(TVMStackAllocator_Free(NULL, g_buffer) == kTvmErrorInvalidArgument);
  UTVM_CHECK(TVMStackAllocator_Free(&a, NULL) == kTvmErrorInvalidArgument);
  UTVM_CHECK(TVMStackAllocator_Free(&a, g_buffer) == kTvmErrorPlatformStackAllocBadFree);
  TVMStackAllocator_Reset(NULL);
}

#define STACK_ALLOCATOR_CASES(X) X(Init) X(AllocateFreeLifo) X(Exhaustion) X(NullArgs)

UTVM_SUITE(stack_allocator, STACK_ALLOCATOR_CASES)
