/*
 * utvm-build C runtime: RPC server (TVM RPC protocol "0.8.0", server side).
 *
 * Wire format (docs/rpc.md): every packet is `u64 nbytes` + body, body = `i32 RPCCode` + fields,
 * little-endian. The server reads each field straight from the transport while counting the bytes
 * left in the packet, so a field can never run past its packet, and tensor data goes directly into
 * (or out of) its arena allocation: no packet buffer. A packet that does not decode is skipped to
 * its end and answered with an Exception naming the problem; a packet that stops arriving for
 * read_timeout_ms is answered the same way. Only a closed transport or a failed write ends the
 * session.
 *
 * Handles on the wire are u64. The client is not trusted (docs/rpc.md, "Threat model"): no value
 * it sends is used as an address before it is checked against what the server handed out.
 * - CRT function and module handles (32-bit encoded integers), and opaque values a CRT function
 *   returned, are recorded in a table when they are sent to the client (g_handles, counted, dropped
 *   by FreeHandle and at a new session); a handle used as a function, a module or an argument must be
 *   in it with the right kind.
 * - The server's own functions (tvm.rpc.server.*, runtime.RPCTimeEvaluator and its closures) use
 *   values with a tag in bits 56..63 and a range-checked index.
 * - Arena pointers are addresses checked against the live allocations on every use; a DLTensor
 *   argument (the only kind of tensor) must lie inside one allocation, shape x dtype bytes included.
 * - Object handles are refused; opaque handles are passed to a CRT function as opaque only (the
 *   CRT's tensor checks refuse them as tensors).
 */
#include <tvm/runtime/c_runtime_api.h>
#include <tvm/runtime/crt/platform.h>
#include <tvm/runtime/crt/rpc_server.h>

#include "crt_internal.h"

/* Message texts: compiled out with TVM_CRT_RPC_ERROR_MESSAGES 0 (then "rpc error <code>"). */
#if TVM_CRT_RPC_ERROR_MESSAGES
#define RPC_MSG(text) (text)
#else
#define RPC_MSG(text) ("")
#endif

#if TVM_CRT_RPC_MAX_ARGS < 12
#error "TVM_CRT_RPC_MAX_ARGS must be at least 12 (runtime.RPCTimeEvaluator)"
#endif
#if (TVM_CRT_RPC_MAX_TENSOR_ARGS < 2) || (TVM_CRT_RPC_MAX_ALLOCS < 1) || (TVM_CRT_RPC_MAX_REPEAT < 1)
#error "TVM_CRT_RPC_MAX_TENSOR_ARGS >= 2, TVM_CRT_RPC_MAX_ALLOCS >= 1, TVM_CRT_RPC_MAX_REPEAT >= 1"
#endif
#if (TVM_CRT_RPC_STR_POOL_BYTES < 64) || (TVM_CRT_RPC_TX_BUFFER_BYTES < 16)
#error "TVM_CRT_RPC_STR_POOL_BYTES >= 64 and TVM_CRT_RPC_TX_BUFFER_BYTES >= 16"
#endif
#if (TVM_CRT_RPC_MAX_NUMBER < 1) || (TVM_CRT_RPC_MAX_NUMBER > 0x7FFFFFFF)
#error "TVM_CRT_RPC_MAX_NUMBER must be 1 .. 0x7FFFFFFF"
#endif
#if TVM_CRT_RPC_MAX_PACKET_BYTES < 256
#error "TVM_CRT_RPC_MAX_PACKET_BYTES must be at least 256"
#endif

/* RPC codes (rpc_reference.h). */
#define RPC_SHUTDOWN 1
#define RPC_INIT_SERVER 2
#define RPC_CALL_FUNC 3
#define RPC_RETURN 4
#define RPC_EXCEPTION 5
#define RPC_COPY_FROM_REMOTE 6
#define RPC_COPY_TO_REMOTE 7
#define RPC_COPY_ACK 8
#define RPC_GET_GLOBAL_FUNC 9
#define RPC_FREE_HANDLE 10
#define RPC_DEV_SET_DEVICE 11
#define RPC_DEV_GET_ATTR 12
#define RPC_DEV_ALLOC_DATA 13
#define RPC_DEV_FREE_DATA 14
#define RPC_DEV_STREAM_SYNC 15
#define RPC_COPY_AMONG_REMOTE 16
#define RPC_DEV_ALLOC_DATA_WITH_SCOPE 17
#define RPC_DEV_CREATE_STREAM 18
#define RPC_DEV_GET_CURRENT_STREAM 21

/* tvm-ffi type indices used on the wire. */
#define WIRE_NONE 0
#define WIRE_INT 1
#define WIRE_BOOL 2
#define WIRE_FLOAT 3
#define WIRE_OPAQUE 4
#define WIRE_DTYPE 5
#define WIRE_DEVICE 6
#define WIRE_DLTENSOR 7
#define WIRE_RAWSTR 8
#define WIRE_BYTEARRAY 9
#define WIRE_SMALLSTR 11
#define WIRE_SMALLBYTES 12
#define WIRE_OBJECT_BEGIN 64
#define WIRE_STR 65
#define WIRE_BYTES 66
#define WIRE_FUNCTION 68
#define WIRE_TENSOR 70
#define WIRE_MODULE 73
#define WIRE_RPC_OBJECT_REF 115
#define WIRE_TIMES (-1) /* internal: the results of a time evaluator as a byte array */

#define HANDLE_TAG_MASK 0xFF00000000000000ULL
#define HANDLE_TAG_BUILTIN 0x7E00000000000000ULL
#define HANDLE_TAG_EVALUATOR 0x7D00000000000000ULL
#define HANDLE_INDEX_MASK 0xFFFFULL

#define BUILTIN_MAX_PACKET_SIZE 0U
#define BUILTIN_MODULE_GET_FUNCTION 1U
#define BUILTIN_TIME_EVALUATOR 2U
#if TVM_CRT_RPC_TIME_EVALUATOR
#define NUM_BUILTINS 3U
#else
#define NUM_BUILTINS 2U
#endif

#define HANDLE_KIND_FUNCTION 1U
#define HANDLE_KIND_MODULE 2U
#define HANDLE_KIND_OPAQUE 3U

#define ARENA_ALIGN_MAX 16U
#define COPY_CHUNK_BYTES 0x4000U

typedef struct {
  uint32_t offset;
  uint32_t size;
} RpcAlloc;

typedef struct {
  void* func;
  uint32_t number;
  uint32_t repeat;
  uint8_t used;
} RpcEvaluator;

typedef struct {
  int32_t wire_type;
  TVMValue value;
} RpcOut;

/* A handle the server sent to the client: its value, kind and how many copies the client holds. */
typedef struct {
  uintptr_t value; /* a pointer or an encoded CRT handle: what was sent fits a pointer */
  uint16_t refs;
  uint8_t kind;
} RpcHandle;

static TVMRpcServerConfig g_cfg;
static uint8_t g_configured = 0U;
static uint64_t g_arena_base = 0U;
static uint8_t g_session_open = 0U;

/* Current packet. */
static uint32_t g_remaining = 0U; /* packets are at most TVM_CRT_RPC_MAX_PACKET_BYTES */
static tvm_crt_error_t g_status = kTvmErrorNoError;
static uint8_t g_closed = 0U;
static uint8_t g_write_failed = 0U;
static uint8_t g_skipping = 0U;

/* Reply writer (g_count_only: measure the length of a reply instead of sending it). */
static uint8_t g_tx[TVM_CRT_RPC_TX_BUFFER_BYTES];
static size_t g_tx_len = 0U;
static uint8_t g_count_only = 0U;
static uint64_t g_count = 0U;

/* Arena allocations, sorted by offset. */
static RpcAlloc g_allocs[TVM_CRT_RPC_MAX_ALLOCS];
static uint32_t g_num_allocs = 0U;
static size_t g_arena_max_used = 0U;

/* Handles handed out in this session (unsorted; a released entry's slot takes the last one). */
static RpcHandle g_handles[TVM_CRT_RPC_MAX_HANDLES];
static uint32_t g_num_handles = 0U;

#if TVM_CRT_RPC_TIME_EVALUATOR
static RpcEvaluator g_evaluators[TVM_CRT_RPC_MAX_EVALUATORS];
static double g_times[TVM_CRT_RPC_MAX_REPEAT];
#endif

/* Arguments of the current packet. Handles and pointers are kept as their wire value in
 * v_int64 until a CRT function is called. */
static TVMValue g_values[TVM_CRT_RPC_MAX_ARGS];
static int g_codes[TVM_CRT_RPC_MAX_ARGS];
static uint32_t g_num_args = 0U;
static DLTensor g_tensors[TVM_CRT_RPC_MAX_TENSOR_ARGS];
static uint64_t g_tensor_data[TVM_CRT_RPC_MAX_TENSOR_ARGS];
static uint32_t g_num_tensors = 0U;
static uint32_t g_tensor_offset[TVM_CRT_RPC_MAX_TENSOR_ARGS]; /* arena offset, once resolved */
static uint32_t g_num_dims = 0U;
static size_t g_str_used = 0U;
static uint32_t g_num_byte_arrays = 0U;

/* ---- errors ---- */

static int32_t Ok(void) { return (g_status == kTvmErrorNoError) ? 1 : 0; }

/* Record the first error of the packet: message what, then value in decimal, then tail. */
static void FailNum(tvm_crt_error_t code, const char* what, uint64_t value, const char* tail) {
  if ((g_status == kTvmErrorNoError) && (g_skipping == 0U)) {
    char msg[TVM_CRT_MAX_STRLEN_ERROR_MESSAGE];
    char digits[10];
    size_t pos = 0U;
    size_t i = 0U;
    size_t n = 0U;
#if TVM_CRT_RPC_ERROR_MESSAGES
    const char* text = what;
    const char* end = tail;
    uint32_t v = (value > 0xFFFFFFFFULL) ? 0xFFFFFFFFU : (uint32_t)value; /* no 64-bit division */
#else
    const char* text = "rpc error ";
    const char* end = "";
    uint32_t v = (uint32_t)code; /* tvm_crt_error_t (error_codes.h) */
    (void)what;
    (void)value;
    (void)tail;
#endif
    while ((text[i] != '\0') && (pos < (sizeof(msg) - 1U))) {
      msg[pos] = text[i];
      ++pos;
      ++i;
    }
    if (end != NULL) {
      do {
        digits[n] = (char)('0' + (v % 10U));
        v /= 10U;
        ++n;
      } while ((v != 0U) && (n < sizeof(digits)));
      while ((n > 0U) && (pos < (sizeof(msg) - 1U))) {
        --n;
        msg[pos] = digits[n];
        ++pos;
      }
      i = 0U;
      while ((end[i] != '\0') && (pos < (sizeof(msg) - 1U))) {
        msg[pos] = end[i];
        ++pos;
        ++i;
      }
    }
    msg[pos] = '\0';
    TVMCRTSetError(code, msg, NULL);
  }
  if (g_status == kTvmErrorNoError) {
    g_status = code; /* while skipping: only stops the skip, the packet's message stays */
  }
}

static void Fail(tvm_crt_error_t code, const char* what) { FailNum(code, what, 0U, NULL); }

/* ---- transport ---- */

/* Read exactly size bytes from the transport (not counted against the packet). */
static void RecvRaw(uint8_t* data, size_t size, uint32_t first_timeout_ms) {
  size_t done = 0U;
  uint32_t timeout = first_timeout_ms;
  while ((done < size) && (Ok() != 0)) {
    const int32_t got = g_cfg.read(g_cfg.io_context, &data[done], size - done, timeout);
    if (got < 0) {
      g_closed = 1U;
      Fail(kTvmErrorRpcTransportClosed, RPC_MSG("transport closed"));
    } else if (got == 0) {
      FailNum(kTvmErrorRpcTimeout, RPC_MSG("packet truncated: no data for "), g_cfg.read_timeout_ms, RPC_MSG(" ms"));
    } else if ((size_t)got > (size - done)) {
      g_closed = 1U;
      Fail(kTvmErrorRpcTransportClosed, RPC_MSG("read callback overran"));
    } else {
      done += (size_t)got;
    }
    timeout = g_cfg.read_timeout_ms;
  }
  while (done < size) {
    data[done] = 0U;
    ++done;
  }
}

/* Read size bytes of the current packet. */
static void Recv(uint8_t* data, size_t size) {
  if (size > (size_t)g_remaining) {
    Fail(kTvmErrorRpcMalformedPacket, RPC_MSG("malformed packet: field runs past the end"));
  }
  RecvRaw(data, size, g_cfg.read_timeout_ms);
  if (Ok() != 0) {
    g_remaining -= (uint32_t)size;
  }
}

static uint32_t RecvU32(void) {
  uint8_t b[4];
  Recv(b, sizeof(b));
  return (uint32_t)b[0] | ((uint32_t)b[1] << 8U) | ((uint32_t)b[2] << 16U) |
         ((uint32_t)b[3] << 24U);
}

static uint64_t RecvU64(void) {
  const uint64_t low = (uint64_t)RecvU32();
  const uint64_t high = (uint64_t)RecvU32();
  return low | (high << 32U);
}

static int32_t RecvI32(void) {
  const uint32_t u = RecvU32();
  int32_t v;
  if (u > 0x7FFFFFFFUL) {
    const uint32_t low = u - 0x80000000U; /* 0 .. 2^31 - 1 */
    v = (int32_t)low;
    v = v - 0x7FFFFFFF - 1;
  } else {
    v = (int32_t)u;
  }
  return v;
}

static int64_t U64ToI64(uint64_t u) {
  int64_t v;
  if (u > 0x7FFFFFFFFFFFFFFFULL) {
    const uint64_t low = u - 0x8000000000000000ULL; /* 0 .. 2^63 - 1 */
    v = (int64_t)low;
    v = v - 0x7FFFFFFFFFFFFFFFLL - 1LL;
  } else {
    v = (int64_t)u;
  }
  return v;
}

/* Skip the rest of the packet (after a decode error). */
static void SkipRest(void) {
  uint8_t scratch[16];
  tvm_crt_error_t saved = g_status;
  g_status = kTvmErrorNoError;
  g_skipping = 1U;
  while ((g_remaining > 0U) && (g_closed == 0U) && (Ok() != 0)) {
    const size_t n = (g_remaining < sizeof(scratch)) ? (size_t)g_remaining : sizeof(scratch);
    RecvRaw(scratch, n, g_cfg.read_timeout_ms);
    g_remaining -= (uint32_t)n;
  }
  g_skipping = 0U;
  g_status = saved;
}

static void SendRaw(const uint8_t* data, size_t size) {
  size_t done = 0U;
  while ((done < size) && (g_write_failed == 0U)) {
    const int32_t n = g_cfg.write(g_cfg.io_context, &data[done], size - done);
    if ((n <= 0) || ((size_t)n > (size - done))) {
      g_write_failed = 1U;
    } else {
      done += (size_t)n;
    }
  }
}

static void Flush(void) {
  SendRaw(g_tx, g_tx_len);
  g_tx_len = 0U;
}

static void Put(const uint8_t* data, size_t size) {
  if (g_count_only != 0U) {
    g_count += (uint64_t)size;
  } else {
    size_t i;
    if ((g_tx_len + size) > sizeof(g_tx)) {
      Flush();
    }
    if (size >= sizeof(g_tx)) {
      SendRaw(data, size);
    } else {
      for (i = 0U; i < size; ++i) {
        g_tx[g_tx_len] = data[i];
        ++g_tx_len;
      }
    }
  }
}

static void PutU32(uint32_t value) {
  uint8_t b[4];
  b[0] = (uint8_t)(value & 0xFFU);
  b[1] = (uint8_t)((value >> 8U) & 0xFFU);
  b[2] = (uint8_t)((value >> 16U) & 0xFFU);
  b[3] = (uint8_t)((value >> 24U) & 0xFFU);
  Put(b, sizeof(b));
}

static void PutU64(uint64_t value) {
  PutU32((uint32_t)(value & 0xFFFFFFFFU));
  PutU32((uint32_t)(value >> 32U));
}

static void PutI32(int32_t value) { PutU32((uint32_t)value); }

/* ---- handles and addresses (the only conversions between pointers and integers) ---- */

static uint64_t PointerToWire(const void* ptr) { return (uint64_t)(uintptr_t)ptr; }

/* A wire handle as a pointer for a CRT call; fails when it does not fit a pointer. */
static void* WireToHandle(uint64_t value) {
  void* handle = NULL;
  if (value > (uint64_t)UINTPTR_MAX) {
    Fail(kTvmErrorFunctionHandleInvalid, RPC_MSG("handle out of range"));
  } else {
    handle = (void*)(uintptr_t)value;
  }
  return handle;
}

/* ---- handles handed out (the table every client handle is checked against) ---- */

/* Index of value (of this kind; kind 0: any) in the table, g_num_handles when absent. */
static uint32_t FindHandle(uint64_t value, uint8_t kind) {
  uint32_t found = g_num_handles;
  uint32_t i;
  for (i = 0U; i < g_num_handles; ++i) {
    if (((uint64_t)g_handles[i].value == value) && ((kind == 0U) || (g_handles[i].kind == kind))) {
      found = i;
    }
  }
  return found;
}

/* Record that value (not 0) goes to the client as a handle of kind; fails when the table is full. */
static void HandOut(uint64_t value, uint8_t kind) {
  const uint32_t found = FindHandle(value, kind);
  if ((value == 0U) || (Ok() == 0)) {
    /* nothing handed out */
  } else if (found < g_num_handles) {
    /* a count wrapping after 65535 copies only keeps the entry longer or drops it sooner: the
     * table never holds a value the server did not send */
    g_handles[found].refs = (uint16_t)(g_handles[found].refs + 1U);
  } else if (g_num_handles >= (uint32_t)TVM_CRT_RPC_MAX_HANDLES) {
    Fail(kTvmErrorPlatformNoMemory, RPC_MSG("too many live handles (TVM_CRT_RPC_MAX_HANDLES)"));
  } else {
    g_handles[g_num_handles].value = (uintptr_t)value; /* from PointerToWire: it fits */
    g_handles[g_num_handles].kind = kind;
    g_handles[g_num_handles].refs = 1U;
    ++g_num_handles;
  }
}

/* FreeHandle: one copy fewer; the entry goes with the last, the table's last entry taking its
 * place (an unknown value is ignored, as TVM's server does). */
static void ReleaseHandle(uint64_t value) {
  const uint32_t found = FindHandle(value, 0U);
  if (found < g_num_handles) {
    --g_handles[found].refs;
    if (g_handles[found].refs == 0U) {
      --g_num_handles;
      g_handles[found] = g_handles[g_num_handles];
    }
  }
}

/* A client's handle as a pointer, when the server handed it out as kind; fails otherwise. */
static void* CheckedHandle(uint64_t value, uint8_t kind, const char* what) {
  void* handle = NULL;
  const uint32_t found = FindHandle(value, kind);
  if (found >= g_num_handles) {
    Fail((kind == HANDLE_KIND_MODULE) ? kTvmErrorModuleHandleInvalid : kTvmErrorFunctionHandleInvalid, what);
  } else {
    handle = WireToHandle(value);
  }
  return handle;
}

/* ---- arena ---- */

static uint32_t ArenaUsedEnd(void) {
  uint32_t end = 0U;
  if (g_num_allocs > 0U) {
    end = g_allocs[g_num_allocs - 1U].offset + g_allocs[g_num_allocs - 1U].size;
  }
  return end;
}

/* First fit; align is a power of two (capped at ARENA_ALIGN_MAX). Offsets are 32-bit (the arena
 * is smaller than 4 GiB); alignment depends only on the low bits of the arena's address. */
static uint64_t ArenaAlloc(uint64_t nbytes_in, uint64_t align_in) {
  const uint32_t base_low = (uint32_t)(g_arena_base & 0xFFFFFFFFULL);
  const uint32_t size = (uint32_t)g_cfg.arena_size;
  uint32_t nbytes = 1U;
  uint32_t align = ARENA_ALIGN_MAX;
  uint64_t result = 0U;
  uint32_t start = 0U;
  uint32_t slot = g_num_allocs + 1U;
  uint32_t i;
  uint32_t placed = 0U;
  if (align_in < (uint64_t)ARENA_ALIGN_MAX) {
    align = (align_in == 0U) ? 1U : (uint32_t)align_in;
  }
  if (nbytes_in > (uint64_t)size) {
    nbytes = size + 1U; /* never fits */
  } else if (nbytes_in > 0U) {
    nbytes = (uint32_t)nbytes_in;
  } else {
    /* 0 bytes: 1 */
  }
  if ((align & (align - 1U)) != 0U) {
    Fail(kTvmErrorInvalidArgument, RPC_MSG("alignment not a power of 2"));
  } else if (g_num_allocs >= (uint32_t)TVM_CRT_RPC_MAX_ALLOCS) {
    Fail(kTvmErrorPlatformNoMemory, RPC_MSG("too many allocations (TVM_CRT_RPC_MAX_ALLOCS)"));
  } else {
    for (i = 0U; (i <= g_num_allocs) && (slot > g_num_allocs); ++i) {
      const uint32_t gap_end = (i < g_num_allocs) ? g_allocs[i].offset : size;
      const uint32_t aligned = ((base_low + start + align - 1U) & ~(align - 1U)) - base_low;
      if ((aligned <= gap_end) && (aligned >= start) && (nbytes <= (gap_end - aligned))) {
        slot = i;
        placed = aligned;
      } else if (i < g_num_allocs) {
        start = g_allocs[i].offset + g_allocs[i].size;
      } else {
        /* no gap fits */
      }
    }
    if (slot > g_num_allocs) {
      FailNum(kTvmErrorPlatformNoMemory, RPC_MSG("arena exhausted: no room for "), nbytes_in, RPC_MSG(" bytes"));
    } else {
      for (i = g_num_allocs; i > slot; --i) {
        g_allocs[i] = g_allocs[i - 1U];
      }
      g_allocs[slot].offset = placed;
      g_allocs[slot].size = nbytes;
      ++g_num_allocs;
      if ((size_t)ArenaUsedEnd() > g_arena_max_used) {
        g_arena_max_used = (size_t)ArenaUsedEnd();
      }
      result = g_arena_base + (uint64_t)placed;
    }
  }
  return result;
}

static void ArenaFree(uint64_t address) {
  uint32_t i;
  uint32_t found = g_num_allocs;
  for (i = 0U; i < g_num_allocs; ++i) {
    if ((g_arena_base + (uint64_t)g_allocs[i].offset) == address) {
      found = i;
    }
  }
  if (found < g_num_allocs) {
    for (i = found; (i + 1U) < g_num_allocs; ++i) {
      g_allocs[i] = g_allocs[i + 1U];
    }
    --g_num_allocs;
  } else if (address != 0U) {
    Fail(kTvmErrorRpcOutOfRange, RPC_MSG("DevFreeData: not an allocation"));
  } else {
    /* freeing NULL does nothing */
  }
}

/* 1 when [address, address + nbytes) lies inside one live allocation; its arena offset in *out. */
static uint8_t ArenaFind(uint64_t address, uint64_t nbytes, uint32_t* out) {
  uint32_t offset = 0U;
  uint32_t i;
  uint8_t found = 0U;
  if ((address >= g_arena_base) && ((address - g_arena_base) < (uint64_t)g_cfg.arena_size) &&
      (nbytes <= (uint64_t)g_cfg.arena_size)) {
    const uint32_t off = (uint32_t)(address - g_arena_base);
    const uint32_t n = (uint32_t)nbytes;
    for (i = 0U; i < g_num_allocs; ++i) {
      const uint32_t begin = g_allocs[i].offset;
      const uint32_t end = begin + g_allocs[i].size;
      if ((off >= begin) && (off <= end) && (n <= (end - off))) {
        offset = off;
        found = 1U;
      }
    }
  }
  *out = offset;
  return found;
}

/* Arena offset of [address, address + nbytes) when it lies inside one live allocation; fails
 * otherwise (outside the arena, in a gap, across two allocations, or in a freed one). */
static uint32_t ArenaRange(uint64_t address, uint64_t nbytes) {
  uint32_t offset = 0U;
  if (ArenaFind(address, nbytes, &offset) == 0U) {
    FailNum(kTvmErrorRpcOutOfRange, RPC_MSG("out of range: "), nbytes, RPC_MSG(" bytes not inside one arena allocation"));
  }
  return offset;
}

static uint64_t ElementBytes(DLDataType dtype) {
  return (((uint64_t)dtype.bits * (uint64_t)dtype.lanes) + 7U) / 8U;
}

/* total * extent; fails when the result exceeds the arena (no overflow: both are < 2^32). */
static uint64_t MulExtent(uint64_t total, int64_t extent) {
  uint64_t result = 0U;
  if ((extent < 0) || ((uint64_t)extent > (uint64_t)g_cfg.arena_size)) {
    Fail(kTvmErrorFunctionCallInvalidArg, RPC_MSG("tensor shape out of range"));
  } else {
    result = total * (uint64_t)extent;
    if (result > (uint64_t)g_cfg.arena_size) {
      Fail(kTvmErrorRpcOutOfRange, RPC_MSG("tensor larger than the arena"));
    }
  }
  return result;
}

/* Bytes of a contiguous tensor; fails when larger than the arena. */
static uint64_t TensorBytes(const int64_t* shape, int32_t ndim, DLDataType dtype) {
  uint64_t total = MulExtent(ElementBytes(dtype), 1);
  int32_t i;
  for (i = 0; (i < ndim) && (Ok() != 0); ++i) {
    total = MulExtent(total, shape[i]);
  }
  return total;
}

/* ---- argument sequences ---- */

static const char* RecvString(uint32_t wire_bytes, TVMByteArray** out_array) {
  static char g_str_pool[TVM_CRT_RPC_STR_POOL_BYTES];
  static TVMByteArray g_byte_arrays[TVM_CRT_RPC_MAX_TENSOR_ARGS];
  const uint64_t len = RecvU64();
  const char* result = NULL;
  if (Ok() != 0) {
    if (len >= (uint64_t)(sizeof(g_str_pool) - g_str_used)) {
      Fail(kTvmErrorRpcMalformedPacket, RPC_MSG("strings exceed TVM_CRT_RPC_STR_POOL_BYTES"));
    } else if ((wire_bytes != 0U) && (g_num_byte_arrays >= (uint32_t)TVM_CRT_RPC_MAX_TENSOR_ARGS)) {
      Fail(kTvmErrorRpcMalformedPacket, RPC_MSG("too many bytes arguments"));
    } else {
      char* dst = &g_str_pool[g_str_used];
      size_t i;
      Recv((uint8_t*)dst, (size_t)len);
      dst[len] = '\0';
      for (i = 0U; i < (size_t)len; ++i) {
        if ((wire_bytes == 0U) && (dst[i] == '\0')) {
          Fail(kTvmErrorRpcMalformedPacket, RPC_MSG("NUL in a string"));
        }
      }
      g_str_used += (size_t)len + 1U;
      result = dst;
      if (wire_bytes != 0U) {
        g_byte_arrays[g_num_byte_arrays].data = dst;
        g_byte_arrays[g_num_byte_arrays].size = (size_t)len;
        *out_array = &g_byte_arrays[g_num_byte_arrays];
        ++g_num_byte_arrays;
      }
    }
  }
  return result;
}

static DLTensor* RecvTensor(void) {
  static int64_t g_shapes[TVM_CRT_RPC_MAX_SHAPE_DIMS];
  DLTensor* t = NULL;
  if (g_num_tensors >= (uint32_t)TVM_CRT_RPC_MAX_TENSOR_ARGS) {
    Fail(kTvmErrorRpcMalformedPacket, RPC_MSG("too many tensors (TVM_CRT_RPC_MAX_TENSOR_ARGS)"));
  } else {
    int32_t ndim;
    int32_t i;
    uint32_t dt;
    t = &g_tensors[g_num_tensors];
    g_tensor_data[g_num_tensors] = RecvU64();
    t->data = NULL;
    t->device.device_type = (DLDeviceType)RecvI32();
    t->device.device_id = RecvI32();
    ndim = RecvI32();
    dt = RecvU32();
    t->dtype.code = (uint8_t)(dt & 0xFFU);
    t->dtype.bits = (uint8_t)((dt >> 8U) & 0xFFU);
    t->dtype.lanes = (uint16_t)(dt >> 16U);
    t->ndim = ndim;
    t->strides = NULL;
    t->shape = &g_shapes[g_num_dims];
    if ((ndim < 0) || (ndim > TVM_CRT_MAX_NDIM) ||
        (((uint32_t)ndim + g_num_dims) > (uint32_t)TVM_CRT_RPC_MAX_SHAPE_DIMS)) {
      FailNum(kTvmErrorRpcMalformedPacket, RPC_MSG("tensor ndim "), (uint64_t)(uint32_t)ndim, RPC_MSG(" too large"));
    }
    for (i = 0; (i < ndim) && (Ok() != 0); ++i) {
      g_shapes[g_num_dims] = U64ToI64(RecvU64());
      ++g_num_dims;
    }
    t->byte_offset = RecvU64();
    ++g_num_tensors;
  }
  return t;
}

/* One argument: its wire type index, then the payload. */
static void RecvArg(uint32_t k) {
  const int32_t type_index = RecvI32();
  TVMValue* v = &g_values[k];
  TVMByteArray* bytes = NULL;
  int code = (int)kTVMNullptr;
  v->v_int64 = 0;
  if (Ok() != 0) {
    switch (type_index) {
      case WIRE_NONE:
        break;
      case WIRE_INT:
        v->v_int64 = U64ToI64(RecvU64());
        code = (int)kTVMArgInt;
        break;
      case WIRE_BOOL:
        if (RecvU64() != 0U) {
          v->v_int64 = 1;
        }
        code = (int)kTVMArgBool;
        break;
      case WIRE_FLOAT:
        v->v_int64 = U64ToI64(RecvU64()); /* the f64 bit pattern; read back as v_float64 */
        code = (int)kTVMArgFloat;
        break;
      case WIRE_OPAQUE:
        v->v_int64 = U64ToI64(RecvU64());
        code = (int)kTVMOpaqueHandle;
        break;
      case WIRE_FUNCTION:
        v->v_int64 = U64ToI64(RecvU64());
        code = (int)kTVMPackedFuncHandle;
        break;
      case WIRE_MODULE:
        v->v_int64 = U64ToI64(RecvU64());
        code = (int)kTVMModuleHandle;
        break;
      case WIRE_DTYPE: {
        const uint32_t dt = RecvU32();
        (void)RecvU32(); /* padding */
        v->v_type.code = (uint8_t)(dt & 0xFFU);
        v->v_type.bits = (uint8_t)((dt >> 8U) & 0xFFU);
        v->v_type.lanes = (uint16_t)(dt >> 16U);
        code = (int)kTVMDataType;
        break;
      }
      case WIRE_DEVICE:
        v->v_device.device_type = (DLDeviceType)RecvI32();
        v->v_device.device_id = RecvI32();
        code = (int)kDLDevice;
        break;
      case WIRE_DLTENSOR:
        v->v_handle = RecvTensor();
        code = (int)kTVMDLTensorHandle;
        break;
      case WIRE_RAWSTR:
        v->v_str = RecvString(0U, &bytes);
        code = (int)kTVMStr;
        break;
      case WIRE_BYTEARRAY:
        (void)RecvString(1U, &bytes);
        v->v_handle = bytes;
        code = (int)kTVMBytes;
        break;
      default:
        if ((type_index >= WIRE_OBJECT_BEGIN) || (type_index == WIRE_SMALLSTR) ||
            (type_index == WIRE_SMALLBYTES)) {
          const uint32_t object_type = RecvU32();
          if (Ok() == 0) {
            /* error recorded */
          } else if (object_type == (uint32_t)WIRE_STR) {
            v->v_str = RecvString(0U, &bytes);
            code = (int)kTVMStr;
          } else if (object_type == (uint32_t)WIRE_BYTES) {
            (void)RecvString(1U, &bytes);
            v->v_handle = bytes;
            code = (int)kTVMBytes;
          } else if (object_type == (uint32_t)WIRE_RPC_OBJECT_REF) {
            v->v_int64 = U64ToI64(RecvU64());
            code = (int)kTVMObjectHandle;
          } else {
            FailNum(kTvmErrorFunctionCallWrongArgType, RPC_MSG("unsupported object type index "),
                    (uint64_t)object_type, RPC_MSG(""));
          }
        } else {
          FailNum(kTvmErrorFunctionCallWrongArgType, RPC_MSG("unknown argument type index "),
                  (uint64_t)(uint32_t)type_index, RPC_MSG(""));
        }
        break;
    }
  }
  g_codes[k] = code;
}

static void RecvArgs(void) {
  const int32_t n = RecvI32();
  uint32_t i;
  g_num_args = 0U;
  g_num_tensors = 0U;
  g_num_dims = 0U;
  g_str_used = 0U;
  g_num_byte_arrays = 0U;
  if (Ok() == 0) {
    /* error recorded */
  } else if ((n < 0) || (n > TVM_CRT_RPC_MAX_ARGS)) {
    FailNum(kTvmErrorRpcMalformedPacket, RPC_MSG("argument count "), (uint64_t)(uint32_t)n,
            RPC_MSG(" > TVM_CRT_RPC_MAX_ARGS"));
  } else {
    for (i = 0U; (i < (uint32_t)n) && (Ok() != 0); ++i) {
      RecvArg(i);
    }
    g_num_args = (uint32_t)n;
  }
}

static void ExpectEnd(void) {
  if ((Ok() != 0) && (g_remaining != 0U)) {
    FailNum(kTvmErrorRpcMalformedPacket, RPC_MSG("malformed packet: "), g_remaining, RPC_MSG(" bytes after the last field"));
  }
}

/* Check the argument count and each argument's type code (kTVMNullptr in codes = any). */
static void ExpectArgs(const char* what, uint32_t count, const int* codes) {
  uint32_t i;
  if (Ok() == 0) {
    /* error recorded */
  } else if (g_num_args != count) {
    TVMCRTSetErrorCount(kTvmErrorFunctionCallNumArguments, what, count, (int32_t)g_num_args);
    g_status = kTvmErrorFunctionCallNumArguments;
  } else {
    for (i = 0U; i < count; ++i) {
      if ((codes[i] != (int)kTVMNullptr) && (g_codes[i] != codes[i]) && (Ok() != 0)) {
        TVMCRTSetErrorCount(kTvmErrorFunctionCallWrongArgType, what, (uint32_t)codes[i],
                            (int32_t)g_codes[i]);
        g_status = kTvmErrorFunctionCallWrongArgType;
      }
    }
  }
}

/* Device arguments must be the CPU. */
static void ExpectCpu(DLDevice dev) {
  if ((Ok() != 0) && (dev.device_type != kDLCPU)) {
    FailNum(kTvmErrorNotSupported, RPC_MSG("device type "), (uint64_t)(uint32_t)dev.device_type, RPC_MSG(" (only kDLCPU)"));
  }
}

/* Point every tensor argument at its arena allocation. */
static void ResolveTensors(void) {
  uint32_t k;
  for (k = 0U; (k < g_num_tensors) && (Ok() != 0); ++k) {
    DLTensor* t = &g_tensors[k];
    const uint64_t nbytes = TensorBytes(t->shape, t->ndim, t->dtype);
    ExpectCpu(t->device);
    if (Ok() == 0) {
      /* error recorded */
    } else if (t->byte_offset > (uint64_t)g_cfg.arena_size) {
      Fail(kTvmErrorRpcOutOfRange, RPC_MSG("byte_offset out of range"));
    } else {
      const uint32_t offset = ArenaRange(g_tensor_data[k], t->byte_offset + nbytes);
      if (Ok() != 0) {
        t->data = &g_cfg.arena[offset];
        g_tensor_offset[k] = offset + (uint32_t)t->byte_offset;
      }
    }
  }
}

/* ---- replies ---- */

static void PutValue(const RpcOut* out) {
  const TVMValue* v = &out->value;
  switch (out->wire_type) {
    case WIRE_INT:
    case WIRE_BOOL:
    case WIRE_FLOAT:
    case WIRE_OPAQUE:
      PutU64((uint64_t)v->v_int64);
      break;
    case WIRE_DTYPE:
      PutU32((uint32_t)v->v_type.code | ((uint32_t)v->v_type.bits << 8U) |
             ((uint32_t)v->v_type.lanes << 16U));
      PutU32(0U);
      break;
    case WIRE_DEVICE:
      PutI32((int32_t)v->v_device.device_type);
      PutI32((int32_t)v->v_device.device_id);
      break;
    case WIRE_DLTENSOR: {
      const DLTensor* t = (const DLTensor*)v->v_handle;
      int32_t i;
      PutU64(PointerToWire(t->data));
      PutI32((int32_t)t->device.device_type);
      PutI32((int32_t)t->device.device_id);
      PutI32((int32_t)t->ndim);
      PutU32((uint32_t)t->dtype.code | ((uint32_t)t->dtype.bits << 8U) |
             ((uint32_t)t->dtype.lanes << 16U));
      for (i = 0; i < t->ndim; ++i) {
        PutU64((uint64_t)t->shape[i]);
      }
      PutU64(t->byte_offset);
      break;
    }
    case WIRE_RAWSTR: {
      const size_t len = TVMCRTStrLenBounded(v->v_str, (size_t)TVM_CRT_RPC_MAX_PACKET_BYTES);
      PutU64((uint64_t)len);
      Put((const uint8_t*)v->v_str, len);
      break;
    }
    case WIRE_BYTEARRAY: {
      const TVMByteArray* b = (const TVMByteArray*)v->v_handle;
      PutU64((uint64_t)b->size);
      Put((const uint8_t*)b->data, b->size);
      break;
    }
#if TVM_CRT_RPC_TIME_EVALUATOR
    case WIRE_TIMES: {
      uint32_t i;
      PutU64(8U * (uint64_t)v->v_int64);
      for (i = 0U; i < (uint32_t)v->v_int64; ++i) {
        TVMValue bits;
        bits.v_float64 = g_times[i];
        PutU64((uint64_t)bits.v_int64);
      }
      break;
    }
#endif
    default: /* WIRE_NONE: no payload */
      break;
  }
}

/* Return packet with n values. */
static void ReplyReturn(const RpcOut* out, uint32_t n) {
  uint32_t pass;
  uint64_t length = 0U;
  for (pass = 0U; pass < 2U; ++pass) {
    uint32_t i;
    g_count_only = (pass == 0U) ? 1U : 0U;
    g_count = 0U;
    if (pass == 1U) {
      PutU64(length);
    }
    PutI32(RPC_RETURN);
    PutI32((int32_t)n);
    for (i = 0U; i < n; ++i) {
      PutI32((out[i].wire_type == WIRE_TIMES) ? WIRE_BYTEARRAY : out[i].wire_type);
      PutValue(&out[i]);
    }
    length = g_count;
  }
  g_count_only = 0U;
}

static void ReplyOne(int32_t wire_type, int64_t value) {
  RpcOut out;
  out.wire_type = wire_type;
  out.value.v_int64 = value;
  ReplyReturn(&out, 1U);
}

static void ReplyVoid(void) { ReplyOne(WIRE_NONE, 0); }

/* CallFunc result: [Int type_index, value] (a tensor adds its handle). */
static void ReplyCallResult(int32_t result_type, int32_t wire_type, const TVMValue* value) {
  RpcOut out[3];
  uint32_t n = 2U;
  out[0].wire_type = WIRE_INT;
  out[0].value.v_int64 = (int64_t)result_type;
  out[1].wire_type = wire_type;
  out[1].value = *value;
  if (wire_type == WIRE_DLTENSOR) {
    out[2].wire_type = WIRE_OPAQUE;
    out[2].value.v_int64 = U64ToI64(PointerToWire(value->v_handle));
    n = 3U;
  }
  ReplyReturn(out, n);
}

static void ReplyCallHandle(int32_t result_type, uint64_t handle) {
  TVMValue v;
  v.v_int64 = U64ToI64(handle);
  if (handle == 0U) {
    ReplyCallResult(WIRE_NONE, WIRE_NONE, &v);
  } else {
    ReplyCallResult(result_type, WIRE_OPAQUE, &v);
  }
}

static void ReplyException(const char* message) {
  const size_t len = TVMCRTStrLenBounded(message, (size_t)TVM_CRT_MAX_STRLEN_ERROR_MESSAGE);
  PutU64(4U + 4U + 4U + 8U + (uint64_t)len);
  PutI32(RPC_EXCEPTION);
  PutI32(1);
  PutI32(WIRE_RAWSTR);
  PutU64((uint64_t)len);
  Put((const uint8_t*)message, len);
}

/* ---- CallFunc targets ---- */

/* Handle arguments from their wire value (v_int64) to pointers, for a CRT call (CallFunc and the
 * time evaluator): a function or module handle must be one the server handed out; an opaque value
 * NULL, an address inside a live allocation or an opaque value a CRT function returned; an object
 * handle is refused. DLTensor arguments were checked by ResolveTensors. */
static void ConvertHandleArgs(void) {
  uint32_t i;
  for (i = 0U; (i < g_num_args) && (Ok() != 0); ++i) {
    const int c = g_codes[i];
    const uint64_t value = (uint64_t)g_values[i].v_int64;
    uint32_t offset = 0U;
    if (c == (int)kTVMOpaqueHandle) {
      if ((value != 0U) && (ArenaFind(value, 0U, &offset) == 0U) &&
          (FindHandle(value, HANDLE_KIND_OPAQUE) >= g_num_handles)) {
        Fail(kTvmErrorFunctionCallWrongArgType, RPC_MSG("opaque handle argument neither in an arena allocation nor handed out"));
      } else {
        g_values[i].v_handle = WireToHandle(value);
      }
    } else if (c == (int)kTVMModuleHandle) {
      g_values[i].v_handle = CheckedHandle(value, HANDLE_KIND_MODULE, RPC_MSG("argument: invalid module handle"));
    } else if (c == (int)kTVMPackedFuncHandle) {
      g_values[i].v_handle = CheckedHandle(value, HANDLE_KIND_FUNCTION, RPC_MSG("argument: invalid function handle"));
    } else if (c == (int)kTVMObjectHandle) {
      Fail(kTvmErrorFunctionCallWrongArgType, RPC_MSG("object handles are not supported as arguments"));
    } else {
      /* a value, a string, bytes or a checked DLTensor */
    }
  }
}

static void CallCrtFunction(void* func) {
  TVMValue ret;
  int ret_code = (int)kTVMNullptr;
  ConvertHandleArgs();
  ret.v_int64 = 0;
  if (Ok() == 0) {
    /* error recorded */
  } else if (TVMFuncCall(func, g_values, g_codes, (int)g_num_args, &ret, &ret_code) != 0) {
    if (TVMCRTStrLenBounded(TVMGetLastError(), 1U) == 0U) {
      TVMCRTSetError(kTvmErrorFunctionCallFailed, "function call failed", NULL);
    }
    g_status = kTvmErrorFunctionCallFailed;
  } else {
    /* CRT return type code -> (type index of the result, wire type of the value); -1: none */
    static const int8_t kReturnTypes[16][2] = {
        {WIRE_INT, WIRE_INT},       {-1, -1},                  {WIRE_FLOAT, WIRE_FLOAT},
        {WIRE_OPAQUE, WIRE_OPAQUE}, {WIRE_NONE, WIRE_NONE},    {WIRE_DTYPE, WIRE_DTYPE},
        {WIRE_DEVICE, WIRE_DEVICE}, {WIRE_TENSOR, WIRE_DLTENSOR}, {-1, -1},
        {WIRE_MODULE, WIRE_OPAQUE}, {WIRE_FUNCTION, WIRE_OPAQUE}, {WIRE_STR, WIRE_RAWSTR},
        {WIRE_BYTES, WIRE_BYTEARRAY}, {WIRE_TENSOR, WIRE_DLTENSOR}, {-1, -1},
        {WIRE_BOOL, WIRE_BOOL}};
    int32_t result_type = -1;
    int32_t wire_type = -1;
    if ((ret_code >= 0) && (ret_code < 16)) {
      result_type = (int32_t)kReturnTypes[ret_code][0];
      wire_type = (int32_t)kReturnTypes[ret_code][1];
    }
    if (wire_type < 0) {
      FailNum(kTvmErrorNotSupported, RPC_MSG("unsupported return type code "), (uint64_t)(uint32_t)ret_code,
              RPC_MSG(""));
    }
    if (wire_type == WIRE_OPAQUE) {
      uint8_t kind = HANDLE_KIND_OPAQUE;
      ret.v_int64 = U64ToI64(PointerToWire(ret.v_handle));
      if (ret_code == (int)kTVMModuleHandle) {
        kind = HANDLE_KIND_MODULE;
      } else if (ret_code == (int)kTVMPackedFuncHandle) {
        kind = HANDLE_KIND_FUNCTION;
      } else {
        /* an opaque pointer */
      }
      HandOut((uint64_t)ret.v_int64, kind);
    }
    if (Ok() != 0) {
      ReplyCallResult(result_type, wire_type, &ret);
    }
  }
}

/* Look up a global (mod == NULL) or module function for the server. */
static uint64_t LookupFunction(void* mod, const char* name) {
  void* func = NULL;
  int status;
  if (mod == NULL) {
    status = TVMFuncGetGlobal(name, &func);
  } else {
    status = TVMModGetFunction(mod, name, 1, &func);
  }
  if (status != 0) {
    g_status = kTvmErrorFunctionNameNotFound;
  }
  return PointerToWire(func);
}

#if TVM_CRT_RPC_TIME_EVALUATOR
static void CallEvaluator(uint32_t index) {
  RpcEvaluator* e = &g_evaluators[0];
  uint32_t r;
  uint32_t i;
  TVMValue ret;
  int ret_code = 0;
  if ((index >= (uint32_t)TVM_CRT_RPC_MAX_EVALUATORS) || (g_evaluators[index].used == 0U)) {
    Fail(kTvmErrorFunctionHandleInvalid, RPC_MSG("evaluator freed"));
  } else {
    e = &g_evaluators[index];
    ConvertHandleArgs();
  }
  for (r = 0U; (Ok() != 0) && (r <= e->repeat); ++r) {
    /* round 0 is the warm-up call (not timed), as TVM's time evaluator */
    const uint32_t calls = (r == 0U) ? 1U : e->number;
    double seconds = 0.0;
    tvm_crt_error_t err = TVMPlatformTimerStart();
    for (i = 0U; (i < calls) && (err == kTvmErrorNoError); ++i) {
      if (TVMFuncCall(e->func, g_values, g_codes, (int)g_num_args, &ret, &ret_code) != 0) {
        err = kTvmErrorFunctionCallFailed;
      }
    }
    if (err == kTvmErrorNoError) {
      err = TVMPlatformTimerStop(&seconds);
    } else {
      double ignored = 0.0;
      (void)TVMPlatformTimerStop(&ignored);
    }
    if (err == kTvmErrorFunctionCallFailed) {
      g_status = err;
    } else if (err != kTvmErrorNoError) {
      Fail(err, RPC_MSG("platform timer failed"));
    } else if (r > 0U) {
      g_times[r - 1U] = seconds / (double)e->number;
    } else {
      /* warm-up */
    }
  }
  if (Ok() != 0) {
    RpcOut out[2];
    out[0].wire_type = WIRE_INT;
    out[0].value.v_int64 = WIRE_BYTES;
    out[1].wire_type = WIRE_TIMES;
    out[1].value.v_int64 = (int64_t)e->repeat;
    ReplyReturn(out, 2U);
  }
}

#endif /* TVM_CRT_RPC_TIME_EVALUATOR */

static void CallBuiltin(uint32_t index) {
  if (index == BUILTIN_MAX_PACKET_SIZE) {
    TVMValue v;
    v.v_int64 = (int64_t)TVM_CRT_RPC_MAX_PACKET_BYTES;
    ExpectArgs(RPC_MSG("GetCRTMaxPacketSize: arguments"), 0U, NULL);
    if (Ok() != 0) {
      ReplyCallResult(WIRE_INT, WIRE_INT, &v);
    }
  } else if (index == BUILTIN_MODULE_GET_FUNCTION) {
    static const int codes[3] = {(int)kTVMModuleHandle, (int)kTVMStr, (int)kTVMNullptr};
    uint64_t func = 0U;
    ExpectArgs(RPC_MSG("ModuleGetFunction: arguments"), 3U,
               codes);
    if (Ok() != 0) {
      void* mod = CheckedHandle((uint64_t)g_values[0].v_int64, HANDLE_KIND_MODULE,
                                RPC_MSG("ModuleGetFunction: invalid module handle"));
      if (Ok() != 0) {
        func = LookupFunction(mod, g_values[1].v_str);
      }
    }
    HandOut(func, HANDLE_KIND_FUNCTION);
    if (Ok() != 0) {
      ReplyCallHandle(WIRE_FUNCTION, func);
    }
#if TVM_CRT_RPC_TIME_EVALUATOR
  } else if (index == BUILTIN_TIME_EVALUATOR) {
    /* runtime.RPCTimeEvaluator(mod|None, name, dev_type, dev_id, number, repeat, min_repeat_ms,
     * limit_zero_time_iterations, cooldown_interval_ms, repeats_to_cooldown, cache_flush_bytes,
     * f_preproc_name) */
    static const int codes[12] = {(int)kTVMNullptr, (int)kTVMStr,    (int)kTVMArgInt,
                                  (int)kTVMArgInt,  (int)kTVMArgInt, (int)kTVMArgInt,
                                  (int)kTVMNullptr, (int)kTVMNullptr, (int)kTVMNullptr,
                                  (int)kTVMNullptr, (int)kTVMNullptr, (int)kTVMNullptr};
    uint32_t slot = (uint32_t)TVM_CRT_RPC_MAX_EVALUATORS;
    uint32_t i;
    uint64_t func = 0U;
    void* mod = NULL;
    ExpectArgs(RPC_MSG("RPCTimeEvaluator: arguments"), 12U, codes);
    if (Ok() != 0) {
      if ((g_values[4].v_int64 < 1) || (g_values[4].v_int64 > (int64_t)TVM_CRT_RPC_MAX_NUMBER) ||
          (g_values[5].v_int64 < 1) || (g_values[5].v_int64 > TVM_CRT_RPC_MAX_REPEAT)) {
        FailNum(kTvmErrorInvalidArgument,
                RPC_MSG("evaluator: number >= 1, repeat 1.."), (uint64_t)TVM_CRT_RPC_MAX_REPEAT, RPC_MSG(""));
      } else if (g_codes[0] == (int)kTVMModuleHandle) {
        mod = CheckedHandle((uint64_t)g_values[0].v_int64, HANDLE_KIND_MODULE,
                            RPC_MSG("evaluator: invalid module handle"));
      } else if (g_codes[0] != (int)kTVMNullptr) {
        Fail(kTvmErrorFunctionCallWrongArgType, RPC_MSG("evaluator: not a module"));
      } else {
        /* global function */
      }
    }
    if (Ok() != 0) {
      func = LookupFunction(mod, g_values[1].v_str);
      if ((Ok() != 0) && (func == 0U)) {
        /* the CRT's message names the function */
        g_status = kTvmErrorFunctionNameNotFound;
      }
    }
    for (i = 0U; (i < (uint32_t)TVM_CRT_RPC_MAX_EVALUATORS) && (Ok() != 0); ++i) {
      if ((g_evaluators[i].used == 0U) && (slot == (uint32_t)TVM_CRT_RPC_MAX_EVALUATORS)) {
        slot = i;
      }
    }
    if (Ok() == 0) {
      /* error recorded */
    } else if (slot == (uint32_t)TVM_CRT_RPC_MAX_EVALUATORS) {
      Fail(kTvmErrorPlatformNoMemory, RPC_MSG("TVM_CRT_RPC_MAX_EVALUATORS in use"));
    } else {
      g_evaluators[slot].func = WireToHandle(func);
      g_evaluators[slot].number = (uint32_t)g_values[4].v_int64;
      g_evaluators[slot].repeat = (uint32_t)g_values[5].v_int64;
      g_evaluators[slot].used = 1U;
      ReplyCallHandle(WIRE_FUNCTION, HANDLE_TAG_EVALUATOR | (uint64_t)slot);
    }
#endif
  } else {
    Fail(kTvmErrorFunctionHandleInvalid, RPC_MSG("CallFunc: invalid function handle"));
  }
}

/* ---- packet handlers ---- */

static void HandleInitServer(void) {
  static const char kVersion[] = "0.8.0";
  char version[16];
  const uint64_t len = RecvU64();
  uint32_t i;
  uint8_t match = 0U;
  if ((Ok() != 0) && (len < (uint64_t)sizeof(version))) {
    Recv((uint8_t*)version, (size_t)len);
    version[len] = '\0';
    match = (len == (sizeof(kVersion) - 1U)) ? 1U : 0U;
    for (i = 0U; (i < (uint32_t)len) && (match != 0U); ++i) {
      if (version[i] != kVersion[i]) {
        match = 0U;
      }
    }
  }
  if (Ok() == 0) {
    /* error recorded */
  } else if (match == 0U) {
    Fail(kTvmErrorRpcMalformedPacket,
         RPC_MSG("protocol version mismatch (server: 0.8.0)"));
  } else {
    RecvArgs();
    ExpectEnd();
    if ((Ok() != 0) && (g_num_args != 0U)) {
      Fail(kTvmErrorNotSupported, RPC_MSG("session constructors not supported"));
    }
  }
  if (Ok() != 0) {
    TVMRpcServer_ResetSession();
    g_session_open = 1U;
    ReplyVoid();
  }
}

static void HandleCallFunc(void) {
  const uint64_t handle = RecvU64();
  RecvArgs();
  ExpectEnd();
  ResolveTensors();
  if (Ok() == 0) {
    /* error recorded */
  } else if ((handle & HANDLE_TAG_MASK) == HANDLE_TAG_BUILTIN) {
    CallBuiltin((uint32_t)(handle & HANDLE_INDEX_MASK));
#if TVM_CRT_RPC_TIME_EVALUATOR
  } else if ((handle & HANDLE_TAG_MASK) == HANDLE_TAG_EVALUATOR) {
    CallEvaluator((uint32_t)(handle & HANDLE_INDEX_MASK));
#endif
  } else {
    void* func = CheckedHandle(handle, HANDLE_KIND_FUNCTION, RPC_MSG("CallFunc: invalid function handle"));
    if (Ok() != 0) {
      CallCrtFunction(func);
    }
  }
}

/* Header of CopyToRemote/CopyFromRemote: DLTensor then u64 nbytes. Returns the arena offset of
 * the range to copy (checked) and its length in *out_nbytes. */
static uint32_t RecvCopyHeader(uint64_t* out_nbytes) {
  const uint64_t data = RecvU64();
  DLDevice dev;
  int32_t ndim;
  int32_t i;
  DLDataType dtype;
  uint32_t dt;
  uint64_t total = 0U;
  uint64_t offset;
  uint64_t nbytes;
  uint32_t arena_offset = 0U;
  dev.device_type = (DLDeviceType)RecvI32();
  dev.device_id = RecvI32();
  ndim = RecvI32();
  dt = RecvU32();
  dtype.code = (uint8_t)(dt & 0xFFU);
  dtype.bits = (uint8_t)((dt >> 8U) & 0xFFU);
  dtype.lanes = (uint16_t)(dt >> 16U);
  if ((Ok() != 0) && ((ndim < 0) || (ndim > 32))) {
    FailNum(kTvmErrorRpcMalformedPacket, RPC_MSG("tensor ndim "), (uint64_t)(uint32_t)ndim, RPC_MSG(" too large"));
  }
  if (Ok() != 0) {
    total = MulExtent(ElementBytes(dtype), 1);
  }
  for (i = 0; (i < ndim) && (Ok() != 0); ++i) {
    const int64_t extent = U64ToI64(RecvU64());
    if (Ok() != 0) {
      total = MulExtent(total, extent);
    }
  }
  offset = RecvU64();
  nbytes = RecvU64();
  ExpectCpu(dev);
  if (Ok() == 0) {
    /* error recorded */
  } else if ((offset > total) || (nbytes > (total - offset))) {
    FailNum(kTvmErrorRpcOutOfRange, RPC_MSG("out of range: copy past the "), total, RPC_MSG(" bytes of the tensor"));
  } else if (offset > (UINT64_MAX - data)) {
    Fail(kTvmErrorRpcOutOfRange, RPC_MSG("out of range: address overflow"));
  } else {
    arena_offset = ArenaRange(data + offset, nbytes);
  }
  *out_nbytes = nbytes;
  return arena_offset;
}

static void HandleCopyToRemote(void) {
  uint64_t nbytes = 0U;
  const uint32_t offset = RecvCopyHeader(&nbytes);
  if ((Ok() != 0) && (nbytes != (uint64_t)g_remaining)) {
    Fail(kTvmErrorRpcMalformedPacket, RPC_MSG("malformed packet: data length is not nbytes"));
  }
  if (Ok() != 0) {
    uint64_t done = 0U;
    while ((done < nbytes) && (Ok() != 0)) {
      const uint64_t left = nbytes - done;
      const size_t n = (left < COPY_CHUNK_BYTES) ? (size_t)left : (size_t)COPY_CHUNK_BYTES;
      Recv(&g_cfg.arena[(uint64_t)offset + done], n);
      done += (uint64_t)n;
    }
  }
  if (Ok() != 0) {
    ReplyVoid();
  }
}

static void HandleCopyFromRemote(void) {
  uint64_t nbytes = 0U;
  const uint32_t offset = RecvCopyHeader(&nbytes);
  ExpectEnd();
  if (Ok() != 0) {
    PutU64(4U + nbytes);
    PutI32(RPC_COPY_ACK);
    Put(&g_cfg.arena[offset], (size_t)nbytes);
  }
}

static void HandleGetGlobalFunc(void) {
  static const char* const kBuiltinNames[NUM_BUILTINS] = {
      "tvm.rpc.server.GetCRTMaxPacketSize", "tvm.rpc.server.ModuleGetFunction"
#if TVM_CRT_RPC_TIME_EVALUATOR
      , "runtime.RPCTimeEvaluator"
#endif
  };
  static const int codes[1] = {(int)kTVMStr};
  uint64_t handle = 0U;
  uint32_t i;
  ExpectArgs(RPC_MSG("GetGlobalFunc: arguments"), 1U, codes);
  for (i = 0U; (i < NUM_BUILTINS) && (Ok() != 0); ++i) {
    const char* name = kBuiltinNames[i];
    const size_t len = TVMCRTStrLenBounded(name, 64U);
    if ((TVMCRTStrLenBounded(g_values[0].v_str, 64U) == len) &&
        (TVMCRTStrEqualN(name, g_values[0].v_str, len) != 0)) {
      handle = HANDLE_TAG_BUILTIN | (uint64_t)i;
    }
  }
  if ((Ok() != 0) && (handle == 0U)) {
    static const char kFfiSystemLib[] = "ffi.SystemLib";
    const char* name = g_values[0].v_str;
    if ((TVMCRTStrLenBounded(name, 64U) == (sizeof(kFfiSystemLib) - 1U)) &&
        (TVMCRTStrEqualN(name, kFfiSystemLib, sizeof(kFfiSystemLib) - 1U) != 0)) {
      name = "runtime.SystemLib"; /* the tvm-ffi era name of the system library getter */
    }
    handle = LookupFunction(NULL, name);
    HandOut(handle, HANDLE_KIND_FUNCTION);
  }
  if (Ok() != 0) {
    ReplyOne((handle == 0U) ? WIRE_NONE : WIRE_OPAQUE, U64ToI64(handle));
  }
}

static void HandleSyscall(int32_t code) {
  static const int dev_codes[4] = {(int)kDLDevice, (int)kTVMArgInt, (int)kTVMArgInt,
                                   (int)kTVMDataType};
  static const int free_codes[2] = {(int)kDLDevice, (int)kTVMNullptr};
  static const int scope_codes[2] = {(int)kTVMDLTensorHandle, (int)kTVMNullptr};
#if TVM_CRT_RPC_COPY_AMONG_REMOTE
  static const int copy_codes[3] = {(int)kTVMDLTensorHandle, (int)kTVMDLTensorHandle,
                                    (int)kTVMNullptr};
#endif
  RecvArgs();
  ExpectEnd();
  if (Ok() == 0) {
    /* error recorded */
  } else if (code == RPC_GET_GLOBAL_FUNC) {
    HandleGetGlobalFunc();
  } else if (code == RPC_FREE_HANDLE) {
    if ((g_num_args == 1U) && ((g_codes[0] == (int)kTVMOpaqueHandle) || (g_codes[0] == (int)kTVMModuleHandle) ||
                               (g_codes[0] == (int)kTVMPackedFuncHandle))) {
      ReleaseHandle((uint64_t)g_values[0].v_int64);
    }
#if TVM_CRT_RPC_TIME_EVALUATOR
    if (g_num_args == 1U) {
      const uint64_t h = (uint64_t)g_values[0].v_int64;
      if (((h & HANDLE_TAG_MASK) == HANDLE_TAG_EVALUATOR) &&
          ((h & ~HANDLE_TAG_MASK) < (uint64_t)TVM_CRT_RPC_MAX_EVALUATORS)) {
        g_evaluators[(uint32_t)(h & HANDLE_INDEX_MASK)].used = 0U;
      }
    }
#endif
    ReplyVoid(); /* CRT handles are not allocated: only the table entry goes */
  } else if ((code == RPC_DEV_SET_DEVICE) || (code == RPC_DEV_STREAM_SYNC) ||
             ((code >= RPC_DEV_CREATE_STREAM) && (code <= RPC_DEV_GET_CURRENT_STREAM))) {
    ReplyVoid(); /* synchronous CPU: no streams */
  } else if (code == RPC_DEV_GET_ATTR) {
    /* kExist (0) of the CPU: 1; other attributes: None */
    if ((g_num_args == 2U) && (g_codes[1] == (int)kTVMArgInt) && (g_values[1].v_int64 == 0)) {
      ReplyOne(WIRE_INT, 1);
    } else {
      ReplyVoid();
    }
  } else if (code == RPC_DEV_ALLOC_DATA) {
    uint64_t address;
    ExpectArgs(RPC_MSG("DevAllocData: arguments"), 4U, dev_codes);
    if (Ok() != 0) {
      ExpectCpu(g_values[0].v_device);
    }
    if ((Ok() != 0) && (g_values[1].v_int64 < 0)) {
      Fail(kTvmErrorInvalidArgument, RPC_MSG("DevAllocData: negative size"));
    }
    if (Ok() != 0) {
      address = ArenaAlloc((uint64_t)g_values[1].v_int64, (uint64_t)g_values[2].v_int64);
      if (Ok() != 0) {
        ReplyOne(WIRE_OPAQUE, U64ToI64(address));
      }
    }
  } else if (code == RPC_DEV_ALLOC_DATA_WITH_SCOPE) {
    ExpectArgs(RPC_MSG("DevAllocDataWithScope: arguments"), 2U, scope_codes);
    if ((Ok() != 0) && (g_codes[1] != (int)kTVMNullptr)) {
      static const char kGlobal[] = "global";
      if ((g_codes[1] != (int)kTVMStr) ||
          (TVMCRTStrLenBounded(g_values[1].v_str, 8U) != (sizeof(kGlobal) - 1U)) ||
          (TVMCRTStrEqualN(g_values[1].v_str, kGlobal, sizeof(kGlobal) - 1U) == 0)) {
        Fail(kTvmErrorNotSupported, RPC_MSG("memory scope not supported"));
      }
    }
    if (Ok() != 0) {
      ExpectCpu(g_tensors[0].device);
    }
    if (Ok() != 0) {
      const uint64_t nbytes = TensorBytes(g_tensors[0].shape, g_tensors[0].ndim, g_tensors[0].dtype);
      if (Ok() != 0) {
        const uint64_t address = ArenaAlloc(nbytes, ARENA_ALIGN_MAX);
        if (Ok() != 0) {
          ReplyOne(WIRE_OPAQUE, U64ToI64(address));
        }
      }
    }
  } else if (code == RPC_DEV_FREE_DATA) {
    ExpectArgs(RPC_MSG("DevFreeData: arguments"), 2U, free_codes);
    if ((Ok() != 0) && (g_codes[1] != (int)kTVMOpaqueHandle) && (g_codes[1] != (int)kTVMNullptr)) {
      Fail(kTvmErrorFunctionCallWrongArgType, RPC_MSG("DevFreeData: not a pointer"));
    }
    if (Ok() != 0) {
      ArenaFree((uint64_t)g_values[1].v_int64);
    }
    if (Ok() != 0) {
      ReplyVoid();
    }
#if TVM_CRT_RPC_COPY_AMONG_REMOTE
  } else if (code == RPC_COPY_AMONG_REMOTE) {
    ExpectArgs(RPC_MSG("CopyAmongRemote: arguments"), 3U, copy_codes);
    ResolveTensors();
    if (Ok() != 0) {
      const uint64_t n = TensorBytes(g_tensors[0].shape, g_tensors[0].ndim, g_tensors[0].dtype);
      const uint64_t m = TensorBytes(g_tensors[1].shape, g_tensors[1].ndim, g_tensors[1].dtype);
      if (n != m) {
        Fail(kTvmErrorFunctionCallInvalidArg, RPC_MSG("CopyAmongRemote: sizes differ"));
      } else {
        const uint8_t* src = &g_cfg.arena[g_tensor_offset[0]];
        uint8_t* dst = &g_cfg.arena[g_tensor_offset[1]];
        uint64_t i;
        if (g_tensor_offset[1] < g_tensor_offset[0]) {
          for (i = 0U; i < n; ++i) {
            dst[i] = src[i];
          }
        } else {
          for (i = n; i > 0U; --i) {
            dst[i - 1U] = src[i - 1U];
          }
        }
        ReplyVoid();
      }
    }
#endif
  } else {
    FailNum(kTvmErrorNotSupported, RPC_MSG("RPC code "), (uint64_t)(uint32_t)code, RPC_MSG(" is not supported"));
  }
}

static void HandlePacket(int32_t code) {
  if ((code != RPC_INIT_SERVER) && (code != RPC_SHUTDOWN) && (g_session_open == 0U)) {
    Fail(kTvmErrorRpcNotInitialized, RPC_MSG("session not initialized (InitServer first)"));
  } else if (code == RPC_INIT_SERVER) {
    HandleInitServer();
  } else if (code == RPC_CALL_FUNC) {
    HandleCallFunc();
  } else if (code == RPC_COPY_TO_REMOTE) {
    HandleCopyToRemote();
  } else if (code == RPC_COPY_FROM_REMOTE) {
    HandleCopyFromRemote();
  } else if ((code == RPC_RETURN) || (code == RPC_EXCEPTION) || (code == RPC_COPY_ACK)) {
    FailNum(kTvmErrorRpcMalformedPacket, RPC_MSG("unexpected RPC code "), (uint64_t)(uint32_t)code, RPC_MSG(" from a client"));
  } else if ((code >= RPC_GET_GLOBAL_FUNC) && (code <= RPC_DEV_GET_CURRENT_STREAM)) {
    HandleSyscall(code);
  } else {
    FailNum(kTvmErrorRpcMalformedPacket, RPC_MSG("unknown RPC code "), (uint64_t)(uint32_t)code, RPC_MSG(""));
  }
}

/* ---- public API ---- */

void TVMRpcServer_ResetSession(void) {
#if TVM_CRT_RPC_TIME_EVALUATOR
  uint32_t i;
  for (i = 0U; i < (uint32_t)TVM_CRT_RPC_MAX_EVALUATORS; ++i) {
    g_evaluators[i].used = 0U;
  }
#endif
  g_num_allocs = 0U;
  g_arena_max_used = 0U;
  g_num_handles = 0U;
  g_session_open = 0U;
}

tvm_crt_error_t TVMRpcServer_Init(const TVMRpcServerConfig* config) {
  tvm_crt_error_t err = kTvmErrorInvalidArgument;
  g_configured = 0U;
  if ((config != NULL) && (config->write != NULL) && (config->read != NULL) &&
      (config->arena != NULL) && ((uint64_t)config->arena_size < 0xFFFFFFFFULL)) {
    g_cfg = *config;
    g_arena_base = PointerToWire(config->arena);
    g_tx_len = 0U;
    g_count_only = 0U;
    TVMRpcServer_ResetSession();
    g_configured = 1U;
    err = kTvmErrorNoError;
  }
  return err;
}

TVMRpcPollResult TVMRpcServer_Poll(uint32_t idle_timeout_ms) {
  TVMRpcPollResult result = kTVMRpcPacketDone;
  uint8_t header[8];
  uint64_t length = 0U;
  uint32_t i;
  g_status = kTvmErrorNoError;
  g_closed = 0U;
  g_write_failed = 0U;
  g_remaining = 0U;
  if (g_configured == 0U) {
    result = kTVMRpcIoError;
  } else {
    /* The first byte may take idle_timeout_ms; the rest of the packet read_timeout_ms. */
    const int32_t got = g_cfg.read(g_cfg.io_context, header, 1U, idle_timeout_ms);
    if (got == 0) {
      result = kTVMRpcIdle;
    } else if (got != 1) {
      result = kTVMRpcClosed;
    } else {
      RecvRaw(&header[1], 7U, g_cfg.read_timeout_ms);
      for (i = 8U; i > 0U; --i) {
        length = (length << 8U) | (uint64_t)header[i - 1U];
      }
      /* an oversize packet is skipped as far as 32 bits go (then the skip times out) */
      g_remaining = (Ok() == 0) ? 0U : ((length > 0xFFFFFFFFULL) ? 0xFFFFFFFFU : (uint32_t)length);
      if (Ok() == 0) {
        /* timed out inside the length: answered below */
      } else if (length == 0U) {
        /* empty packet: ignored, as TVM's server does */
      } else if ((length < 4U) || (length > (uint64_t)TVM_CRT_RPC_MAX_PACKET_BYTES)) {
        FailNum(kTvmErrorRpcMalformedPacket, RPC_MSG("malformed packet: length "), length,
                RPC_MSG(" outside 4..TVM_CRT_RPC_MAX_PACKET_BYTES"));
      } else {
        const int32_t code = RecvI32();
        if (Ok() != 0) {
          if (code == RPC_SHUTDOWN) {
            ExpectEnd();
            if (Ok() != 0) {
              result = kTVMRpcShutdown;
              TVMRpcServer_ResetSession();
            }
          } else {
            HandlePacket(code);
          }
        }
      }
      if (g_closed != 0U) {
        result = kTVMRpcClosed;
      } else if (Ok() == 0) {
        g_tx_len = 0U; /* nothing of a reply is buffered before the last field is read */
        if (g_status != kTvmErrorRpcTimeout) {
          SkipRest(); /* after a timeout the rest is not coming: answer now (a silent client
                       * holds the server for one read timeout, not two) */
        }
        if (g_closed != 0U) {
          result = kTVMRpcClosed;
        } else {
          ReplyException(TVMGetLastError());
        }
      } else {
        /* done */
      }
      Flush();
      if (g_write_failed != 0U) {
        result = kTVMRpcIoError;
      }
    }
  }
  return result;
}

TVMRpcPollResult TVMRpcServer_Run(void) {
  TVMRpcPollResult result = kTVMRpcIdle;
  while ((result == kTVMRpcIdle) || (result == kTVMRpcPacketDone)) {
    result = TVMRpcServer_Poll(0xFFFFFFFFUL);
  }
  return result;
}

void TVMRpcServer_ArenaUsage(size_t* used, size_t* max_used) {
  uint32_t i;
  size_t sum = 0U;
  for (i = 0U; i < g_num_allocs; ++i) {
    sum += (size_t)g_allocs[i].size;
  }
  if (used != NULL) {
    *used = sum;
  }
  if (max_used != NULL) {
    *max_used = g_arena_max_used;
  }
}
