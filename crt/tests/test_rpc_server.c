/*
 * Tests of the RPC server (src/rpc_server.c) through an in-memory transport: scripted request
 * bytes in, reply bytes captured. A seeded random driver (no libFuzzer) then feeds thousands of
 * random and mutated packets of every RPC code and checks that every reply is one well-formed
 * packet and that the session still answers afterwards (run under ASan/UBSan by `make test`, and on
 * the emulated Cortex-M4 by `make test-qemu`).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <tvm/runtime/c_runtime_api.h>
#include <tvm/runtime/crt/crt.h>
#include <tvm/runtime/crt/rpc_server.h>

#include "unittest.h"

#define IN_CAP 8192U
#define OUT_CAP 8192U

static uint8_t g_in[IN_CAP];
static size_t g_in_len;
static size_t g_in_pos;
static uint8_t g_out[OUT_CAP];
static size_t g_out_len;
static uint32_t g_read_chunk; /* most bytes one read returns (exercises partial reads) */
static uint8_t g_arena[2048] __attribute__((aligned(16)));

static int32_t MemWrite(void* ctx, const uint8_t* data, size_t size) {
  size_t i;
  (void)ctx;
  for (i = 0U; (i < size) && (g_out_len < OUT_CAP); ++i) {
    g_out[g_out_len++] = data[i];
  }
  return (int32_t)size;
}

static int32_t MemRead(void* ctx, uint8_t* data, size_t size, uint32_t timeout_ms) {
  size_t n = g_in_len - g_in_pos;
  size_t i;
  (void)ctx;
  (void)timeout_ms;
  if (n == 0U) {
    return 0; /* nothing more: a timeout */
  }
  if (n > size) {
    n = size;
  }
  if (n > g_read_chunk) {
    n = g_read_chunk;
  }
  for (i = 0U; i < n; ++i) {
    data[i] = g_in[g_in_pos++];
  }
  return (int32_t)n;
}

static void Setup(void) {
  TVMRpcServerConfig cfg;
  cfg.write = MemWrite;
  cfg.read = MemRead;
  cfg.io_context = NULL;
  cfg.arena = g_arena;
  cfg.arena_size = sizeof(g_arena);
  cfg.read_timeout_ms = 0U;
  g_in_len = 0U;
  g_in_pos = 0U;
  g_out_len = 0U;
  g_read_chunk = 1000000U;
  UTVM_CHECK(TVMRpcServer_Init(&cfg) == kTvmErrorNoError);
}

/* ---- request builder ---- */

static uint8_t g_pkt[IN_CAP];
static size_t g_pkt_len;

static void B(const void* p, size_t n) {
  size_t i;
  for (i = 0U; (i < n) && (g_pkt_len < IN_CAP); ++i) {
    g_pkt[g_pkt_len++] = ((const uint8_t*)p)[i];
  }
}
/* v as n (4 or 8) little-endian bytes */
static void BLe(uint64_t v, uint32_t n) {
  uint8_t b[8];
  uint32_t i;
  for (i = 0U; i < n; ++i) {
    b[i] = (uint8_t)(v >> (8U * i));
  }
  B(b, n);
}
static void B32(uint32_t v) { BLe(v, 4U); }
static void B64(uint64_t v) { BLe(v, 8U); }
static void Begin(int32_t code) {
  g_pkt_len = 0U;
  B64(0U);
  B32((uint32_t)code);
}
static void ArgStr(const char* s) {
  B32(8U);
  B64((uint64_t)strlen(s));
  B(s, strlen(s));
}
static void ArgInt(int32_t type, int64_t v) {
  B32((uint32_t)type);
  B64((uint64_t)v);
}
/* A DLTensor of int8 (without its type index): data address, CPU, shape, byte_offset 0. */
static void Tensor(uint64_t data, int32_t ndim, const int64_t* shape) {
  int32_t i;
  B64(data);
  B32(1U); /* kDLCPU */
  B32(0U);
  B32((uint32_t)ndim);
  B32(0x00010800U); /* int8 x1 */
  for (i = 0; i < ndim; ++i) {
    B64((uint64_t)shape[i]);
  }
  B64(0U);
}
static void ArgTensor(uint64_t data, int64_t n) {
  B32(7U);
  Tensor(data, 1, &n);
}
static const int64_t kShapeA[4] = {1, 2, 2, 2};
static const int64_t kShapeB[1] = {8};
static const int64_t kShapeOut[2] = {1, 8};
/* Patch the length, queue the packet, run one poll; returns the poll result. */
static TVMRpcPollResult Send(void) {
  size_t i;
  const uint64_t len = (uint64_t)g_pkt_len - 8U;
  for (i = 0U; i < 8U; ++i) {
    g_pkt[i] = (uint8_t)(len >> (8U * i));
  }
  g_in_len = 0U;
  g_in_pos = 0U;
  g_out_len = 0U;
  for (i = 0U; i < g_pkt_len; ++i) {
    g_in[g_in_len++] = g_pkt[i];
  }
  return TVMRpcServer_Poll(0U);
}

static uint64_t Out64(size_t at) {
  uint64_t v = 0U;
  uint32_t i;
  for (i = 8U; i > 0U; --i) {
    v = (v << 8U) | g_out[at + i - 1U];
  }
  return v;
}
static int32_t Out32(size_t at) { return (int32_t)(uint32_t)Out64(at); }

/* The reply is one packet whose length matches; returns its code (or -1). */
static int32_t ReplyCode(void) {
  int32_t code = -1;
  if ((g_out_len >= 12U) && (Out64(0U) == (uint64_t)(g_out_len - 8U))) {
    code = (int32_t)(Out64(8U) & 0xFFFFFFFFU);
  }
  return code;
}

static void Init(void) {
  Begin(2);
  B64(5U);
  B("0.8.0", 5U);
  B32(0U);
  UTVM_CHECK(Send() == kTVMRpcPacketDone);
  UTVM_CHECK(ReplyCode() == 4);
}

/* GetGlobalFunc; returns the handle (0 when None). */
static uint64_t GetGlobal(const char* name) {
  Begin(9);
  B32(1U);
  ArgStr(name);
  (void)Send();
  UTVM_CHECK(ReplyCode() == 4);
  return (Out32(16U) == 4) ? Out64(20U) : 0U;
}

/* CallFunc with no arguments; the value of the first returned item is at g_out[28]. */
static int32_t CallNoArgs(uint64_t handle) {
  Begin(3);
  B64(handle);
  B32(0U);
  (void)Send();
  return ReplyCode();
}

static uint64_t Alloc(uint64_t nbytes) {
  Begin(13);
  B32(4U);
  B32(6U);
  B32(1U);
  B32(0U);
  ArgInt(1, (int64_t)nbytes);
  ArgInt(1, 16);
  B32(5U);
  B32(0x00010800U);
  B32(0U);
  (void)Send();
  return (ReplyCode() == 4) ? Out64(20U) : 0U;
}

static uint8_t ExceptionContains(const char* text) {
  size_t i;
  const size_t n = strlen(text);
  uint8_t found = 0U;
  if ((ReplyCode() == 5) && (g_out_len > n)) {
    for (i = 28U; (i + n) <= g_out_len; ++i) {
      if (memcmp(&g_out[i], text, n) == 0) {
        found = 1U;
      }
    }
  }
  if (found == 0U) {
    TVMLogf("  exception does not contain \"%s\"\n", text);
  }
  return found;
}

/* ---- cases ---- */

static void TestInitAndVersion(void) {
  Setup();
  Begin(9); /* before InitServer */
  B32(1U);
  ArgStr("runtime.SystemLib");
  (void)Send();
  UTVM_CHECK(ExceptionContains("not initialized"));
  Begin(2);
  B64(5U);
  B("0.7.0", 5U);
  B32(0U);
  (void)Send();
  UTVM_CHECK(ExceptionContains("version mismatch"));
  Init();
  UTVM_CHECK(g_out_len == 20U);
}

static void TestLookupAndMaxPacket(void) {
  uint64_t h;
  Setup();
  Init();
  UTVM_CHECK(GetGlobal("no.such.function") == 0U);
  h = GetGlobal("tvm.rpc.server.GetCRTMaxPacketSize");
  UTVM_CHECK(h != 0U);
  UTVM_CHECK(CallNoArgs(h) == 4);
  UTVM_CHECK(Out64(20U) == 1U);                                  /* Int (type index of result) */
  UTVM_CHECK(Out64(32U) == (uint64_t)TVM_CRT_RPC_MAX_PACKET_BYTES);
  h = GetGlobal("runtime.SystemLib");
  UTVM_CHECK(h != 0U);
  UTVM_CHECK(CallNoArgs(h) == 4);
  UTVM_CHECK(Out64(20U) == 73U); /* a Module */
}

/* The system library's module handle and tvmgen_demo_run's function handle of this session. */
/* ModuleGetFunction(module, "tvmgen_demo_run", query imports) sent with `module` as the module
 * handle; the reply is in g_out. */
static void GetDemoRunFrom(uint64_t module) {
  const uint64_t get = GetGlobal("tvm.rpc.server.ModuleGetFunction");
  Begin(3);
  B64(get);
  B32(3U);
  ArgInt(73, (int64_t)module);
  ArgStr("tvmgen_demo_run");
  ArgInt(2, 1);
  (void)Send();
}

/* FreeHandle(handle) */
static void FreeHandle(uint64_t handle) {
  Begin(10);
  B32(1U);
  ArgInt(4, (int64_t)handle);
  (void)Send();
}

static uint64_t DemoRun(uint64_t* out_lib) {
  uint64_t lib = GetGlobal("runtime.SystemLib");
  (void)CallNoArgs(lib);
  lib = Out64(32U);
  GetDemoRunFrom(lib);
  UTVM_CHECK(ReplyCode() == 4);
  if (out_lib != NULL) {
    *out_lib = lib;
  }
  return Out64(32U);
}

/* CallFunc(handle) with three arguments: DLTensors at a, b, out (shapes of the demo model), except
 * argument `opaque_at` (0..2), sent as an opaque handle with value `opaque` when opaque_at < 3. */
static void CallDemo(uint64_t handle, uint64_t a, uint64_t b, uint64_t out, uint32_t opaque_at, uint64_t opaque) {
  Begin(3);
  B64(handle);
  B32(3U);
  if (opaque_at == 0U) {
    ArgInt(4, (int64_t)opaque);
  } else {
    B32(7U);
    Tensor(a, 4, kShapeA);
  }
  if (opaque_at == 1U) {
    ArgInt(4, (int64_t)opaque);
  } else {
    B32(7U);
    Tensor(b, 1, kShapeB);
  }
  if (opaque_at == 2U) {
    ArgInt(4, (int64_t)opaque);
  } else {
    B32(7U);
    Tensor(out, 2, kShapeOut);
  }
  (void)Send();
}

/* CopyFromRemote of n bytes of the tensor at data (ndim, shape); the reply is in g_out. */
static void CopyBack(uint64_t data, int32_t ndim, const int64_t* shape, uint64_t n) {
  Begin(6);
  Tensor(data, ndim, shape);
  B64(n);
  (void)Send();
}

/* CallFunc(run) with three flat [n] tensors at a, b, out. */
static void CallFlat(uint64_t run, uint64_t a, uint64_t b, uint64_t out, int64_t n) {
  Begin(3);
  B64(run);
  B32(3U);
  ArgTensor(a, n);
  ArgTensor(b, n);
  ArgTensor(out, n);
  (void)Send();
}

static void TestDemoModelThroughRpc(void) {
  uint64_t run;
  uint64_t a;
  uint64_t b;
  uint64_t out;
  uint32_t i;
  Setup();
  Init();
  run = DemoRun(NULL);
  UTVM_CHECK(Out64(20U) == 68U);
  a = Alloc(8U);
  b = Alloc(8U);
  out = Alloc(8U);
  UTVM_CHECK((a != 0U) && (b != 0U) && (out != 0U));
  Begin(7); /* CopyToRemote a = 1..8 */
  Tensor(a, 4, kShapeA);
  B64(8U);
  for (i = 0U; i < 8U; ++i) {
    uint8_t v = (uint8_t)(i + 1U);
    B(&v, 1U);
  }
  g_read_chunk = 3U; /* partial reads */
  (void)Send();
  UTVM_CHECK(ReplyCode() == 4);
  Begin(7); /* b = 10 each, in two chunks of 4 (byte_offset) */
  for (i = 0U; i < 2U; ++i) {
    Begin(7);
    Tensor(b, 1, kShapeB);
    g_pkt_len -= 8U;
    B64(4U * i);
    B64(4U);
    B("\x0a\x0a\x0a\x0a", 4U);
    (void)Send();
    UTVM_CHECK(ReplyCode() == 4);
  }
  /* run: out = a + b */
  CallDemo(run, a, b, out, 3U, 0U);
  UTVM_CHECK(ReplyCode() == 4);
  UTVM_CHECK(Out64(20U) == 0U); /* returns None */
  CopyBack(out, 2, kShapeOut, 8U);
  UTVM_CHECK((ReplyCode() == 8) && (g_out_len == 20U) && (g_out[12] == 11U) && (g_out[19] == 18U));
  /* the demo model needs shapes [1,2,2,2], [8], [1,8]: a [8] tensor as input_a is rejected */
  CallFlat(run, a, b, out, 8);
  UTVM_CHECK(ExceptionContains("input_a"));
  /* a tensor outside the arena */
  CallFlat(run, a + 4096U, b, out, 8);
  UTVM_CHECK(ExceptionContains("out of range"));
  /* copy past the allocation */
  {
    const int64_t n64 = 64;
    CopyBack(a, 1, &n64, 64U);
  }
  UTVM_CHECK(ExceptionContains("out of range"));
  /* copy back a */
  CopyBack(a, 1, kShapeB, 8U);
  UTVM_CHECK(ReplyCode() == 8);
  UTVM_CHECK((g_out_len == 20U) && (g_out[12] == 1U) && (g_out[19] == 8U));
}

static void TestArena(void) {
  uint64_t a;
  uint64_t b;
  uint64_t c;
  size_t used = 0U;
  size_t max_used = 0U;
  Setup();
  Init();
  a = Alloc(1000U);
  b = Alloc(1000U);
  UTVM_CHECK((a != 0U) && (b != 0U));
  UTVM_CHECK(Alloc(1000U) == 0U);
  UTVM_CHECK(ExceptionContains("arena exhausted"));
  Begin(14); /* free a */
  B32(2U);
  B32(6U);
  B32(1U);
  B32(0U);
  ArgInt(4, (int64_t)a);
  (void)Send();
  UTVM_CHECK(ReplyCode() == 4);
  c = Alloc(900U);
  UTVM_CHECK(c == a); /* first fit reuses the hole */
  TVMRpcServer_ArenaUsage(&used, &max_used);
  UTVM_CHECK((used == 1900U) && (max_used >= 2000U));
  Begin(14); /* free something that is not an allocation */
  B32(2U);
  B32(6U);
  B32(1U);
  B32(0U);
  ArgInt(4, (int64_t)(a + 1U));
  (void)Send();
  UTVM_CHECK(ExceptionContains("not an allocation"));
}

static void TestEveryCodeMalformed(void) {
  int32_t code;
  Setup();
  Init();
  for (code = -1; code <= 25; ++code) {
    Begin(code);
    B("\x01\x02\x03", 3U); /* too short for any first field */
    (void)Send();
    UTVM_CHECK(ReplyCode() == 5);
    UTVM_CHECK(GetGlobal("runtime.SystemLib") != 0U); /* the session goes on */
  }
  /* a length beyond TVM_CRT_RPC_MAX_PACKET_BYTES; then a truncated packet (timeout) */
  g_pkt_len = 0U;
  B64(1U << 20U);
  B32(3U);
  g_in_len = 0U;
  g_in_pos = 0U;
  g_out_len = 0U;
  memcpy(g_in, g_pkt, g_pkt_len);
  g_in_len = g_pkt_len;
  (void)TVMRpcServer_Poll(0U);
  UTVM_CHECK(ExceptionContains("outside 4.."));
  Begin(9);
  B32(1U);
  ArgStr("runtime.SystemLib");
  g_pkt_len -= 5U;
  {
    size_t i;
    const uint64_t len = (uint64_t)g_pkt_len - 8U + 5U; /* claims 5 more bytes than it carries */
    for (i = 0U; i < 8U; ++i) {
      g_pkt[i] = (uint8_t)(len >> (8U * i));
    }
    memcpy(g_in, g_pkt, g_pkt_len);
    g_in_len = g_pkt_len;
    g_in_pos = 0U;
    g_out_len = 0U;
    (void)TVMRpcServer_Poll(0U);
  }
  UTVM_CHECK(ExceptionContains("truncated"));
  /* unknown argument type index */
  Begin(9);
  B32(1U);
  ArgInt(42, 0);
  (void)Send();
  UTVM_CHECK(ExceptionContains("type index 42"));
  /* Shutdown */
  Begin(1);
  UTVM_CHECK(Send() == kTVMRpcShutdown);
}

/* ---- a hostile client (docs/rpc.md, "Threat model"): nothing it sends is used unchecked ---- */

static void FreeData(uint64_t address) {
  Begin(14);
  B32(2U);
  B32(6U);
  B32(1U);
  B32(0U);
  ArgInt(4, (int64_t)address);
  (void)Send();
  UTVM_CHECK(ReplyCode() == 4);
}

/* Every byte of the arena outside [begin, end) still holds its canary. */
static uint8_t CanaryIntact(size_t begin, size_t end) {
  size_t i;
  uint8_t intact = 1U;
  for (i = 0U; i < sizeof(g_arena); ++i) {
    if (((i < begin) || (i >= end)) && (g_arena[i] != 0xA5U)) {
      intact = 0U;
    }
  }
  return intact;
}

static void TestHostileTensors(void) {
  uint64_t run;
  uint64_t a;
  uint64_t b;
  uint64_t out;
  uint64_t fake;
  uint64_t gap;
  const uint64_t base = (uint64_t)(uintptr_t)g_arena;
  uint32_t k;
  Setup();
  Init();
  memset(g_arena, 0xA5, sizeof(g_arena));
  run = DemoRun(NULL);
  a = Alloc(8U);
  b = Alloc(8U);
  out = Alloc(8U);
  fake = Alloc(64U);
  UTVM_CHECK((a != 0U) && (b != 0U) && (out != 0U) && (fake != 0U));
  /* the legitimate call works */
  CallDemo(run, a, b, out, 3U, 0U);
  UTVM_CHECK(ReplyCode() == 4);
  /* an opaque handle where a tensor is expected: an address of the client's choice is refused... */
  for (k = 0U; k < 3U; ++k) {
    CallDemo(run, a, b, out, k, 0x1000U);
    UTVM_CHECK(ExceptionContains("opaque handle"));
    CallDemo(run, a, b, out, k, base + sizeof(g_arena) + 64U);
    UTVM_CHECK(ExceptionContains("opaque handle"));
  }
  /* ...and a fake DLTensor written into the arena (data pointing before the arena) is never read
   * as one: the CRT refuses an opaque handle as a tensor */
  {
    DLTensor t;
    int64_t shape[2] = {1, 8};
    uint8_t bytes[sizeof(DLTensor) + sizeof(shape)];
    memset(&t, 0, sizeof(t));
    t.data = (void*)(uintptr_t)(base - 256U);
    t.device.device_type = kDLCPU;
    t.ndim = 2;
    t.dtype.code = 0U;
    t.dtype.bits = 8U;
    t.dtype.lanes = 1U;
    t.shape = (int64_t*)(uintptr_t)(fake + sizeof(DLTensor));
    memcpy(bytes, &t, sizeof(t));
    memcpy(&bytes[sizeof(t)], shape, sizeof(shape));
    Begin(7);
    {
      const int64_t n = (int64_t)sizeof(bytes);
      Tensor(fake, 1, &n);
    }
    B64(sizeof(bytes));
    B(bytes, sizeof(bytes));
    (void)Send();
    UTVM_CHECK(ReplyCode() == 4);
    for (k = 0U; k < 3U; ++k) {
      CallDemo(run, a, b, out, k, fake);
      UTVM_CHECK(ExceptionContains("must be a DLTensor handle"));
    }
  }
  /* DLTensors outside every live allocation: before and past the arena, in a gap, across two
   * allocations, past the end of one, in a freed one */
  CallDemo(run, base - 64U, b, out, 3U, 0U);
  UTVM_CHECK(ExceptionContains("not inside one arena allocation"));
  CallDemo(run, a, b, base + sizeof(g_arena) - 4U, 3U, 0U);
  UTVM_CHECK(ExceptionContains("not inside one arena allocation"));
  CallDemo(run, a, b, a + 4U, 3U, 0U); /* straddles a and b */
  UTVM_CHECK(ExceptionContains("not inside one arena allocation"));
  CallDemo(run, a, b, fake + 60U, 3U, 0U); /* the last 4 bytes of fake and past its end */
  UTVM_CHECK(ExceptionContains("not inside one arena allocation"));
  gap = Alloc(8U);
  FreeData(gap);
  CallDemo(run, a, b, gap, 3U, 0U); /* freed */
  UTVM_CHECK(ExceptionContains("not inside one arena allocation"));
  CallDemo(run, a, b, base + 1024U, 3U, 0U); /* never allocated */
  UTVM_CHECK(ExceptionContains("not inside one arena allocation"));
  /* a huge shape (extent overflow) */
  Begin(3);
  B64(run);
  B32(3U);
  B32(7U);
  {
    const int64_t huge[2] = {0x40000000LL, 0x40000000LL};
    Tensor(a, 2, huge);
  }
  ArgTensor(b, 8);
  ArgTensor(out, 8);
  (void)Send();
  UTVM_CHECK(ExceptionContains("tensor"));
  /* an object handle as an argument */
  Begin(3);
  B64(run);
  B32(3U);
  B32(64U);
  B32(115U);
  B64(a);
  ArgTensor(b, 8);
  ArgTensor(out, 8);
  (void)Send();
  UTVM_CHECK(ExceptionContains("object handles are not supported"));
  /* nothing outside a, b, out and fake was written: the canary holds */
  UTVM_CHECK(CanaryIntact((size_t)(a - base), (size_t)(fake + 64U - base)));
}

static void TestHostileHandles(void) {
  uint64_t run;
  uint64_t lib;
  uint64_t a;
  Setup();
  Init();
  run = DemoRun(&lib);
  a = Alloc(8U);
  /* function handles the server never handed out: an address, an encoded CRT handle, a module */
  UTVM_CHECK(CallNoArgs((uint64_t)(uintptr_t)&g_arena[16]) == 5);
  UTVM_CHECK(ExceptionContains("invalid function handle"));
  UTVM_CHECK(CallNoArgs(run + 1U) == 5);
  UTVM_CHECK(ExceptionContains("invalid function handle"));
  UTVM_CHECK(CallNoArgs(lib) == 5);
  UTVM_CHECK(ExceptionContains("invalid function handle"));
  UTVM_CHECK(CallNoArgs(0x7E000000000000FFULL) == 5);
  /* module handles: an address, a function handle, a module index never registered */
  GetDemoRunFrom(a);
  UTVM_CHECK(ExceptionContains("invalid module handle"));
  GetDemoRunFrom(run);
  UTVM_CHECK(ExceptionContains("invalid module handle"));
  /* function and module handles as arguments of a CRT call */
  Begin(3);
  B64(run);
  B32(3U);
  ArgInt(68, (int64_t)a);
  ArgTensor(a, 8);
  ArgTensor(a, 8);
  (void)Send();
  UTVM_CHECK(ExceptionContains("invalid function handle"));
  /* a handle from an earlier session is refused in a new one */
  Init();
  UTVM_CHECK(CallNoArgs(run) == 5);
  UTVM_CHECK(ExceptionContains("invalid function handle"));
  /* FreeHandle drops one copy: the handle works until the last copy is freed */
  run = DemoRun(&lib);
  UTVM_CHECK(DemoRun(NULL) == run);
  FreeHandle(run);
  UTVM_CHECK(ReplyCode() == 4);
  a = Alloc(8U);
  Begin(3);
  B64(run);
  B32(0U);
  (void)Send();
  UTVM_CHECK(ExceptionContains("wrong number of arguments")); /* still valid: reaches the CRT */
  FreeHandle(run);
  UTVM_CHECK(CallNoArgs(run) == 5);
  UTVM_CHECK(ExceptionContains("invalid function handle"));
}

#if TVM_CRT_RPC_TIME_EVALUATOR
/* runtime.RPCTimeEvaluator(module, "tvmgen_demo_run", ...) as a module argument of `mod_type`. */
static uint64_t Evaluator(int32_t mod_type, uint64_t mod) {
  const uint64_t get = GetGlobal("runtime.RPCTimeEvaluator");
  Begin(3);
  B64(get);
  B32(12U);
  ArgInt(mod_type, (int64_t)mod);
  ArgStr("tvmgen_demo_run");
  ArgInt(1, 1);
  ArgInt(1, 0);
  ArgInt(1, 1);
  ArgInt(1, 1);
  ArgInt(1, 0);
  ArgInt(1, 0);
  ArgInt(1, 0);
  ArgInt(1, 0);
  ArgInt(1, 0);
  ArgStr("");
  (void)Send();
  return (ReplyCode() == 4) ? Out64(32U) : 0U;
}

static void TestHostileTimeEvaluator(void) {
  uint64_t lib;
  uint64_t ev;
  uint64_t a;
  uint64_t b;
  uint64_t out;
  uint64_t fake;
  const uint64_t base = (uint64_t)(uintptr_t)g_arena;
  uint32_t k;
  Setup();
  Init();
  (void)DemoRun(&lib);
  UTVM_CHECK(Evaluator(73, base + 32U) == 0U);
  UTVM_CHECK(ExceptionContains("invalid module handle"));
  ev = Evaluator(73, lib);
  UTVM_CHECK(ev != 0U);
  a = Alloc(8U);
  b = Alloc(8U);
  out = Alloc(8U);
  fake = Alloc(64U);
  CallDemo(ev, a, b, out, 3U, 0U);
  UTVM_CHECK(ReplyCode() == 4);
  for (k = 0U; k < 3U; ++k) {
    CallDemo(ev, a, b, out, k, 0x1000U);
    UTVM_CHECK(ExceptionContains("opaque handle"));
    CallDemo(ev, a, b, out, k, fake);
    UTVM_CHECK(ExceptionContains("must be a DLTensor handle"));
  }
  CallDemo(ev, a, b, a + 4U, 3U, 0U);
  UTVM_CHECK(ExceptionContains("not inside one arena allocation"));
  FreeData(out);
  CallDemo(ev, a, b, out, 3U, 0U);
  UTVM_CHECK(ExceptionContains("not inside one arena allocation"));
}
#endif

/* Seeded random packets: every reply must be a single well-formed packet, no sanitizer report. */
static uint32_t g_rng = 0x12345678U;
static uint32_t Rand(void) {
  g_rng ^= g_rng << 13U;
  g_rng ^= g_rng >> 17U;
  g_rng ^= g_rng << 5U;
  return g_rng;
}

static void TestFuzz(void) {
  uint32_t iter;
  uint32_t bad = 0U;
  uint64_t lib;
  Setup();
  Init();
  lib = GetGlobal("runtime.SystemLib");
  for (iter = 0U; iter < 4000U; ++iter) {
    const uint32_t kind = Rand() % 4U;
    const int32_t code = (int32_t)(Rand() % 24U);
    uint32_t i;
    Begin(code);
    if (kind == 0U) {
      /* random bytes */
      const uint32_t n = Rand() % 64U;
      for (i = 0U; i < n; ++i) {
        uint8_t v = (uint8_t)Rand();
        B(&v, 1U);
      }
    } else {
      /* a plausible argument sequence, then random mutations */
      const uint32_t nargs = Rand() % 5U;
      if (code == 3) {
        B64((Rand() % 2U) ? lib : (uint64_t)Rand());
      }
      B32(nargs);
      for (i = 0U; i < nargs; ++i) {
        switch (Rand() % 7U) {
          case 0U: ArgStr("tvmgen_demo_run"); break;
          case 1U: ArgInt(1, (int64_t)(Rand() % 4096U)); break;
          case 2U: ArgTensor((uint64_t)(uintptr_t)g_arena + (Rand() % 4096U), (int64_t)(Rand() % 64U)); break;
          case 3U: ArgInt(4, (int64_t)(uintptr_t)g_arena); break;
          case 4U: B32(6U); B32(1U); B32(0U); break;
          case 5U: B32(65U); B32(66U); B64(3U); B("abc", 3U); break;
          default: ArgInt((int32_t)(Rand() % 120U), (int64_t)Rand()); break;
        }
      }
      if (kind == 2U) {
        const uint32_t flips = 1U + (Rand() % 4U);
        for (i = 0U; (i < flips) && (g_pkt_len > 12U); ++i) {
          g_pkt[12U + (Rand() % (uint32_t)(g_pkt_len - 12U))] ^= (uint8_t)(1U << (Rand() % 8U));
        }
      }
      if ((kind == 3U) && (g_pkt_len > 12U)) {
        g_pkt_len -= Rand() % (uint32_t)(g_pkt_len - 12U); /* truncated */
      }
    }
    if (code == 1) {
      continue; /* a valid Shutdown would end the session */
    }
    g_read_chunk = 1U + (Rand() % 16U);
    (void)Send();
    if ((g_out_len != 0U) && (ReplyCode() != 4) && (ReplyCode() != 5) && (ReplyCode() != 8)) {
      ++bad;
    }
    if ((iter % 512U) == 0U) {
      Init(); /* a fuzzed InitServer may have reset the session: keep it open */
    }
  }
  UTVM_CHECK(bad == 0U);
  Init();
  UTVM_CHECK(GetGlobal("runtime.SystemLib") != 0U);
}

#if TVM_CRT_RPC_TIME_EVALUATOR
#define RPC_SERVER_COND_CASES(X) X(HostileTimeEvaluator)
#else
#define RPC_SERVER_COND_CASES(X)
#endif
#define RPC_SERVER_CASES(X) \
  X(InitAndVersion) X(LookupAndMaxPacket) X(DemoModelThroughRpc) X(Arena) X(EveryCodeMalformed) \
  X(HostileTensors) X(HostileHandles) RPC_SERVER_COND_CASES(X) X(Fuzz)

UTVM_SUITE(rpc_server, RPC_SERVER_CASES)
