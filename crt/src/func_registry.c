/*
 * utvm-build C runtime: TVMFuncRegistry (const, linear lookup) and TVMMutableFuncRegistry.
 */
#include <tvm/runtime/crt/func_registry.h>

#include <tvm/runtime/crt/logging.h>

#include "crt_internal.h"

/* Longest accepted name, NUL excluded. */
#define MAX_NAME_LEN ((size_t)TVM_CRT_MAX_STRLEN_FUNCTION_NAME - 1U)

uint16_t TVMFuncRegistry_GetNumFuncs(const TVMFuncRegistry* reg) {
  uint16_t count = 0U;
  if ((reg != NULL) && (reg->names != NULL)) {
    count = (uint16_t)(uint8_t)reg->names[0];
  }
  return count;
}

/*
 * Walk the names blob. Stops at entry `stop_index` (when < count) or at the entry equal to
 * `name` (when name != NULL). Reports the index reached and the offset of that entry (or of the
 * final NUL when the walk ran through all entries). Returns kTvmErrorNoError when it stopped on
 * the requested entry, kTvmErrorFunctionNameNotFound / kTvmErrorFunctionIndexInvalid otherwise.
 * A malformed blob (empty or overlong entry before count is reached) ends the walk.
 */
static tvm_crt_error_t WalkNames(const TVMFuncRegistry* reg, const char* name, size_t name_len,
                                 uint16_t stop_index, uint16_t* out_index, size_t* out_offset) {
  const uint16_t count = TVMFuncRegistry_GetNumFuncs(reg);
  tvm_crt_error_t err =
      (name != NULL) ? kTvmErrorFunctionNameNotFound : kTvmErrorFunctionIndexInvalid;
  size_t offset = 1U;
  uint16_t index = 0U;
  int32_t done = 0;

  while ((done == 0) && (index < count)) {
    const char* entry = &reg->names[offset];
    const size_t entry_len = TVMCRTStrLenBounded(entry, MAX_NAME_LEN + 1U);
    if ((entry_len == 0U) || (entry_len > MAX_NAME_LEN)) {
      done = 1; /* malformed blob: treat the rest as absent */
    } else if ((name == NULL) && (index == stop_index)) {
      err = kTvmErrorNoError;
      done = 1;
    } else if ((name != NULL) && (entry_len == name_len) &&
               (TVMCRTStrEqualN(entry, name, name_len) == 1)) {
      err = kTvmErrorNoError;
      done = 1;
    } else {
      offset += entry_len + 1U;
      ++index;
    }
  }
  *out_index = index;
  *out_offset = offset;
  return err;
}

tvm_crt_error_t TVMFuncRegistry_Lookup(const TVMFuncRegistry* reg, const char* name,
                                       tvm_function_index_t* out_index) {
  tvm_crt_error_t err = kTvmErrorInvalidArgument;
  if ((reg != NULL) && (reg->names != NULL) && (name != NULL) && (out_index != NULL)) {
    const size_t name_len = TVMCRTStrLenBounded(name, MAX_NAME_LEN + 1U);
    if (name_len > MAX_NAME_LEN) {
      err = kTvmErrorFunctionNameTooLong;
    } else if (name_len == 0U) {
      err = kTvmErrorFunctionNameNotFound;
    } else {
      uint16_t index = 0U;
      size_t offset = 0U;
      err = WalkNames(reg, name, name_len, 0U, &index, &offset);
      if (err == kTvmErrorNoError) {
        *out_index = index;
      }
    }
  }
  return err;
}

tvm_crt_error_t TVMFuncRegistry_GetByIndex(const TVMFuncRegistry* reg, tvm_function_index_t index,
                                           TVMBackendPackedCFunc* out_func) {
  tvm_crt_error_t err = kTvmErrorInvalidArgument;
  if ((reg != NULL) && (reg->funcs != NULL) && (out_func != NULL)) {
    if ((index >= TVMFuncRegistry_GetNumFuncs(reg)) || (reg->funcs[index] == NULL)) {
      err = kTvmErrorFunctionIndexInvalid;
    } else {
      *out_func = reg->funcs[index];
      err = kTvmErrorNoError;
    }
  }
  return err;
}

tvm_crt_error_t TVMFuncRegistry_GetName(const TVMFuncRegistry* reg, tvm_function_index_t index,
                                        const char** out_name) {
  tvm_crt_error_t err = kTvmErrorInvalidArgument;
  if ((reg != NULL) && (reg->names != NULL) && (out_name != NULL)) {
    uint16_t reached = 0U;
    size_t offset = 0U;
    err = WalkNames(reg, NULL, 0U, index, &reached, &offset);
    if (err == kTvmErrorNoError) {
      *out_name = &reg->names[offset];
    }
  }
  return err;
}

tvm_crt_error_t TVMMutableFuncRegistry_Create(TVMMutableFuncRegistry* reg, uint8_t* buffer,
                                              size_t buffer_size_bytes) {
  const size_t ptr_size = sizeof(TVMBackendPackedCFunc);
  const size_t entry_size = (size_t)TVM_CRT_REGISTRY_AVERAGE_NAME_BYTES + ptr_size;
  tvm_crt_error_t err = kTvmErrorInvalidArgument;

  if ((reg != NULL) && (buffer != NULL)) {
    if (buffer_size_bytes < (2U + entry_size + ptr_size)) {
      err = kTvmErrorBufferTooSmall;
    } else {
      size_t max_functions = (buffer_size_bytes - 2U) / entry_size;
      size_t funcs_offset;
      if (max_functions > (size_t)TVM_CRT_REGISTRY_MAX_FUNCTIONS) {
        max_functions = (size_t)TVM_CRT_REGISTRY_MAX_FUNCTIONS;
      }
      /* Pointers at the end of the block, aligned down to the pointer size. */
      funcs_offset = buffer_size_bytes - (max_functions * ptr_size);
      funcs_offset -= (size_t)(((uintptr_t)buffer + funcs_offset) % ptr_size);

      void* funcs_memory = &buffer[funcs_offset];
      buffer[0] = 0U; /* no functions */
      buffer[1] = 0U; /* end of names */
      reg->names_rw = (char*)buffer;
      reg->funcs_rw = funcs_memory;
      reg->registry.names = reg->names_rw;
      reg->registry.funcs = reg->funcs_rw;
      reg->max_functions = max_functions;
      reg->names_size_bytes = funcs_offset;
      err = kTvmErrorNoError;
    }
  }
  return err;
}

tvm_crt_error_t TVMMutableFuncRegistry_Set(TVMMutableFuncRegistry* reg, const char* name,
                                           TVMBackendPackedCFunc func, int override) {
  tvm_crt_error_t err = kTvmErrorInvalidArgument;
  if ((reg != NULL) && (reg->names_rw != NULL) && (reg->funcs_rw != NULL) && (name != NULL) &&
      (func != NULL)) {
    const size_t name_len = TVMCRTStrLenBounded(name, MAX_NAME_LEN + 1U);
    if (name_len > MAX_NAME_LEN) {
      err = kTvmErrorFunctionNameTooLong;
    } else if (name_len > 0U) {
      uint16_t index = 0U;
      size_t end_offset = 0U;
      err = WalkNames(&reg->registry, name, name_len, 0U, &index, &end_offset);
      if (err == kTvmErrorNoError) {
        if (override != 0) {
          reg->funcs_rw[index] = func;
        } else {
          err = kTvmErrorFunctionAlreadyDefined;
        }
      } else if (((size_t)index >= reg->max_functions) ||
                 ((end_offset + name_len + 2U) > reg->names_size_bytes)) {
        err = kTvmErrorFunctionRegistryFull;
      } else {
        size_t i;
        /* the mutable blob is written only here, so the walk reached its end */
        TVM_CRT_CHECK(index == TVMFuncRegistry_GetNumFuncs(&reg->registry));
        for (i = 0U; i < name_len; ++i) {
          reg->names_rw[end_offset + i] = name[i];
        }
        reg->names_rw[end_offset + name_len] = '\0';
        reg->names_rw[end_offset + name_len + 1U] = '\0';
        /* Pointer first, count last: a reader never sees a count covering an unset pointer. */
        reg->funcs_rw[index] = func;
        reg->names_rw[0] = (char)(uint8_t)(index + 1U);
        err = kTvmErrorNoError;
      }
    } else {
      /* empty name: kTvmErrorInvalidArgument */
    }
  }
  return err;
}
