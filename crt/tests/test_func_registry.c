/*
 * Tests of TVMFuncRegistry and TVMMutableFuncRegistry.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <tvm/runtime/crt/func_registry.h>

#include "crt_config.h"
#include "unittest.h"

static int FuncA(TVMValue* args, int* codes, int n, TVMValue* rv, int* rc, void* res) {
  (void)args; (void)codes; (void)n; (void)rv; (void)rc; (void)res;
  return 1;
}
static int FuncB(TVMValue* args, int* codes, int n, TVMValue* rv, int* rc, void* res) {
  (void)args; (void)codes; (void)n; (void)rv; (void)rc; (void)res;
  return 2;
}
static int FuncC(TVMValue* args, int* codes, int n, TVMValue* rv, int* rc, void* res) {
  (void)args; (void)codes; (void)n; (void)rv; (void)rc; (void)res;
  return 3;
}

static const TVMBackendPackedCFunc kFuncs[3] = {&FuncA, &FuncB, &FuncC};
/* "add" starts with hex digits: the count escape must be a separate literal. */
static const TVMFuncRegistry kRegistry = {"\x03" "add\0" "bias_add\0" "conv2d\0", kFuncs};

static void TestGetNumFuncs(void) {
  const TVMFuncRegistry no_names = {NULL, kFuncs};
  const TVMFuncRegistry empty = {"\0", NULL};
  UTVM_CHECK(TVMFuncRegistry_GetNumFuncs(NULL) == 0U);
  UTVM_CHECK(TVMFuncRegistry_GetNumFuncs(&no_names) == 0U);
  UTVM_CHECK(TVMFuncRegistry_GetNumFuncs(&empty) == 0U);
  UTVM_CHECK(TVMFuncRegistry_GetNumFuncs(&kRegistry) == 3U);
}

static void TestLookupFound(void) {
  tvm_function_index_t idx = 99U;
  UTVM_CHECK(TVMFuncRegistry_Lookup(&kRegistry, "add", &idx) == kTvmErrorNoError);
  UTVM_CHECK(idx == 0U);
  UTVM_CHECK(TVMFuncRegistry_Lookup(&kRegistry, "bias_add", &idx) == kTvmErrorNoError);
  UTVM_CHECK(idx == 1U);
  UTVM_CHECK(TVMFuncRegistry_Lookup(&kRegistry, "conv2d", &idx) == kTvmErrorNoError);
  UTVM_CHECK(idx == 2U);
}

static void TestLookupNotFound(void) {
  const TVMFuncRegistry empty = {"\0", NULL};
  tvm_function_index_t idx = 99U;
  UTVM_CHECK(TVMFuncRegistry_Lookup(&kRegistry, "ad", &idx) == kTvmErrorFunctionNameNotFound);
  UTVM_CHECK(TVMFuncRegistry_Lookup(&kRegistry, "addx", &idx) == kTvmErrorFunctionNameNotFound);
  UTVM_CHECK(TVMFuncRegistry_Lookup(&kRegistry, "bias", &idx) == kTvmErrorFunctionNameNotFound);
  UTVM_CHECK(TVMFuncRegistry_Lookup(&kRegistry, "", &idx) == kTvmErrorFunctionNameNotFound);
  UTVM_CHECK(TVMFuncRegistry_Lookup(&empty, "add", &idx) == kTvmErrorFunctionNameNotFound);
  UTVM_CHECK(idx == 99U);
}

static void TestLookupNullArgs(void) {
  const TVMFuncRegistry no_names = {NULL, kFuncs};
  tvm_function_index_t idx = 0U;
  UTVM_CHECK(TVMFuncRegistry_Lookup(NULL, "add", &idx) == kTvmErrorInvalidArgument);
  UTVM_CHECK(TVMFuncRegistry_Lookup(&no_names, "add", &idx) == kTvmErrorInvalidArgument);
  UTVM_CHECK(TVMFuncRegistry_Lookup(&kRegistry, NULL, &idx) == kTvmErrorInvalidArgument);
  UTVM_CHECK(TVMFuncRegistry_Lookup(&kRegistry, "add", NULL) == kTvmErrorInvalidArgument);
}

static void TestLookupTooLong(void) {
  char name[TVM_CRT_MAX_STRLEN_FUNCTION_NAME + 1];
  tvm_function_index_t idx = 0U;
  (void)memset(name, 'x', sizeof(name));
  name[TVM_CRT_MAX_STRLEN_FUNCTION_NAME] = '\0'; /* MAX characters: one too many */
  UTVM_CHECK(TVMFuncRegistry_Lookup(&kRegistry, name, &idx) == kTvmErrorFunctionNameTooLong);
  name[TVM_CRT_MAX_STRLEN_FUNCTION_NAME - 1] = '\0'; /* MAX - 1 characters: accepted */
  UTVM_CHECK(TVMFuncRegistry_Lookup(&kRegistry, name, &idx) == kTvmErrorFunctionNameNotFound);
}

static void TestLookupMalformed(void) {
  /* count claims 3 names, blob holds one: lookup must stop at the terminator */
  const TVMFuncRegistry bad = {"\x03" "add\0", kFuncs};
  tvm_function_index_t idx = 0U;
  const char* name = NULL;
  UTVM_CHECK(TVMFuncRegistry_Lookup(&bad, "add", &idx) == kTvmErrorNoError);
  UTVM_CHECK(TVMFuncRegistry_Lookup(&bad, "conv2d", &idx) == kTvmErrorFunctionNameNotFound);
  UTVM_CHECK(TVMFuncRegistry_GetName(&bad, 2U, &name) == kTvmErrorFunctionIndexInvalid);
}

static void TestGetByIndex(void) {
  const TVMBackendPackedCFunc with_null[2] = {&FuncA, NULL};
  const TVMFuncRegistry reg_null = {"\x02" "a\0" "b\0", with_null};
  const TVMFuncRegistry no_funcs = {"\x01" "a\0", NULL};
  TVMBackendPackedCFunc f = NULL;
  UTVM_CHECK(TVMFuncRegistry_GetByIndex(&kRegistry, 0U, &f) == kTvmErrorNoError);
  UTVM_CHECK(f == &FuncA);
  UTVM_CHECK(TVMFuncRegistry_GetByIndex(&kRegistry, 2U, &f) == kTvmErrorNoError);
  UTVM_CHECK(f == &FuncC);
  UTVM_CHECK(TVMFuncRegistry_GetByIndex(&kRegistry, 3U, &f) == kTvmErrorFunctionIndexInvalid);
  UTVM_CHECK(TVMFuncRegistry_GetByIndex(&kRegistry, 0xFFFFU, &f) ==
             kTvmErrorFunctionIndexInvalid);
  UTVM_CHECK(TVMFuncRegistry_GetByIndex(&reg_null, 1U, &f) == kTvmErrorFunctionIndexInvalid);
  UTVM_CHECK(TVMFuncRegistry_GetByIndex(NULL, 0U, &f) == kTvmErrorInvalidArgument);
  UTVM_CHECK(TVMFuncRegistry_GetByIndex(&no_funcs, 0U, &f) == kTvmErrorInvalidArgument);
  UTVM_CHECK(TVMFuncRegistry_GetByIndex(&kRegistry, 0U, NULL) == kTvmErrorInvalidArgument);
  UTVM_CHECK(f == &FuncC);
}

static void TestGetName(void) {
  const char* name = NULL;
  UTVM_CHECK(TVMFuncRegistry_GetName(&kRegistry, 0U, &name) == kTvmErrorNoError);
  UTVM_CHECK((name != NULL) && (strcmp(name, "add") == 0));
  UTVM_CHECK(TVMFuncRegistry_GetName(&kRegistry, 2U, &name) == kTvmErrorNoError);
  UTVM_CHECK((name != NULL) && (strcmp(name, "conv2d") == 0));
  UTVM_CHECK(TVMFuncRegistry_GetName(&kRegistry, 3U, &name) == kTvmErrorFunctionIndexInvalid);
  UTVM_CHECK(TVMFuncRegistry_GetName(NULL, 0U, &name) == kTvmErrorInvalidArgument);
  UTVM_CHECK(TVMFuncRegistry_GetName(&kRegistry, 0U, NULL) == kTvmErrorInvalidArgument);
}

/* Buffer with pointer alignment so tests can control misalignment. */
typedef union {
  uint8_t bytes[1024];
  TVMBackendPackedCFunc align;
} RegistryBuffer;

static void TestMutableCreate(void) {
  RegistryBuffer buf;
  TVMMutableFuncRegistry reg;
  const size_t entry = TVM_CRT_REGISTRY_AVERAGE_NAME_BYTES + sizeof(TVMBackendPackedCFunc);
  const size_t min_size = 2U + entry + sizeof(TVMBackendPackedCFunc);
  UTVM_CHECK(TVMMutableFuncRegistry_Create(NULL, buf.bytes, 64U) == kTvmErrorInvalidArgument);
  UTVM_CHECK(TVMMutableFuncRegistry_Create(&reg, NULL, 64U) == kTvmErrorInvalidArgument);
  UTVM_CHECK(TVMMutableFuncRegistry_Create(&reg, buf.bytes, min_size - 1U) ==
             kTvmErrorBufferTooSmall);
  UTVM_CHECK(TVMMutableFuncRegistry_Create(&reg, buf.bytes, min_size) == kTvmErrorNoError);
  UTVM_CHECK(reg.max_functions == 1U);
  UTVM_CHECK(TVMMutableFuncRegistry_Create(&reg, buf.bytes, sizeof(buf.bytes)) ==
             kTvmErrorNoError);
  UTVM_CHECK(reg.max_functions == ((sizeof(buf.bytes) - 2U) / entry));
  UTVM_CHECK(TVMFuncRegistry_GetNumFuncs(&reg.registry) == 0U);
  UTVM_CHECK((const void*)reg.registry.names == (const void*)buf.bytes);
  UTVM_CHECK(((uintptr_t)reg.registry.funcs % sizeof(TVMBackendPackedCFunc)) == 0U);
  UTVM_CHECK(reg.names_size_bytes >= (2U + (reg.max_functions * 8U)));
  /* misaligned block: pointers still aligned and inside the block */
  UTVM_CHECK(TVMMutableFuncRegistry_Create(&reg, &buf.bytes[1], 200U) == kTvmErrorNoError);
  UTVM_CHECK(((uintptr_t)reg.registry.funcs % sizeof(TVMBackendPackedCFunc)) == 0U);
  UTVM_CHECK((const uint8_t*)(const void*)&reg.registry.funcs[reg.max_functions] <=
             &buf.bytes[201]);
}

static void TestMutableSetAndLookup(void) {
  RegistryBuffer buf;
  TVMMutableFuncRegistry reg;
  tvm_function_index_t idx = 99U;
  TVMBackendPackedCFunc f = NULL;
  const char* name = NULL;
  UTVM_CHECK(TVMMutableFuncRegistry_Create(&reg, buf.bytes, sizeof(buf.bytes)) ==
             kTvmErrorNoError);
  UTVM_CHECK(TVMMutableFuncRegistry_Set(&reg, "fa", &FuncA, 0) == kTvmErrorNoError);
  UTVM_CHECK(TVMMutableFuncRegistry_Set(&reg, "fb", &FuncB, 0) == kTvmErrorNoError);
  UTVM_CHECK(TVMFuncRegistry_GetNumFuncs(&reg.registry) == 2U);
  UTVM_CHECK(TVMFuncRegistry_Lookup(&reg.registry, "fb", &idx) == kTvmErrorNoError);
  UTVM_CHECK(idx == 1U);
  UTVM_CHECK(TVMFuncRegistry_GetByIndex(&reg.registry, idx, &f) == kTvmErrorNoError);
  UTVM_CHECK(f == &FuncB);
  UTVM_CHECK(TVMFuncRegistry_GetName(&reg.registry, 0U, &name) == kTvmErrorNoError);
  UTVM_CHECK((name != NULL) && (strcmp(name, "fa") == 0));
  /* blob format: count, names, extra NUL */
  UTVM_CHECK(memcmp(buf.bytes, "\x02" "fa\0" "fb\0", 8U) == 0);
}

static void TestMutableOverride(void) {
  RegistryBuffer buf;
  TVMMutableFuncRegistry reg;
  tvm_function_index_t idx = 0U;
  TVMBackendPackedCFunc f = NULL;
  UTVM_CHECK(TVMMutableFuncRegistry_Create(&reg, buf.bytes, sizeof(buf.bytes)) ==
             kTvmErrorNoError);
  UTVM_CHECK(TVMMutableFuncRegistry_Set(&reg, "f", &FuncA, 0) == kTvmErrorNoError);
  UTVM_CHECK(TVMMutableFuncRegistry_Set(&reg, "f", &FuncB, 0) == kTvmErrorFunctionAlreadyDefined);
  UTVM_CHECK(TVMFuncRegistry_Lookup(&reg.registry, "f", &idx) == kTvmErrorNoError);
  UTVM_CHECK(TVMFuncRegistry_GetByIndex(&reg.registry, idx, &f) == kTvmErrorNoError);
  UTVM_CHECK(f == &FuncA);
  UTVM_CHECK(TVMMutableFuncRegistry_Set(&reg, "f", &FuncB, 1) == kTvmErrorNoError);
  UTVM_CHECK(TVMFuncRegistry_GetByIndex(&reg.registry, idx, &f) == kTvmErrorNoError);
  UTVM_CHECK(f == &FuncB);
  UTVM_CHECK(TVMFuncRegistry_GetNumFuncs(&reg.registry) == 1U);
}

static void TestMutableFullByCount(void) {
  RegistryBuffer buf;
  TVMMutableFuncRegistry reg;
  const size_t entry = TVM_CRT_REGISTRY_AVERAGE_NAME_BYTES + sizeof(TVMBackendPackedCFunc);
  UTVM_CHECK(TVMMutableFuncRegistry_Create(&reg, buf.bytes,
                                           2U + entry + sizeof(TVMBackendPackedCFunc)) ==
             kTvmErrorNoError);
  UTVM_CHECK(TVMMutableFuncRegistry_Set(&reg, "a", &FuncA, 0) == kTvmErrorNoError);
  UTVM_CHECK(TVMMutableFuncRegistry_Set(&reg, "b", &FuncB, 0) == kTvmErrorFunctionRegistryFull);
  /* replacing an existing function still works when full */
  UTVM_CHECK(TVMMutableFuncRegistry_Set(&reg, "a", &FuncC, 1) == kTvmErrorNoError);
  UTVM_CHECK(TVMFuncRegistry_GetNumFuncs(&reg.registry) == 1U);
}

static void TestMutableFullByNames(void) {
  RegistryBuffer buf;
  TVMMutableFuncRegistry reg;
  char name[TVM_CRT_MAX_STRLEN_FUNCTION_NAME];
  uint32_t i;
  uint32_t added = 0U;
  tvm_crt_error_t err = kTvmErrorNoError;
  UTVM_CHECK(TVMMutableFuncRegistry_Create(&reg, buf.bytes, 256U) == kTvmErrorNoError);
  (void)memset(name, 'n', sizeof(name));
  name[sizeof(name) - 1U] = '\0';
  for (i = 0U; (i < 20U) && (err == kTvmErrorNoError); ++i) {
    name[0] = (char)('a' + (char)i);
    err = TVMMutableFuncRegistry_Set(&reg, name, &FuncA, 0);
    if (err == kTvmErrorNoError) {
      ++added;
    }
  }
  UTVM_CHECK(err == kTvmErrorFunctionRegistryFull);
  UTVM_CHECK(added < reg.max_functions);
  UTVM_CHECK(TVMFuncRegistry_GetNumFuncs(&reg.registry) == added);
  /* names stayed inside their region and the blob is still well formed */
  name[0] = 'a';
  {
    tvm_function_index_t idx = 9U;
    UTVM_CHECK(TVMFuncRegistry_Lookup(&reg.registry, name, &idx) == kTvmErrorNoError);
    UTVM_CHECK(idx == 0U);
  }
}

static void TestMutableNameLength(void) {
  RegistryBuffer buf;
  TVMMutableFuncRegistry reg;
  char name[TVM_CRT_MAX_STRLEN_FUNCTION_NAME + 1];
  tvm_function_index_t idx = 0U;
  UTVM_CHECK(TVMMutableFuncRegistry_Create(&reg, buf.bytes, sizeof(buf.bytes)) ==
             kTvmErrorNoError);
  (void)memset(name, 'y', sizeof(name));
  name[TVM_CRT_MAX_STRLEN_FUNCTION_NAME] = '\0';
  UTVM_CHECK(TVMMutableFuncRegistry_Set(&reg, name, &FuncA, 0) == kTvmErrorFunctionNameTooLong);
  name[TVM_CRT_MAX_STRLEN_FUNCTION_NAME - 1] = '\0';
  UTVM_CHECK(TVMMutableFuncRegistry_Set(&reg, name, &FuncA, 0) == kTvmErrorNoError);
  UTVM_CHECK(TVMFuncRegistry_Lookup(&reg.registry, name, &idx) == kTvmErrorNoError);
}

static void TestMutableNullArgs(void) {
  RegistryBuffer buf;
  TVMMutableFuncRegistry reg;
  TVMMutableFuncRegistry zeroed;
  (void)memset(&zeroed, 0, sizeof(zeroed));
  UTVM_CHECK(TVMMutableFuncRegistry_Create(&reg, buf.bytes, sizeof(buf.bytes)) ==
             kTvmErrorNoError);
  UTVM_CHECK(TVMMutableFuncRegistry_Set(NULL, "a", &FuncA, 0) == kTvmErrorInvalidArgument);
  UTVM_CHECK(TVMMutableFuncRegistry_Set(&zeroed, "a", &FuncA, 0) == kTvmErrorInvalidArgument);
  UTVM_CHECK(TVMMutableFuncRegistry_Set(&reg, NULL, &FuncA, 0) == kTvmErrorInvalidArgument);
  UTVM_CHECK(TVMMutableFuncRegistry_Set(&reg, "a", NULL, 0) == kTvmErrorInvalidArgument);
  UTVM_CHECK(TVMMutableFuncRegistry_Set(&reg, "", &FuncA, 0) == kTvmErrorInvalidArgument);
  UTVM_CHECK(TVMFuncRegistry_GetNumFuncs(&reg.registry) == 0U);
}

#define FUNC_REGISTRY_CASES(X) \
  X(GetNumFuncs) X(LookupFound) X(LookupNotFound) X(LookupNullArgs) X(LookupTooLong) \
  X(LookupMalformed) X(GetByIndex) X(GetName) X(MutableCreate) X(MutableSetAndLookup) \
  X(MutableOverride) X(MutableFullByCount) X(MutableFullByNames) X(MutableNameLength) \
  X(MutableNullArgs)

UTVM_SUITE(func_registry, FUNC_REGISTRY_CASES)
