/*
 * utvm-build C runtime: validation of tensor arguments of generated packed entry points.
 */
#include <tvm/runtime/crt/tensor_args.h>

#include "crt_internal.h"

/* Only a DLTensor (or an NDArray, whose handle is a DLTensor*) is a tensor. An opaque handle is
 * not: it may be any address (over RPC: one the client chose), so it is never read as a DLTensor. */
static int32_t IsTensorTypeCode(int type_code) {
  return ((type_code == (int)kTVMDLTensorHandle) || (type_code == (int)kTVMNDArrayHandle)) ? 1 : 0;
}

/* 1 when strides describe the compact row-major layout of shape (extent-1 dims: any stride). */
static int32_t IsCompact(const int64_t* shape, const int64_t* strides, int32_t ndim) {
  int32_t compact = 1;
  int64_t expected = 1;
  int32_t d = ndim;
  while ((compact == 1) && (d > 0)) {
    --d;
    if ((shape[d] != 1) && (strides[d] != expected)) {
      compact = 0;
    }
    expected *= shape[d];
  }
  return compact;
}

/* Largest element count accepted in a spec (keeps every product below 2^63). */
#define MAX_ELEMENTS ((uint64_t)1 << 40)

/* Bytes of a spec's tensor, or 0 when the spec is inconsistent (negative or huge extents). */
static uint64_t SpecBytes(const TVMCRTTensorSpec* spec) {
  uint64_t elements = 1U;
  int32_t d;
  int32_t ok = 0;
  if (((spec->shape != NULL) || (spec->ndim == 0)) && (spec->ndim >= 0)) {
    ok = 1;
  }
  for (d = 0; (ok == 1) && (d < spec->ndim); ++d) {
    if ((spec->shape[d] < 0) || ((uint64_t)spec->shape[d] > MAX_ELEMENTS)) {
      ok = 0;
    } else {
      elements *= (uint64_t)spec->shape[d];
      if (elements > MAX_ELEMENTS) {
        ok = 0;
      }
    }
  }
  return (ok == 1) ? (elements * ((((uint64_t)spec->dtype.bits * spec->dtype.lanes) + 7U) / 8U))
                   : 0U;
}

static tvm_crt_error_t CheckTensor(const TVMValue* arg, int type_code,
                                   const TVMCRTTensorSpec* spec, void** out_data) {
  tvm_crt_error_t err = kTvmErrorFunctionCallInvalidArg;
  const DLTensor* t = NULL;
  if (IsTensorTypeCode(type_code) == 0) {
    err = kTvmErrorFunctionCallWrongArgType;
    TVMCRTSetError(err, "argument type code must be a DLTensor handle", spec->name);
  } else {
    t = (const DLTensor*)arg->v_handle;
    if ((t == NULL) || (t->data == NULL)) {
      TVMCRTSetError(err, "NULL tensor or data", spec->name);
    } else if (t->device.device_type != kDLCPU) {
      TVMCRTSetError(err, "tensor device must be kDLCPU", spec->name);
    } else if ((t->dtype.code != spec->dtype.code) || (t->dtype.bits != spec->dtype.bits) ||
               (t->dtype.lanes != spec->dtype.lanes)) {
      TVMCRTSetError(err, "tensor dtype mismatch", spec->name);
    } else if ((t->ndim != spec->ndim) || (t->ndim > TVM_CRT_MAX_NDIM) ||
               ((t->shape == NULL) && (t->ndim > 0))) {
      TVMCRTSetError(err, "tensor ndim mismatch", spec->name);
    } else {
      int32_t d;
      int32_t same = 1;
      for (d = 0; d < t->ndim; ++d) {
        if (t->shape[d] != spec->shape[d]) {
          same = 0;
        }
      }
      if (same == 0) {
        TVMCRTSetError(err, "tensor shape mismatch", spec->name);
      } else if ((spec->nbytes == 0U) || (SpecBytes(spec) != (uint64_t)spec->nbytes)) {
        TVMCRTSetError(err, "tensor byte size mismatch", spec->name);
      } else if ((t->strides != NULL) && (IsCompact(t->shape, t->strides, t->ndim) == 0)) {
        TVMCRTSetError(err, "tensor strides not compact row-major", spec->name);
      } else if (t->byte_offset != 0U) {
        TVMCRTSetError(err, "tensor byte_offset must be 0", spec->name);
      } else {
        *out_data = t->data;
        err = kTvmErrorNoError;
      }
    }
  }
  return err;
}

tvm_crt_error_t TVMCRTUnpackTensorArgs(const TVMValue* args, const int* type_codes, int num_args,
                                       const TVMCRTTensorSpec* specs, uint16_t num_specs,
                                       void** out_data) {
  tvm_crt_error_t err = kTvmErrorInvalidArgument;
  if ((specs == NULL) || (out_data == NULL) || (num_specs > (uint16_t)TVM_CRT_MAX_ARGS)) {
    TVMCRTSetError(err, "TVMCRTUnpackTensorArgs: bad specs", NULL);
  } else if (num_args != (int)num_specs) {
    err = kTvmErrorFunctionCallNumArguments;
    TVMCRTSetErrorCount(err, "wrong number of arguments", (uint32_t)num_specs, (int32_t)num_args);
  } else if ((num_specs > 0U) && ((args == NULL) || (type_codes == NULL))) {
    TVMCRTSetError(err, "TVMCRTUnpackTensorArgs: NULL arguments", NULL);
  } else {
    uint16_t i = 0U;
    err = kTvmErrorNoError;
    while ((err == kTvmErrorNoError) && (i < num_specs)) {
      err = CheckTensor(&args[i], type_codes[i], &specs[i], &out_data[i]);
      ++i;
    }
  }
  return err;
}
