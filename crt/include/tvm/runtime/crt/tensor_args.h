/*
 * utvm-build C runtime: checking tensor arguments of packed entry points.
 *
 * A generated packed entry point describes each expected argument with a
 * const TVMCRTTensorSpec and lets TVMCRTUnpackTensorArgs validate the call
 * and extract the data pointers for the typed entry point.
 */
#ifndef TVM_RUNTIME_CRT_TENSOR_ARGS_H_
#define TVM_RUNTIME_CRT_TENSOR_ARGS_H_

#include <stddef.h>
#include <stdint.h>

#include <dlpack/dlpack.h>
#include <tvm/runtime/c_runtime_api.h>
#include <tvm/runtime/crt/error_codes.h>

#ifdef __cplusplus
extern "C" {
#endif

/*! \brief What one tensor argument must look like. */
typedef struct TVMCRTTensorSpec {
  const char* name;      /*!< tensor name, used in error messages */
  const int64_t* shape;  /*!< ndim extents */
  int32_t ndim;          /*!< number of dimensions (<= TVM_CRT_MAX_NDIM) */
  DLDataType dtype;      /*!< element type */
  size_t nbytes;         /*!< size of the data in bytes */
} TVMCRTTensorSpec;

/*!
 * \brief Validate packed-call arguments against specs and extract the data pointers.
 *
 * Checks, in order: num_args == num_specs; for each argument i: type code is
 * kTVMDLTensorHandle or kTVMNDArrayHandle (never kTVMOpaqueHandle: an opaque value may be any
 * address, docs/rpc.md "Threat model"); the DLTensor pointer and its
 * data are not NULL; device is kDLCPU; dtype, ndim and shape equal the spec; strides are NULL
 * or compact row-major; byte_offset is 0; the byte size equals spec nbytes.
 * On failure the last error names the argument and what was wrong.
 *
 * \param args packed argument values
 * \param type_codes packed argument type codes
 * \param num_args number of packed arguments
 * \param specs num_specs expected tensors (inputs then outputs)
 * \param num_specs number of specs (<= TVM_CRT_MAX_ARGS)
 * \param out_data receives num_specs data pointers
 * \return kTvmErrorNoError, kTvmErrorFunctionCallNumArguments, kTvmErrorFunctionCallWrongArgType,
 *         kTvmErrorFunctionCallInvalidArg or kTvmErrorInvalidArgument.
 */
tvm_crt_error_t TVMCRTUnpackTensorArgs(const TVMValue* args, const int* type_codes, int num_args,
                                       const TVMCRTTensorSpec* specs, uint16_t num_specs,
                                       void** out_data);

#ifdef __cplusplus
}
#endif

#endif /* TVM_RUNTIME_CRT_TENSOR_ARGS_H_ */
