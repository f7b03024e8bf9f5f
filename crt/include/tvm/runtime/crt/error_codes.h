/*
 * utvm-build C runtime: error codes.
 *
 * A code is (category << 8) | number. 0 is success. The C API functions
 * (TVMFuncCall, ...) return 0 / -1 like TVM; the precise code of the last
 * failure is available from TVMCRTGetLastErrorCode().
 */
#ifndef TVM_RUNTIME_CRT_ERROR_CODES_H_
#define TVM_RUNTIME_CRT_ERROR_CODES_H_

#ifdef __cplusplus
extern "C" {
#endif

/*! \brief Error codes of the CRT (values are stable; see docs/crt.md). */
typedef enum {
  kTvmErrorNoError = 0x0000,

  /* 0x01xx: platform */
  kTvmErrorPlatformCheckFailure = 0x0100,   /*!< internal invariant violated */
  kTvmErrorPlatformNoMemory = 0x0101,       /*!< allocation failed */
  kTvmErrorPlatformTimerBadState = 0x0102,  /*!< timer started twice or stopped while idle */
  kTvmErrorPlatformStackAllocBadFree = 0x0103, /*!< free not in LIFO order */
  kTvmErrorPlatformMemoryManagerInitialized = 0x0104, /*!< microTVM's name: memory manager setup failed */
  kTvmErrorPlatformShutdown = 0x0105,       /*!< microTVM's name: the platform is shutting down */

  /* 0x02xx: function registry */
  kTvmErrorFunctionNameNotFound = 0x0200,  /*!< no function of that name */
  kTvmErrorFunctionIndexInvalid = 0x0201,  /*!< index >= number of functions */
  kTvmErrorFunctionRegistryFull = 0x0202,  /*!< no room for another function */
  kTvmErrorFunctionAlreadyDefined = 0x0203, /*!< name exists and override was not requested */
  kTvmErrorFunctionNameTooLong = 0x0204,   /*!< name does not fit TVM_CRT_MAX_STRLEN_FUNCTION_NAME */
  kTvmErrorBufferTooSmall = 0x0205,        /*!< caller-supplied buffer too small */

  /* 0x03xx: modules and handles */
  kTvmErrorModuleTableFull = 0x0300,       /*!< TVM_CRT_MAX_REGISTERED_MODULES reached */
  kTvmErrorModuleHandleInvalid = 0x0301,   /*!< not a handle of a registered module */
  kTvmErrorFunctionHandleInvalid = 0x0302, /*!< not a handle of an existing function */
  kTvmErrorSystemLibMissing = 0x0303,      /*!< TVMSystemLibEntryPoint returned NULL */

  /* 0x04xx: function calls and their arguments */
  kTvmErrorFunctionCallNumArguments = 0x0400, /*!< wrong number of arguments */
  kTvmErrorFunctionCallWrongArgType = 0x0401, /*!< wrong type code */
  kTvmErrorFunctionCallInvalidArg = 0x0402,   /*!< tensor dtype/shape/device/layout mismatch */
  kTvmErrorFunctionCallFailed = 0x0403,       /*!< the callee reported failure (TVMAPISetLastError) */
  kTvmErrorFunctionCallNotImplemented = 0x0404, /*!< microTVM's name: the function is not implemented */

  /* 0x05xx: generic */
  kTvmErrorInvalidArgument = 0x0500,  /*!< NULL pointer or out-of-range value */
  kTvmErrorNotInitialized = 0x0501,   /*!< TVMInitializeRuntime not called */
  kTvmErrorNotSupported = 0x0502,     /*!< operation not available in the CRT */

  /* 0x06xx: RPC server */
  kTvmErrorRpcMalformedPacket = 0x0600, /*!< a packet that does not decode (answered, skipped) */
  kTvmErrorRpcTimeout = 0x0601,         /*!< a packet stopped arriving mid-way (dropped) */
  kTvmErrorRpcTransportClosed = 0x0602, /*!< the read callback reported the end of the stream */
  kTvmErrorRpcTransportError = 0x0603,  /*!< the write callback failed */
  kTvmErrorRpcNotInitialized = 0x0604,  /*!< a request before InitServer */
  kTvmErrorRpcOutOfRange = 0x0605       /*!< a tensor range outside the arena allocations */
} tvm_crt_error_t;

#ifdef __cplusplus
}
#endif

#endif /* TVM_RUNTIME_CRT_ERROR_CODES_H_ */
