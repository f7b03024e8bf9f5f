/*
 * utvm-build C runtime: function registries.
 *
 * TVMFuncRegistry is a const table (it can live in flash):
 *   names: byte 0 = number of functions N (0..255), then N NUL-terminated
 *          names, then one extra NUL. With N > 0 the blob ends in "\0\0".
 *   funcs: N function pointers, in the order of the names.
 * Lookup is a linear scan; a function's index is the position of its name.
 *
 * TVMMutableFuncRegistry keeps the same layout in one caller-supplied RAM
 * block: names grow from the start, pointers sit at the (aligned) end.
 */
#ifndef TVM_RUNTIME_CRT_FUNC_REGISTRY_H_
#define TVM_RUNTIME_CRT_FUNC_REGISTRY_H_

#include <stddef.h>
#include <stdint.h>

#include <tvm/runtime/c_runtime_api.h>
#include <tvm/runtime/crt/error_codes.h>

#ifdef __cplusplus
extern "C" {
#endif

/*! \brief Index of a function inside one registry. */
typedef uint16_t tvm_function_index_t;

/*! \brief Largest number of functions one registry can hold (the count is one byte). */
#define TVM_CRT_REGISTRY_MAX_FUNCTIONS 255U

/*! \brief A data structure that facilitates function lookup by C-string name. */
typedef struct TVMFuncRegistry {
  /*! \brief Count byte, then the names each followed by NUL, then one more NUL. */
  const char* names;
  /*! \brief Function pointers, in the same order as their names in `names`. */
  const TVMBackendPackedCFunc* funcs;
} TVMFuncRegistry;

/*!
 * \brief Number of functions in a registry.
 * \return the count byte, or 0 when reg or reg->names is NULL.
 */
uint16_t TVMFuncRegistry_GetNumFuncs(const TVMFuncRegistry* reg);

/*!
 * \brief Find a function's index by name (linear scan).
 * \param reg the registry
 * \param name NUL-terminated name, shorter than TVM_CRT_MAX_STRLEN_FUNCTION_NAME
 * \param out_index receives the index
 * \return kTvmErrorNoError, kTvmErrorFunctionNameNotFound, kTvmErrorFunctionNameTooLong or
 *         kTvmErrorInvalidArgument (a NULL argument).
 */
tvm_crt_error_t TVMFuncRegistry_Lookup(const TVMFuncRegistry* reg, const char* name,
                                       tvm_function_index_t* out_index);

/*!
 * \brief Get a function pointer by index (constant time).
 * \return kTvmErrorNoError, kTvmErrorFunctionIndexInvalid or kTvmErrorInvalidArgument.
 */
tvm_crt_error_t TVMFuncRegistry_GetByIndex(const TVMFuncRegistry* reg, tvm_function_index_t index,
                                           TVMBackendPackedCFunc* out_func);

/*!
 * \brief Get a function's name by index (linear scan).
 * \return kTvmErrorNoError, kTvmErrorFunctionIndexInvalid or kTvmErrorInvalidArgument.
 */
tvm_crt_error_t TVMFuncRegistry_GetName(const TVMFuncRegistry* reg, tvm_function_index_t index,
                                        const char** out_name);

/*! \brief A TVMFuncRegistry that supports adding and changing the functions. */
typedef struct TVMMutableFuncRegistry {
  /*! \brief The registry; its names and funcs point into the caller's block. */
  TVMFuncRegistry registry;
  /*! \brief Maximum number of functions in this registry. */
  size_t max_functions;
  /*! \brief Bytes available for `names` (count byte and final NUL included). */
  size_t names_size_bytes;
  /*! \brief Writable view of registry.names (same memory). */
  char* names_rw;
  /*! \brief Writable view of registry.funcs (same memory). */
  TVMBackendPackedCFunc* funcs_rw;
} TVMMutableFuncRegistry;

/*!
 * \brief Average bytes per name (NUL included) assumed when sizing a mutable registry.
 * Capacity = (block size - 2) / (this + sizeof(TVMBackendPackedCFunc)), at most 255.
 */
#define TVM_CRT_REGISTRY_AVERAGE_NAME_BYTES 16U

/*!
 * \brief Create an empty mutable registry in a caller-supplied block.
 * \param reg the registry to initialize
 * \param buffer the block; it must outlive the registry
 * \param buffer_size_bytes its size
 * \return kTvmErrorNoError, kTvmErrorBufferTooSmall (room for less than one function) or
 *         kTvmErrorInvalidArgument.
 */
tvm_crt_error_t TVMMutableFuncRegistry_Create(TVMMutableFuncRegistry* reg, uint8_t* buffer,
                                              size_t buffer_size_bytes);

/*!
 * \brief Add a function, or replace the function of the same name when override is nonzero.
 * \return kTvmErrorNoError, kTvmErrorFunctionAlreadyDefined (exists, override == 0),
 *         kTvmErrorFunctionRegistryFull, kTvmErrorFunctionNameTooLong or
 *         kTvmErrorInvalidArgument (NULL argument or empty name).
 */
tvm_crt_error_t TVMMutableFuncRegistry_Set(TVMMutableFuncRegistry* reg, const char* name,
                                           TVMBackendPackedCFunc func, int override);

#ifdef __cplusplus
}
#endif

#endif /* TVM_RUNTIME_CRT_FUNC_REGISTRY_H_ */
