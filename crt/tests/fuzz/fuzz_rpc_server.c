/*
 * libFuzzer target: the RPC server's packet decoder (src/rpc_server.c) with the demo model in its
 * system library. One input is the byte stream a client sends on one session: it is read by an
 * in-memory transport (closed at its end), replies are checked to be whole packets and dropped.
 *
 * The arena is mapped at a fixed address (FUZZ_ARENA_BASE) between two PROT_NONE guard pages, so
 * that seeds can name arena addresses (fuzz/rpc_seeds.py) and any access just outside it faults.
 * Build and run: make -C crt fuzz-rpc (clang, -fsanitize=fuzzer,address,undefined); docs/fuzzing.md.
 */
#define _DEFAULT_SOURCE

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include <tvm/runtime/crt/crt.h>
#include <tvm/runtime/crt/rpc_server.h>

#define FUZZ_ARENA_BASE 0x10000000UL
#define FUZZ_ARENA_BYTES 0x10000UL
#define FUZZ_PAGE 0x1000UL

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static const uint8_t* g_data;
static size_t g_size;
static size_t g_pos;
static uint8_t* g_arena;
/* reply checker: bytes left in the current reply packet, bytes of its length field seen */
static uint64_t g_reply_left;
static uint8_t g_len_bytes[8];
static uint32_t g_len_seen;
#ifdef FUZZ_TRACE
#include <stdio.h>
static uint8_t g_trace;
#endif

static int32_t FuzzRead(void* ctx, uint8_t* out, size_t n, uint32_t timeout_ms) {
  size_t i;
  size_t take = g_size - g_pos;
  (void)ctx;
  (void)timeout_ms;
  if (take == 0U) {
    return -1; /* end of input: the client closed the connection */
  }
  if (take > n) {
    take = n;
  }
  for (i = 0U; i < take; ++i) {
    out[i] = g_data[g_pos + i];
  }
  g_pos += take;
  return (int32_t)take;
}

static int32_t FuzzWrite(void* ctx, const uint8_t* bytes, size_t n) {
  size_t i;
  (void)ctx;
  for (i = 0U; i < n; ++i) {
    if (g_reply_left == 0U) {
      g_len_bytes[g_len_seen] = bytes[i];
      ++g_len_seen;
      if (g_len_seen == 8U) {
        uint32_t k;
        for (k = 8U; k > 0U; --k) {
          g_reply_left = (g_reply_left << 8U) | g_len_bytes[k - 1U];
        }
        g_len_seen = 0U;
        if ((g_reply_left < 4U) || (g_reply_left > (1ULL << 32U))) {
          abort(); /* a reply is never empty or larger than the arena */
        }
#ifdef FUZZ_TRACE
        g_trace = 1U;
#endif
      }
    } else {
#ifdef FUZZ_TRACE
      /* print each reply's code and the bytes after it (seed development: -DFUZZ_TRACE) */
      if (g_trace != 0U) {
        fprintf(stderr, "\nreply %u:", (unsigned)bytes[i]);
        g_trace = 0U;
      } else if (g_reply_left > 0U) {
        fprintf(stderr, " %02x", (unsigned)bytes[i]);
      }
#endif
      --g_reply_left;
    }
  }
  return (int32_t)n;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  TVMRpcServerConfig cfg;
  if (g_arena == NULL) {
    uint8_t* region;
    if (TVMInitializeRuntime() != 0) {
      abort();
    }
    region = (uint8_t*)mmap((void*)(FUZZ_ARENA_BASE - FUZZ_PAGE), FUZZ_ARENA_BYTES + (2U * FUZZ_PAGE),
                            PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if ((region == MAP_FAILED) ||
        (mprotect(region + FUZZ_PAGE, FUZZ_ARENA_BYTES, PROT_READ | PROT_WRITE) != 0)) {
      abort();
    }
    g_arena = region + FUZZ_PAGE;
  }
  g_data = data;
  g_size = size;
  g_pos = 0U;
  g_reply_left = 0U;
  g_len_seen = 0U;
  cfg.write = FuzzWrite;
  cfg.read = FuzzRead;
  cfg.io_context = NULL;
  cfg.arena = g_arena;
  cfg.arena_size = FUZZ_ARENA_BYTES;
  cfg.read_timeout_ms = 0U;
  if (TVMRpcServer_Init(&cfg) != kTvmErrorNoError) {
    abort();
  }
  (void)TVMRpcServer_Run();
  if ((g_reply_left != 0U) || (g_len_seen != 0U)) {
    abort(); /* a reply was cut short */
  }
  return 0;
}
