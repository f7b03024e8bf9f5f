/*
 * Benchmark program: fills the model's inputs with deterministic pseudo-random data, runs one
 * inference between two marker calls and prints the outputs (hex) and, on Cortex-M, the peak
 * stack of the inference. The same source runs on the host (printf) and on QEMU (semihosting),
 * so that the harness can compare the outputs byte for byte.
 *
 * A model with state (BENCH_WARMUP > 0, set by CMakeLists.txt from metadata.json) is called
 * BENCH_WARMUP times first, each time on fresh inputs, so that the measured call is a steady-state
 * one (the first call also runs the state's initialisation, e.g. CALL_ONCE); the stack figure then
 * covers every call.
 *
 * Stack: before the run, the free stack below the current stack pointer is painted with a
 * pattern; after it, the lowest overwritten word gives the high-water mark. The figure is the
 * stack used below main's frame by the call of the model (call overhead included).
 */
#include <stdint.h>

#include "bench.h"

#if defined(__arm__)
#include "semihosting.h"
#define BENCH_ON_TARGET 1
#else
#include <stdio.h>
#define BENCH_ON_TARGET 0
#endif

void bench_marker_start(void) __attribute__((noinline, used));
void bench_marker_end(void) __attribute__((noinline, used));
void bench_marker_start(void) { __asm__ volatile("" ::: "memory"); }
void bench_marker_end(void) { __asm__ volatile("" ::: "memory"); }

/* xorshift32: the same sequence on every platform. */
static uint32_t rng_state = 0x2545F491u;
static uint32_t rng_next(void) {
  uint32_t x = rng_state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  rng_state = x;
  return x;
}

static void fill_input(const bench_buffer_t* b) {
  if (b->fill == BENCH_FILL_FLOAT32) {
    /* Floats in [-1, 1] with 1/1024 steps: exact on every platform. */
    float* f = (float*)(void*)b->data;
    for (uint32_t i = 0; i < b->bytes / 4u; ++i) {
      f[i] = (float)((int32_t)(rng_next() % 2049u) - 1024) / 1024.0f;
    }
  } else {
    for (uint32_t i = 0; i < b->bytes; ++i) {
      b->data[i] = (uint8_t)(rng_next() >> 24);
    }
  }
}

/* Output, one line at a time, without printf on the target. */
static char line[128];
static unsigned line_len;

static void flush_line(void) {
  line[line_len] = '\0';
#if BENCH_ON_TARGET
  semihosting_write0(line);
#else
  fputs(line, stdout);
#endif
  line_len = 0;
}

static void put_char(char c) {
  if (line_len == sizeof line - 1u) {
    flush_line();
  }
  line[line_len++] = c;
}

static void put_str(const char* s) {
  while (*s != '\0') {
    put_char(*s++);
  }
}

static void put_uint(uint32_t u) {
  char digits[10];
  int n = 0;
  do {
    digits[n++] = (char)('0' + (int)(u % 10u));
    u /= 10u;
  } while (u != 0u);
  while (n > 0) {
    put_char(digits[--n]);
  }
}

static void put_hex_bytes(const uint8_t* p, uint32_t n) {
  static const char hex[] = "0123456789abcdef";
  for (uint32_t i = 0; i < n; ++i) {
    put_char(hex[p[i] >> 4]);
    put_char(hex[p[i] & 0xFu]);
  }
}

#if BENCH_ON_TARGET
#define STACK_PAINT 0xC5A5A5C5u
extern uint32_t __stack_limit__[];

static inline uintptr_t stack_pointer(void) {
  uintptr_t sp;
  __asm__ volatile("mov %0, sp" : "=r"(sp));
  return sp;
}

/* Paints from the stack limit up to a margin below this function's own frame. */
static void __attribute__((noinline)) paint_stack(void) {
  uint32_t* end = (uint32_t*)(stack_pointer() - 16u);
  for (volatile uint32_t* p = __stack_limit__; p < end; ++p) {
    *p = STACK_PAINT;
  }
}

static uintptr_t lowest_used_stack(void) {
  const uint32_t* p = __stack_limit__;
  while (*p == STACK_PAINT) {
    ++p;
  }
  return (uintptr_t)p;
}
#endif

#ifndef BENCH_WARMUP
#define BENCH_WARMUP 0
#endif

static void fill_inputs(void) {
  for (uint32_t i = 0; i < bench_model.num_inputs; ++i) {
    fill_input(&bench_model.inputs[i]);
  }
}

int main(void) {
  bench_model.setup();
  fill_inputs();
#if BENCH_ON_TARGET
  paint_stack();
  const uintptr_t sp_before = stack_pointer();
#endif
  int32_t warmup_rc = 0;
  for (uint32_t k = 0; k < (uint32_t)BENCH_WARMUP; ++k) {
    if (bench_model.run() != 0) {
      warmup_rc = 1;
    }
    fill_inputs();
  }
  bench_marker_start();
  int32_t rc = bench_model.run();
  bench_marker_end();
  if (rc == 0) {
    rc = warmup_rc;
  }

  put_str("model ");
  put_str(bench_model.name);
  put_str("\nrc ");
  put_uint((uint32_t)rc);
  if (BENCH_WARMUP > 0) {
    put_str("\nwarmup ");
    put_uint((uint32_t)BENCH_WARMUP);
  }
#if BENCH_ON_TARGET
  put_str("\nstack ");
  put_uint((uint32_t)(sp_before - lowest_used_stack()));
#endif
  put_str("\n");
  for (uint32_t i = 0; i < bench_model.num_outputs; ++i) {
    put_str("output ");
    put_uint(i);
    put_str(" ");
    put_hex_bytes(bench_model.outputs[i].data, bench_model.outputs[i].bytes);
    put_str("\n");
  }
  flush_line();
  return rc == 0 ? 0 : 1;
}
