/*
 * utvm-build C runtime: RPC server (host-driven execution).
 *
 * The server side of TVM's RPC protocol (version "0.8.0", as the apache-tvm 0.2x client speaks
 * it; docs/rpc.md): a host looks up functions, calls them, allocates tensors in a fixed arena and
 * copies data in and out. Packets are decoded as they arrive: no packet is ever held in RAM, tensor
 * data goes straight into (or out of) its arena allocation. Static memory only, one server per
 * firmware, not reentrant (like the rest of the CRT).
 *
 * The platform provides the transport as two callbacks; the firmware calls TVMInitializeRuntime,
 * then TVMRpcServer_Init, then TVMRpcServer_Run (or TVMRpcServer_Poll from its own loop).
 */
#ifndef TVM_RUNTIME_CRT_RPC_SERVER_H_
#define TVM_RUNTIME_CRT_RPC_SERVER_H_

#include <stddef.h>
#include <stdint.h>

#include <tvm/runtime/crt/crt_config_check.h> /* crt_config.h may set the options below */
#include <tvm/runtime/crt/error_codes.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- features (crt_config.h or -D; the minimal server sets all three to 0, docs/rpc.md) ---- */

/*! 1: runtime.RPCTimeEvaluator (TVMPlatformTimerStart/Stop, double arithmetic: on a core without
 *  a double-precision FPU the soft-float routines come with it); 0: left out. */
#ifndef TVM_CRT_RPC_TIME_EVALUATOR
#define TVM_CRT_RPC_TIME_EVALUATOR 1
#endif
/*! 1: CopyAmongRemote (a copy between two arena tensors); 0: answered "not supported". */
#ifndef TVM_CRT_RPC_COPY_AMONG_REMOTE
#define TVM_CRT_RPC_COPY_AMONG_REMOTE 1
#endif
/*! 1: exceptions carry the server's messages; 0: "rpc error <tvm_crt_error_t in decimal>" (the
 *  CRT's own messages, e.g. of TVMCRTUnpackTensorArgs, stay). */
#ifndef TVM_CRT_RPC_ERROR_MESSAGES
#define TVM_CRT_RPC_ERROR_MESSAGES 1
#endif

/* ---- limits (override with -D; each costs static RAM as noted) ---- */

/*! Most arguments of one call (>= 12: runtime.RPCTimeEvaluator takes 12). 12 bytes each. */
#ifndef TVM_CRT_RPC_MAX_ARGS
#define TVM_CRT_RPC_MAX_ARGS 12
#endif
/*! Most DLTensor arguments of one call. About 40 bytes each (32-bit target). */
#ifndef TVM_CRT_RPC_MAX_TENSOR_ARGS
#define TVM_CRT_RPC_MAX_TENSOR_ARGS 4
#endif
/*! Dimensions of all DLTensor arguments of one call together (int64 each). */
#ifndef TVM_CRT_RPC_MAX_SHAPE_DIMS
#define TVM_CRT_RPC_MAX_SHAPE_DIMS 16
#endif
/*! Bytes for the string and byte-array arguments of one call (NUL terminators included). */
#ifndef TVM_CRT_RPC_STR_POOL_BYTES
#define TVM_CRT_RPC_STR_POOL_BYTES 128
#endif
/*! Live arena allocations (DevAllocData). 8 bytes each. */
#ifndef TVM_CRT_RPC_MAX_ALLOCS
#define TVM_CRT_RPC_MAX_ALLOCS 16
#endif
/*! Largest packet accepted and announced by tvm.rpc.server.GetCRTMaxPacketSize (the client
 *  splits copies to fit). Costs no RAM: packets are streamed. */
#ifndef TVM_CRT_RPC_MAX_PACKET_BYTES
#define TVM_CRT_RPC_MAX_PACKET_BYTES 4096
#endif
/*! Live time evaluators (runtime.RPCTimeEvaluator closures). 12 bytes each. */
#ifndef TVM_CRT_RPC_MAX_EVALUATORS
#define TVM_CRT_RPC_MAX_EVALUATORS 2
#endif
/*! Distinct live handles handed to the client (function, module and opaque values returned by
 *  lookups and calls; each use is checked against them, docs/rpc.md "Threat model"): the system
 *  library getter, its module and the functions looked up. 8 bytes each (32-bit target). */
#ifndef TVM_CRT_RPC_MAX_HANDLES
#define TVM_CRT_RPC_MAX_HANDLES 8
#endif
/*! Most `number` (calls per repeat) of a time evaluator: a client can keep the device busy for
 *  number x (repeat + 1) calls (docs/rpc.md, "Threat model"). No RAM. */
#ifndef TVM_CRT_RPC_MAX_NUMBER
#define TVM_CRT_RPC_MAX_NUMBER 0x7FFFFFFF
#endif
/*! Most `repeat` of a time evaluator. 8 bytes each. */
#ifndef TVM_CRT_RPC_MAX_REPEAT
#define TVM_CRT_RPC_MAX_REPEAT 8
#endif
/*! Bytes buffered before a write callback (replies are written in pieces of at most this). */
#ifndef TVM_CRT_RPC_TX_BUFFER_BYTES
#define TVM_CRT_RPC_TX_BUFFER_BYTES 64
#endif

/*!
 * \brief Write callback: send size bytes.
 * \return the number of bytes written (1..size), or a negative value on a transport error.
 */
typedef int32_t (*TVMRpcWriteFunc)(void* context, const uint8_t* data, size_t size);

/*!
 * \brief Read callback: receive up to size bytes, waiting at most timeout_ms for the first one.
 * \return the number of bytes read (1..size), 0 on timeout, a negative value when the
 *         transport is closed or failed.
 */
typedef int32_t (*TVMRpcReadFunc)(void* context, uint8_t* data, size_t size, uint32_t timeout_ms);

/*! \brief Server configuration (copied by TVMRpcServer_Init). */
typedef struct {
  TVMRpcWriteFunc write;     /*!< transport: write */
  TVMRpcReadFunc read;       /*!< transport: read with timeout */
  void* io_context;          /*!< passed to both callbacks */
  uint8_t* arena;            /*!< memory of DevAllocData (tensors); the caller's, never freed */
  size_t arena_size;         /*!< bytes of arena (< 4 GiB) */
  uint32_t read_timeout_ms;  /*!< most silence allowed inside a packet before it is dropped */
} TVMRpcServerConfig;

/*! \brief What TVMRpcServer_Poll did. */
typedef enum {
  kTVMRpcIdle = 0,         /*!< nothing arrived within the idle timeout */
  kTVMRpcPacketDone = 1,   /*!< one packet handled (and answered when it needs an answer) */
  kTVMRpcShutdown = 2,     /*!< the client sent Shutdown */
  kTVMRpcClosed = 3,       /*!< the transport was closed (read returned < 0) */
  kTVMRpcIoError = 4       /*!< a write failed, or a packet stopped arriving mid-way (dropped) */
} TVMRpcPollResult;

/*!
 * \brief Set up the server (and forget any previous session: allocations, evaluators).
 * Call TVMInitializeRuntime first.
 * \return kTvmErrorNoError, or kTvmErrorInvalidArgument for a NULL callback/arena.
 */
tvm_crt_error_t TVMRpcServer_Init(const TVMRpcServerConfig* config);

/*!
 * \brief Wait up to idle_timeout_ms for a packet and handle it.
 */
TVMRpcPollResult TVMRpcServer_Poll(uint32_t idle_timeout_ms);

/*!
 * \brief Handle packets until Shutdown or until the transport closes.
 * \return kTVMRpcShutdown, kTVMRpcClosed or kTVMRpcIoError (after a write failure).
 */
TVMRpcPollResult TVMRpcServer_Run(void);

/*!
 * \brief Drop the session state (arena allocations, evaluators, handles); done on InitServer and Init.
 */
void TVMRpcServer_ResetSession(void);

/*!
 * \brief Bytes of the arena in use now and at most since the last reset (for sizing).
 */
void TVMRpcServer_ArenaUsage(size_t* used, size_t* max_used);

#ifdef __cplusplus
}
#endif

#endif /* TVM_RUNTIME_CRT_RPC_SERVER_H_ */
