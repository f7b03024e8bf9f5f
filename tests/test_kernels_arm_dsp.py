"""The Armv7E-M / Armv8-M DSP kernels (utvm_build/kernels/arm_dsp/, --target cortex-m4/m7/m33/m55).

Two levels, both on QEMU mps2-an386 (Cortex-M4):

- kernels: one C program calls every DSP kernel and its generic counterpart (two translation units,
  the same headers resolved through kernels/arm_dsp first or not) on seeded random cases chosen for
  the edges (odd channel counts and depths, 4-byte tails, padding on every side, strides, dilation,
  depth multipliers 1..8, per-channel and per-tensor requantization, extreme zero points, multipliers
  0 and 2^30..2^31-1, shifts -31..+8, activation ranges, int8 extremes) and compares every output byte;
  the requantization helper is compared with TFLite's MultiplyByQuantizedMultiplier arithmetic
  (common.h) on 200 000 random operands besides.
- models: the bundled digits model, the MLPerf Tiny re-creations and micro_speech (when
  ../shared/models/examples is there) compiled with --target cortex-m4 and run on QEMU must give the
  generic build's outputs on the host byte for byte (the benchmark firmware and inputs), and digits
  the TFLite reference kernels' besides.

And the guard: an arm_dsp kernel compiled without the DSP extension is a compile error naming the
fix, never a wrong result.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from system_tools import need

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

KERNELS = REPO / "utvm_build" / "kernels"
DSP = KERNELS / "arm_dsp"
CORTEX_M = REPO / "examples" / "cortex_m"
M4_FLAGS = ["-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16"]
STRICT = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-Wno-unused-function"]

# The kernels under test, wrapped once per translation unit (P = gen_ or dsp_).
WRAP = r"""
#include "conv2d_s8.h"
#include "depthwise_conv2d_s8.h"
#include "fully_connected_s8.h"
#include "fully_connected_s8_pc.h"
#include "add_s8.h"
#include "pooling_avg_s8.h"
#include "pooling_max_s8.h"
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
void CAT(P, conv)(const utvm_conv_q_params* p, const int8_t* in, const int8_t* w, const int32_t* bias,
                  const int32_t* border_bias, const int32_t* mult, const int32_t* shift, int8_t* out) {
  utvm_conv2d_s8(p, in, w, bias, border_bias, mult, shift, out);
}
void CAT(P, dw)(const utvm_conv_q_params* p, const int8_t* in, const int8_t* w, const int32_t* bias,
                const int32_t* mult, const int32_t* shift, int8_t* out) {
  utvm_depthwise_conv2d_s8(p, in, w, bias, mult, shift, out);
}
void CAT(P, fc)(const utvm_fc_q_params* p, const int8_t* in, const int8_t* w, const int32_t* bias, int8_t* out) {
  utvm_fully_connected_s8(p, in, w, bias, out);
}
void CAT(P, fc_pc)(const utvm_fc_q_params* p, const int32_t* m, const int32_t* s, const int8_t* in,
                   const int8_t* w, const int32_t* bias, int8_t* out) {
  utvm_fully_connected_s8_pc(p, m, s, in, w, bias, out);
}
void CAT(P, add)(const utvm_add_q_params* p, const utvm_ew_shape* sh, const int8_t* a, const int8_t* b,
                 int8_t* out) {
  utvm_add_s8(p, sh, a, b, out);
}
void CAT(P, dot)(const int8_t* w, int32_t ws, const int8_t* x, int32_t off, int32_t n, int32_t* acc) {
  utvm_dot_s8_2x2(w, &w[ws], x, &x[n], n, &acc[0], &acc[2]);
  utvm_dot_s8_4x1(w, ws, x, off, n, &acc[4], &acc[6]);
}
"""

POOL_WRAP = r"""
void CAT(P, avg)(const utvm_pool_q_params* p, const int8_t* in, int8_t* out) { utvm_avg_pool_s8(p, in, out); }
void CAT(P, max)(const utvm_pool_q_params* p, const int8_t* in, int8_t* out) { utvm_max_pool_s8(p, in, out); }
"""

RQ = r"""
#include "dsp_s8.h"
int32_t dsp_rq(int32_t x, int32_t m, int32_t s) {
  utvm_dsp_rq_ch c;
  utvm_dsp_rq_setup(&c, m, s);
  return utvm_dsp_rq(&c, x);
}
int32_t gen_rq(int32_t x, int32_t m, int32_t s) { return utvm_mul_by_quantized_mul(x, m, s); }
"""

MAIN = r"""
#include <stdint.h>
#include <string.h>
#include "conv.h"
#include "fully_connected.h"
#include "elementwise.h"
#include "pooling.h"
#include "semihosting.h"

#define DECL(P)                                                                                       \
  void P##conv(const utvm_conv_q_params*, const int8_t*, const int8_t*, const int32_t*, const int32_t*, \
               const int32_t*, const int32_t*, int8_t*);                                             \
  void P##dw(const utvm_conv_q_params*, const int8_t*, const int8_t*, const int32_t*, const int32_t*,  \
             const int32_t*, int8_t*);                                                               \
  void P##fc(const utvm_fc_q_params*, const int8_t*, const int8_t*, const int32_t*, int8_t*);           \
  void P##fc_pc(const utvm_fc_q_params*, const int32_t*, const int32_t*, const int8_t*, const int8_t*, \
                const int32_t*, int8_t*);                                                            \
  void P##add(const utvm_add_q_params*, const utvm_ew_shape*, const int8_t*, const int8_t*, int8_t*);  \
  void P##dot(const int8_t*, int32_t, const int8_t*, int32_t, int32_t, int32_t*);                     \
  POOL_DECL(P)                                                                                       \
  int32_t P##rq(int32_t, int32_t, int32_t);
#if HAVE_POOL
#define POOL_DECL(P)                                                \
  void P##avg(const utvm_pool_q_params*, const int8_t*, int8_t*); \
  void P##max(const utvm_pool_q_params*, const int8_t*, int8_t*);
#else
#define POOL_DECL(P)
#endif
DECL(gen_)
DECL(dsp_)

static void put(const char* s) { semihosting_write0(s); }
static void put_i(long v) {
  char b[16];
  int i = 15;
  unsigned long u = (v < 0) ? (unsigned long)(-(v + 1)) + 1u : (unsigned long)v;
  b[i] = 0;
  do { b[--i] = (char)('0' + (int)(u % 10u)); u /= 10u; } while (u != 0u);
  if (v < 0) b[--i] = '-';
  put(&b[i]);
  put(" ");
}

static uint32_t seed = 12345u;
static uint32_t rnd(void) {
  seed ^= seed << 13; seed ^= seed >> 17; seed ^= seed << 5;
  return seed;
}
static int32_t rr(int32_t lo, int32_t hi) { return lo + (int32_t)(rnd() % (uint32_t)(hi - lo + 1)); }
static int8_t r8(void) {
  uint32_t k = rnd() % 8u;
  return (k == 0u) ? (int8_t)-128 : (k == 1u) ? (int8_t)127 : (int8_t)(rnd() & 0xFFu);
}
static void fill8(int8_t* p, int32_t n) { for (int32_t i = 0; i < n; ++i) p[i] = r8(); }
static int32_t rmult(void) {
  uint32_t k = rnd() % 10u;
  if (k == 0u) return 0;
  if (k == 1u) return 1073741824;
  if (k == 2u) return 2147483647;
  return (int32_t)(0x40000000u + (rnd() & 0x3FFFFFFFu));
}
static int32_t rshift(void) {
  uint32_t k = rnd() % 10u;
  if (k == 0u) return rr(-31, -25);
  if (k == 1u) return rr(0, 8);
  return rr(-20, -1);
}
static void rrange(int32_t* lo, int32_t* hi) {
  uint32_t k = rnd() % 4u;
  *lo = -128; *hi = 127;
  if (k == 1u) { *lo = rr(-128, 127); }
  if (k == 2u) { *lo = rr(-128, 0); *hi = rr(*lo, 127); }
}

#define MAXB 8192
static int8_t in[MAXB], in2[MAXB], w[MAXB], out_g[MAXB], out_d[MAXB];
static int32_t bias[256], border[256], mult[256], shift[256];
static unsigned long failures;

static void report(const char* what, int c, int32_t n) {
  for (int32_t i = 0; i < n; ++i) {
    if (out_g[i] != out_d[i]) {
      if (failures < 20u) {
        put("FAIL "); put(what); put(" case/byte/generic/dsp: ");
        put_i(c); put_i(i); put_i(out_g[i]); put_i(out_d[i]); put("\n");
      }
      failures++;
      return;
    }
  }
}

static void geom(utvm_conv_geom* g, int depthwise) {
  g->batches = rr(1, 2);
  g->in_h = rr(1, 9);
  g->in_w = rr(1, 9);
  g->in_c = (rnd() % 4u == 0u) ? rr(1, 3) : rr(1, 13);
  g->filter_h = (rnd() % 3u == 0u) ? 3 : rr(1, 4);
  g->filter_w = (rnd() % 3u == 0u) ? 3 : rr(1, 4);
  if (!depthwise && rnd() % 8u == 0u) { /* KWS-like first layer: 10x4x1 */
    g->filter_h = rr(5, 10); g->filter_w = 4; g->in_c = 1; g->in_h = rr(10, 14); g->in_w = rr(4, 10);
  }
  g->stride_h = rr(1, 3);
  g->stride_w = rr(1, 3);
  g->dilation_h = (rnd() % 4u == 0u) ? 2 : 1;
  g->dilation_w = (depthwise && rnd() % 4u == 0u) ? 2 : 1;
  g->pad_h = rr(0, g->filter_h - 1);
  g->pad_w = rr(0, g->filter_w - 1);
  {
    int32_t eh = g->dilation_h * (g->filter_h - 1) + 1;
    int32_t ew = g->dilation_w * (g->filter_w - 1) + 1;
    int32_t oh = (g->in_h + 2 * g->pad_h - eh) / g->stride_h + 1;
    int32_t ow = (g->in_w + 2 * g->pad_w - ew) / g->stride_w + 1;
    g->out_h = oh < 1 ? 1 : oh;
    g->out_w = ow < 1 ? 1 : ow;
  }
  g->depth_multiplier = 1;
  g->filter_in_c = g->in_c;
  g->out_c = rr(1, 9);
  if (depthwise) {
    uint32_t k = rnd() % 4u;
    g->depth_multiplier = (k < 2u) ? 1 : (k == 2u) ? rr(2, 9) : 4 * rr(1, 2);
    if (g->depth_multiplier == 1 && rnd() % 2u == 0u) g->in_c = 4 * rr(1, 4) + (int32_t)(rnd() % 2u) * rr(1, 3);
    g->out_c = g->in_c * g->depth_multiplier;
    g->filter_in_c = 1;
  }
}

static void qparams(utvm_conv_q_params* p, int32_t oc) {
  p->pad_value = (rnd() % 4u == 0u) ? ((rnd() % 2u) ? -128 : 127) : rr(-128, 127);
  p->output_offset = (rnd() % 4u == 0u) ? ((rnd() % 2u) ? -128 : 127) : rr(-128, 127);
  p->acc32 = 0;
  rrange(&p->act_min, &p->act_max);
  int same = (rnd() % 4u) == 0u; /* per-tensor */
  for (int32_t c = 0; c < oc; ++c) {
    mult[c] = (same && c > 0) ? mult[0] : rmult();
    shift[c] = (same && c > 0) ? shift[0] : rshift();
  }
}

static void test_conv(int cases) {
  for (int c = 0; c < cases; ++c) {
    utvm_conv_q_params p;
    utvm_conv_geom* g = &p.g;
    geom(g, 0);
    qparams(&p, g->out_c);
    int32_t fsize = g->filter_h * g->filter_w * g->in_c;
    int32_t nin = g->batches * g->in_h * g->in_w * g->in_c;
    int32_t nout = g->batches * g->out_h * g->out_w * g->out_c;
    if (nin > MAXB || nout > MAXB || fsize * g->out_c > MAXB) { --c; continue; }
    fill8(in, nin);
    fill8(w, fsize * g->out_c);
    for (int32_t o = 0; o < g->out_c; ++o) {
      int32_t s = 0;
      for (int32_t k = 0; k < fsize; ++k) s += w[o * fsize + k];
      border[o] = rr(-100000, 100000);
      bias[o] = border[o] - p.pad_value * s; /* folded */
    }
    gen_conv(&p, in, w, bias, border, mult, shift, out_g);
    dsp_conv(&p, in, w, bias, border, mult, shift, out_d);
    report("conv", c, nout);
  }
}

static void test_dw(int cases) {
  for (int c = 0; c < cases; ++c) {
    utvm_conv_q_params p;
    utvm_conv_geom* g = &p.g;
    geom(g, 1);
    if (g->out_c > 256) { --c; continue; }
    qparams(&p, g->out_c);
    int32_t taps = g->filter_h * g->filter_w;
    int32_t nin = g->batches * g->in_h * g->in_w * g->in_c;
    int32_t nout = g->batches * g->out_h * g->out_w * g->out_c;
    if (nin > MAXB || nout > MAXB || taps * g->out_c > MAXB) { --c; continue; }
    fill8(in, nin);
    fill8(w, taps * g->out_c);
    for (int32_t o = 0; o < g->out_c; ++o) {
      int32_t s = 0;
      for (int32_t k = 0; k < taps; ++k) s += w[k * g->out_c + o];
      bias[o] = rr(-100000, 100000) - p.pad_value * s;
    }
    gen_dw(&p, in, w, bias, mult, shift, out_g);
    dsp_dw(&p, in, w, bias, mult, shift, out_d);
    report("depthwise", c, nout);
  }
}

static void test_fc(int cases) {
  for (int c = 0; c < cases; ++c) {
    utvm_fc_q_params p;
    p.batches = rr(1, 3);
    p.accum_depth = (rnd() % 4u == 0u) ? rr(1, 9) : rr(1, 300);
    p.out_depth = rr(1, 11);
    if (p.batches * p.accum_depth > MAXB || p.out_depth * p.accum_depth > MAXB) { --c; continue; }
    p.output_offset = rr(-128, 127);
    p.multiplier = rmult();
    p.shift = rshift();
    p.acc32 = 0;
    rrange(&p.act_min, &p.act_max);
    fill8(in, p.batches * p.accum_depth);
    fill8(w, p.out_depth * p.accum_depth);
    for (int32_t o = 0; o < p.out_depth; ++o) { bias[o] = rr(-100000, 100000); mult[o] = rmult(); shift[o] = rshift(); }
    gen_fc(&p, in, w, bias, out_g);
    dsp_fc(&p, in, w, bias, out_d);
    report("fully_connected", c, p.batches * p.out_depth);
    gen_fc_pc(&p, mult, shift, in, w, bias, out_g);
    dsp_fc_pc(&p, mult, shift, in, w, bias, out_d);
    report("fully_connected_pc", c, p.batches * p.out_depth);
  }
}

static void test_add(int cases) {
  for (int c = 0; c < cases; ++c) {
    utvm_add_q_params p;
    utvm_ew_shape sh;
    memset(&sh, 0, sizeof sh);
    sh.size = rr(1, 300);
    sh.broadcast = 0;
    for (int d = 0; d < UTVM_EW_MAX_DIMS; ++d) { sh.dims[d] = 1; sh.stride1[d] = 1; sh.stride2[d] = 1; }
    sh.dims[UTVM_EW_MAX_DIMS - 1] = sh.size;
    p.left_shift = 20;
    p.input1_offset = rr(-127, 128);
    p.input2_offset = rr(-127, 128);
    p.input1_multiplier = (int32_t)(0x40000000u + (rnd() & 0x3FFFFFFFu));
    p.input2_multiplier = (int32_t)(0x40000000u + (rnd() & 0x3FFFFFFFu));
    if (rnd() % 4u == 0u) p.input2_multiplier = -p.input2_multiplier; /* SUB */
    p.input1_shift = rr(-12, -1);
    p.input2_shift = rr(-12, -1);
    p.output_multiplier = (int32_t)(0x40000000u + (rnd() & 0x3FFFFFFFu));
    p.output_shift = rr(-24, 0);
    p.output_offset = rr(-128, 127);
    rrange(&p.act_min, &p.act_max);
    fill8(in, sh.size);
    fill8(in2, sh.size);
    gen_add(&p, &sh, in, in2, out_g);
    dsp_add(&p, &sh, in, in2, out_d);
    report("add", c, sh.size);
  }
}

static void test_dot(int cases) {
  for (int c = 0; c < cases; ++c) {
    int32_t n = rr(1, 70);
    int32_t ws = (rnd() % 4u == 0u) ? 0 : n + rr(0, 5);
    int32_t off = rr(-128, 127);
    int32_t ag[8], ad[8];
    fill8(w, 4 * (n + 5));
    fill8(in, 2 * n);
    for (int k = 0; k < 8; ++k) { ag[k] = ad[k] = (int32_t)rnd() >> 8; }
    gen_dot(w, ws, in, off, n, ag);
    dsp_dot(w, ws, in, off, n, ad);
    if (memcmp(ag, ad, sizeof ag) != 0) {
      if (failures < 20u) semihosting_write0("FAIL dot\n");
      failures++;
    }
  }
}

#if HAVE_POOL
static void test_pool(int cases) {
  for (int c = 0; c < cases; ++c) {
    utvm_pool_q_params p;
    memset(&p, 0, sizeof p);
    p.batches = rr(1, 2); p.in_h = rr(1, 9); p.in_w = rr(1, 9); p.channels = rr(1, 13);
    if (rnd() % 4u == 0u) { p.in_h = rr(10, 20); p.in_w = rr(10, 20); } /* windows of more than 255 taps */
    p.filter_h = rr(1, 4); p.filter_w = rr(1, 4); p.stride_h = rr(1, 3); p.stride_w = rr(1, 3);
    if (p.in_h >= 10) { p.filter_h = p.in_h; p.filter_w = p.in_w; } /* global pooling */
    p.pad_h = rr(0, p.filter_h - 1); p.pad_w = rr(0, p.filter_w - 1);
    p.out_h = (p.in_h + 2 * p.pad_h - p.filter_h) / p.stride_h + 1; if (p.out_h < 1) p.out_h = 1;
    p.out_w = (p.in_w + 2 * p.pad_w - p.filter_w) / p.stride_w + 1; if (p.out_w < 1) p.out_w = 1;
    rrange(&p.act_min, &p.act_max);
    int32_t nout = p.batches * p.out_h * p.out_w * p.channels;
    if (p.batches * p.in_h * p.in_w * p.channels > MAXB) { --c; continue; }
    fill8(in, p.batches * p.in_h * p.in_w * p.channels);
    gen_avg(&p, in, out_g); dsp_avg(&p, in, out_d); report("avg_pool", c, nout);
    gen_max(&p, in, out_g); dsp_max(&p, in, out_d); report("max_pool", c, nout);
  }
}
#endif

static void test_rq(long cases) {
  for (long c = 0; c < cases; ++c) {
    uint32_t k = rnd() % 4u;
    int32_t x = (k == 0u) ? (int32_t)rnd() : (k == 1u) ? ((int32_t)rnd() >> 12) : (k == 2u) ? rr(-3, 3)
                                                                                     : (int32_t)(rnd() | 0x80000000u);
    int32_t m = rmult();
    int32_t s = (rnd() % 8u == 0u) ? rr(-31, 8) : rshift();
    if (gen_rq(x, m, s) != dsp_rq(x, m, s)) {
      if (failures < 20u) {
        put("FAIL rq "); put_i(x); put_i(m); put_i(s); put("\n");
      }
      failures++;
    }
  }
}

int main(void) {
  test_rq(200000L);
  test_dot(400);
  test_conv(CASES);
  test_dw(CASES);
  test_fc(CASES / 2);
  test_add(CASES / 4);
#if HAVE_POOL
  test_pool(CASES / 2);
#endif
  put(failures ? "failures " : "ok ");
  put_i((long)failures);
  put("\n");
  return failures ? 1 : 0;
}
"""


def _qemu(elf: Path, tmp: Path, timeout: float = 300, machine: str = "mps2-an386") -> tuple[int, str]:
    console = tmp / "console.txt"
    cmd = ["qemu-system-arm", "-M", machine, "-nographic", "-chardev", f"file,id=sh,path={console}",
           "-semihosting-config", "enable=on,target=native,chardev=sh", "-kernel", str(elf)]
    p = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout)
    return p.returncode, (console.read_text(errors="replace") if console.exists() else "") + p.stdout + p.stderr


def _cc(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["arm-none-eabi-gcc", *args], cwd=cwd, capture_output=True, text=True)


def _have_pool_override() -> bool:
    return (DSP / "pooling_avg_s8.h").is_file() or (DSP / "pooling_max_s8.h").is_file()


@pytest.fixture(scope="module")
def tools() -> None:
    need("arm-none-eabi-gcc", "qemu-system-arm")


def test_1x1_kernel_keeps_twice_the_sums_in_int32() -> None:
    """conv2d_q15_1x1.h requantizes twice each sum (SMMLAR): ops/conv.py keeps a layer whose doubled
    sums could leave int32 (a bias near 2^30) on the general kernel, and takes the others."""
    from utvm_build.ops.conv import _Geom, conv_q15_1x1_layer
    geo = _Geom(1, 6, 6, 64, 1, 1, 64, 1, 6, 6, 32, 1, 1, 1, 1, 0, 0)
    limit = 2 ** 30 - 64 * 255 * 128
    assert conv_q15_1x1_layer(geo, 2, 0) and conv_q15_1x1_layer(geo, 2, limit - 1)
    assert not conv_q15_1x1_layer(geo, 2, limit)
    assert not conv_q15_1x1_layer(geo, 1, 0)  # a clamp inside int8: the general kernel


def test_depthwise_doubles_only_what_fits() -> None:
    """depthwise_conv2d_s8_q15.h requantizes twice each 3x3 sum (SMMLAR, rq_mode 3 / 4): ops/conv.py
    doubles the weights and biases of 3x3 layers at the full int8 range whose doubled sums stay in
    int32, and of no other (a bias near 2^30, a clamp inside int8, another filter, dilation_w)."""
    from dataclasses import replace

    from utvm_build.ops.conv import _Geom, dw_q15_doubled
    geo = _Geom(1, 6, 6, 64, 3, 3, 64, 1, 6, 6, 64, 1, 1, 1, 1, 1, 1)
    limit = 2 ** 30 - 9 * 255 * 128
    full = (-128, 127)
    assert dw_q15_doubled(geo, 2, full, 0) and dw_q15_doubled(geo, 0, full, limit - 1)
    assert not dw_q15_doubled(geo, 2, full, limit)
    assert not dw_q15_doubled(geo, 1, (-128, 0), 0) and not dw_q15_doubled(geo, 0, (-20, 127), 0)
    assert not dw_q15_doubled(replace(geo, filter_w=5), 2, full, 0)
    assert not dw_q15_doubled(replace(geo, dilation_w=2), 2, full, 0)


def test_depthwise_sign_term_only_where_needed() -> None:
    """ops/conv.py dw_q15_sign: the doubled layers (rq_mode 3 / 4) at an output zero point other than
    -128 need the requantization's sign term (UTVM_DW_Q15_SIGN bit 1); -128 and the other modes do not."""
    from utvm_build.ops.conv import dw_q15_sign

    assert [dw_q15_sign(3, -128), dw_q15_sign(4, -128), dw_q15_sign(2, 5), dw_q15_sign(0, 0)] == [0, 0, 0, 0]
    assert [dw_q15_sign(3, 5), dw_q15_sign(4, -127), dw_q15_sign(3, 127)] == [1, 1, 1]


def test_every_override_has_the_dsp_guard() -> None:
    files = sorted(DSP.glob("*.h"))
    assert files, "no arm_dsp kernels"
    for f in files:
        head = "\n".join(ln for ln in f.read_text().splitlines() if ln.startswith("#"))[:600]
        guard = head.split("#include")[0]
        assert "#if !defined(__ARM_FEATURE_DSP)" in guard, f"{f.name}: no DSP guard before its includes"
        assert "--target generic" in f.read_text(), f.name


@pytest.mark.parametrize("cpu", ["cortex-m3", "cortex-m0plus"])
def test_without_dsp_is_a_compile_error(tools, tmp_path: Path, cpu: str) -> None:
    for name in ("conv2d_s8", "depthwise_conv2d_s8", "dot_s8", "add_s8", "conv2d_s8_q15", "depthwise_conv2d_s8_q15",
                 "add_s8_lut", "conv2d_s8_q15w", "conv2d_q15_window", "depthwise_conv2d_s8_tiny"):
        src = tmp_path / "t.c"
        src.write_text(f'#include "{name}.h"\n')
        r = _cc([f"-mcpu={cpu}", "-mthumb", "-I", str(DSP), "-I", str(KERNELS), "-c", str(src), "-o", "t.o"], tmp_path)
        assert r.returncode != 0
        assert "compiled without the DSP extension; use --target generic" in r.stderr, r.stderr


def test_kernels_against_generic_on_qemu(tools, tmp_path: Path) -> None:
    """Every DSP kernel against the generic one, byte for byte, on seeded random edge cases."""
    pool = _have_pool_override()
    wrap = WRAP + (POOL_WRAP if pool else "")
    if not pool:
        wrap = wrap.replace('#include "pooling_avg_s8.h"\n#include "pooling_max_s8.h"\n', "")
    (tmp_path / "gen.c").write_text("#define P gen_\n" + wrap + RQ.replace('#include "dsp_s8.h"', '#include "common.h"')
                                    .split("int32_t dsp_rq")[0] + "int32_t gen_rq(int32_t x, int32_t m, int32_t s) "
                                    "{ return utvm_mul_by_quantized_mul(x, m, s); }\n")
    (tmp_path / "dsp.c").write_text("#define P dsp_\n" + wrap + RQ.split("int32_t gen_rq")[0])
    (tmp_path / "main.c").write_text(MAIN)
    common = [*M4_FLAGS, "-Os", *STRICT, "-ffunction-sections", "-fdata-sections", "-I", str(CORTEX_M)]
    for unit, inc in (("gen", [str(KERNELS)]), ("dsp", [str(DSP), str(KERNELS)])):
        r = _cc([*common, *[f"-I{i}" for i in inc], "-c", f"{unit}.c", "-o", f"{unit}.o"], tmp_path)
        assert r.returncode == 0, r.stderr
    r = _cc([*common, f"-I{KERNELS}", f"-DHAVE_POOL={int(pool)}", "-DCASES=600", "-Wno-error",
             "main.c", "gen.o", "dsp.o", str(CORTEX_M / "startup.c"), str(CORTEX_M / "semihosting.c"),
             "-nostartfiles", "--specs=nano.specs", "-Wl,--gc-sections", f"-L{CORTEX_M}",
             f"-T{CORTEX_M / 'mps2-an386.ld'}", "-o", "check.elf"], tmp_path)
    assert r.returncode == 0, r.stderr
    rc, out = _qemu(tmp_path / "check.elf", tmp_path)
    assert rc == 0 and "ok 0" in out, out[-3000:]


def test_models_on_qemu_equal_generic_host(tools, tmp_path: Path) -> None:
    """The example and MLPerf-like models, --target cortex-m4 on QEMU vs the generic build on the host."""
    need("cmake", "cc")
    from benchmarks import reference
    from benchmarks.compare import outputs_match
    from benchmarks.models import MLPERF_MODELS, get_models, model_names
    from benchmarks.runner import CORES, build, model_metadata, parse_program_output

    names = [n for n in model_names() if n in ("digits", "micro_speech", *MLPERF_MODELS)]
    models = get_models(names, tmp_path)
    build(models, None, "O2", tmp_path / "host", target="generic")
    build(models, CORES["m4"], "Os", tmp_path / "m4", target="cortex-m4")
    for m in models:
        meta = model_metadata(tmp_path / "m4", m)
        assert meta["target"] == "cortex-m4"
        variants = meta["kernel_variants"]
        assert {k for k, v in variants.items() if v == "arm_dsp"} == {
            k for k in variants if (DSP / f"{k}.h").is_file()}, (m.name, variants)
        host = parse_program_output(subprocess.run([str(tmp_path / "host" / f"bench_{m.name}")],
                                                   capture_output=True, text=True, timeout=300).stdout)
        rc, out = _qemu(tmp_path / "m4" / f"bench_{m.name}.elf", tmp_path)
        target = parse_program_output(out)
        assert rc == 0 and target.rc == 0, out[-2000:]
        ok, how = outputs_match(target.outputs, host.outputs, [t["dtype"] for t in meta["outputs"]])
        assert ok and how == "identical", f"{m.name}: {how}"
        if m.name == "digits":
            assert reference.check(m, model_metadata(tmp_path / "host", m), host.outputs).startswith("identical")


def test_portable_kernels_on_cortex_m0(tools, tmp_path: Path) -> None:
    """The portable path keeps running everywhere: the models that fit a Cortex-M0 (QEMU microbit,
    Armv6-M, no DSP, 16 KB RAM) built --target cortex-m0plus (generic kernels, soft float) give the
    generic host build's outputs byte for byte, and digits the reference's."""
    need("cmake", "cc")
    from benchmarks import reference
    from benchmarks.compare import outputs_match
    from benchmarks.models import get_models, model_names
    from benchmarks.runner import CORTEX_M0, build, model_metadata, parse_program_output

    names = [n for n in model_names() if n in ("digits", "hello_world_int8", "hello_world_float", "micro_speech")]
    models = get_models(names, tmp_path)
    assert "digits" in [m.name for m in models]
    build(models, None, "O2", tmp_path / "host", target="generic")
    build(models, CORTEX_M0, "Os", tmp_path / "m0", target="cortex-m0plus")
    for m in models:
        meta = model_metadata(tmp_path / "m0", m)
        assert set(meta["kernel_variants"].values()) == {"generic"}, meta["kernel_variants"]
        host = parse_program_output(subprocess.run([str(tmp_path / "host" / f"bench_{m.name}")],
                                                   capture_output=True, text=True, timeout=300).stdout)
        rc, out = _qemu(tmp_path / "m0" / f"bench_{m.name}.elf", tmp_path, machine="microbit")
        target = parse_program_output(out)
        assert rc == 0 and target.rc == 0, out[-2000:]
        ok, how = outputs_match(target.outputs, host.outputs, [t["dtype"] for t in meta["outputs"]])
        assert ok and (how == "identical" or meta["outputs"][0]["dtype"] == "float32"), f"{m.name}: {how}"
        if m.name == "digits":
            assert reference.check(m, model_metadata(tmp_path / "host", m), host.outputs).startswith("identical")


# ---- the DSP kernels with their own data (ops/conv.py: conv2d_s8_q15.h, depthwise_conv2d_s8_q15.h) ----
# Their weights and requantization constants are prepared by the generator, so they are tested
# through models: one model per family with many independent operators (each its own input and
# output), compiled --target cortex-m4 and run on QEMU, against the generic build on the host byte
# for byte, and the host outputs against TFLite's reference kernels.

# (in [n, h, w, c], out_c (conv) or the depth multiplier (depthwise; None: 1), filter (h, w), strides,
#  dilations, padding,
#  activation, input zp, output zp, multiplier regime)
Q15_CONV = [
    ([1, 6, 6, 8], 16, (1, 1), (1, 1), (1, 1), "VALID", "RELU", -10, -128, "typical"),
    ([1, 5, 3, 5], 7, (1, 1), (1, 1), (1, 1), "SAME", "NONE", 127, -128, "typical"),
    ([1, 7, 6, 3], 5, (3, 3), (1, 1), (1, 1), "SAME", "RELU6", -128, 5, "typical"),
    ([1, 9, 9, 16], 9, (3, 3), (2, 2), (1, 1), "SAME", "NONE", -128, 127, "typical"),
    ([1, 13, 7, 1], 6, (10, 4), (2, 2), (1, 1), "SAME", "RELU", 3, -128, "typical"),
    ([1, 9, 9, 4], 4, (3, 3), (1, 1), (2, 2), "SAME", "NONE", 20, 0, "typical"),
    ([1, 8, 11, 6], 3, (3, 3), (1, 1), (1, 2), "VALID", "RELU6", -7, -100, "typical"),
    ([1, 11, 13, 12], 2, (5, 5), (3, 3), (1, 1), "VALID", "NONE", 0, 0, "typical"),
    ([1, 6, 7, 4], 1, (2, 3), (1, 2), (1, 1), "SAME", "NONE", -1, 1, "typical"),
    ([1, 5, 5, 8], 6, (3, 3), (1, 1), (1, 1), "SAME", "NONE", 11, -3, "near one"),
    ([1, 5, 5, 8], 6, (1, 1), (1, 1), (1, 1), "VALID", "NONE", 11, -3, "above one"),
    ([1, 4, 4, 4], 3, (3, 3), (1, 1), (1, 1), "SAME", "NONE", 0, 100, "tiny"),
    ([2, 1, 1, 16], 5, (1, 1), (1, 1), (1, 1), "VALID", "RELU", 60, -128, "typical"),
    ([1, 1, 1, 3], 3, (1, 1), (1, 1), (1, 1), "VALID", "NONE", -128, 127, "per-tensor"),
    ([1, 7, 5, 2], 5, (3, 3), (2, 1), (2, 1), "SAME", "RELU_N1_TO_1", 5, 2, "mixed"),
    ([1, 6, 6, 10], 8, (3, 3), (1, 1), (1, 1), "SAME", "NONE", -128, -128, "shift 22/23"),
    ([1, 3, 4, 36], 4, (3, 3), (1, 1), (1, 1), "SAME", "NONE", 9, -128, "typical"),
    ([1, 6, 5, 7], 3, (2, 2), (1, 1), (2, 1), "SAME", "NONE", -128, 127, "typical"),
    ([2, 5, 5, 3], 4, (3, 3), (2, 2), (1, 1), "VALID", "RELU", 0, -128, "typical"),
    # 1x1 with 8 input channels, full int8 range (conv2d_q15_1x1.h: odd out_c, batches, stride (2, 1))
    ([2, 3, 5, 8], 7, (1, 1), (1, 1), (1, 1), "SAME", "RELU", 127, -128, "typical"),
    ([1, 4, 4, 8], 16, (1, 1), (1, 1), (1, 1), "VALID", "RELU", 5, -128, "typical"),
    ([1, 5, 6, 8], 5, (1, 1), (2, 1), (1, 1), "SAME", "RELU", -128, -128, "typical"),
    # rows not of whole words, windows inside the image copied straight from the input: 5x5x3 rows of
    # 15 bytes with dilation_h 2 and batches, 1x3x1 rows shorter than a word, 3x3x3 at stride 2 SAME
    ([2, 11, 9, 3], 5, (5, 5), (1, 1), (2, 1), "VALID", "RELU", -3, -128, "typical"),
    ([1, 6, 7, 1], 3, (1, 3), (1, 2), (1, 1), "SAME", "NONE", 50, 10, "typical"),
    ([1, 10, 10, 3], 8, (3, 3), (2, 2), (1, 1), "SAME", "RELU", -128, -128, "typical"),
    # windows inside the image read as words across rows (conv2d_q15_window.h utvm_conv2d_q15_direct):
    # rows of 6 bytes and a whole last word, rows of 3 bytes (the last word from before the last row),
    # the last window ending at the input's last byte (VALID)
    ([1, 6, 6, 2], 3, (2, 3), (1, 1), (1, 1), "VALID", "NONE", 7, -2, "typical"),
    ([1, 8, 7, 1], 4, (4, 3), (1, 1), (1, 1), "SAME", "RELU", -60, -128, "typical"),
    ([1, 5, 3, 1], 3, (3, 3), (1, 1), (1, 1), "VALID", "NONE", 100, 3, "typical"),
    # --optimize speed, filters larger than 1x1 on whole words: conv2d_s8_q15w.h's strips (odd output
    # widths, batches, dilation_h, stride 2), and a strip over Q15_STRIP_MAX_BYTES (packed windows)
    ([1, 9, 9, 8], 5, (3, 3), (1, 2), (2, 1), "SAME", "RELU", 9, -128, "typical"),
    ([2, 5, 7, 4], 3, (3, 3), (1, 1), (1, 1), "VALID", "RELU6", -128, -5, "mixed"),
    ([1, 3, 24, 64], 3, (3, 3), (1, 1), (1, 1), "SAME", "NONE", 30, 4, "typical"),
    # 1x1 (conv2d_q15_1x1.h when _takes_1x1): input channels 16 (loops of 4 steps), 32 and 64
    # (8 steps), 48 and 80 (4-step loops, 3 and 5 of them), 8 (two steps); odd pixel counts, a single
    # pixel, batches, strides 2 and (2, 1) (pixels by division), input zero points -128 and 127,
    # shift -22 (the folding limit) in every channel, odd numbers of output channels (7; 1: no pair);
    # fewer than 16 output pixels keep int8 weights under --optimize balanced, the others are widened
    ([1, 5, 7, 16], 6, (1, 1), (1, 1), (1, 1), "VALID", "RELU", -128, -128, "typical"),
    ([2, 5, 5, 32], 4, (1, 1), (2, 2), (1, 1), "SAME", "RELU", 127, -128, "typical"),
    ([1, 3, 5, 64], 10, (1, 1), (1, 1), (1, 1), "VALID", "RELU", 3, -128, "typical"),
    ([1, 4, 5, 48], 2, (1, 1), (1, 1), (1, 1), "VALID", "RELU", -20, -128, "typical"),
    ([1, 7, 3, 8], 12, (1, 1), (1, 1), (1, 1), "VALID", "RELU", 60, -128, "typical"),
    ([1, 5, 3, 80], 8, (1, 1), (2, 1), (1, 1), "VALID", "RELU", -1, -128, "typical"),
    ([1, 1, 1, 16], 2, (1, 1), (1, 1), (1, 1), "VALID", "RELU", 0, -128, "typical"),
    ([1, 4, 6, 32], 4, (1, 1), (1, 1), (1, 1), "VALID", "RELU", -128, -128, "shift 22/23"),
    ([1, 3, 6, 16], 7, (1, 1), (1, 1), (1, 1), "VALID", "RELU", 2, -128, "typical"),
    ([1, 4, 3, 16], 1, (1, 1), (1, 1), (1, 1), "VALID", "RELU", 9, -128, "typical"),
    # 1x1 that keep the general kernel: a clamp inside int8 (RELU6 with zero point 5, RELU with zero
    # point 3), a multiplier above one (shift +1), 12 input channels
    ([1, 4, 4, 16], 6, (1, 1), (1, 1), (1, 1), "VALID", "RELU6", -5, 5, "typical"),
    ([1, 4, 4, 32], 4, (1, 1), (1, 1), (1, 1), "VALID", "RELU", 5, 3, "typical"),
    ([1, 4, 4, 16], 4, (1, 1), (1, 1), (1, 1), "VALID", "RELU", -128, -128, "above one"),
    ([1, 3, 5, 12], 4, (1, 1), (1, 1), (1, 1), "VALID", "RELU", 4, -128, "typical"),
    # windows of 28 bytes, the full int8 range, even out_c (conv2d_s8_q15w.h utvm_conv2d_q15w_w28 under
    # --optimize speed): 3x3x3 at stride 1 with an odd pixel count and borders, 5x5x1 at stride (2, 1);
    # an odd out_c keeps the pair function
    ([1, 9, 7, 3], 6, (3, 3), (1, 1), (1, 1), "SAME", "RELU", 33, -128, "typical"),
    ([1, 8, 9, 1], 4, (5, 5), (2, 1), (1, 1), "SAME", "RELU", -128, -128, "typical"),
    ([2, 6, 6, 3], 5, (3, 3), (2, 2), (1, 1), "SAME", "RELU", 10, -128, "typical"),
    # the same block's pixel triples (output rows of 3k + 1 and 3k + 2 pixels: the last ones repeated)
    # and its assembly 3x3x3 windows: batches with borders on the right and bottom, one channel pair;
    # dilation_h 2 with every border
    ([2, 9, 14, 3], 2, (3, 3), (2, 2), (1, 1), "SAME", "RELU", -7, -128, "typical"),
    ([1, 11, 8, 3], 4, (3, 3), (1, 1), (2, 1), "SAME", "NONE", 90, -128, "typical"),
    # border windows from in-column loads (utvm_conv2d_q15w_rows; the cases above have a row and a
    # column outside on every side): a row of pixels with two filter rows outside the image, its
    # last inside window ending at the input's last byte; images 2 columns wide (every window has a
    # column outside) in a batch of 2
    ([1, 1, 17, 3], 4, (3, 3), (1, 1), (1, 1), "SAME", "RELU", -50, -128, "typical"),
    ([2, 8, 2, 3], 2, (3, 3), (1, 1), (1, 1), "SAME", "RELU", 5, -128, "typical"),
    # windows of 40 bytes (10x4x1, KWS's first layer) through the same block, triples in output order
    # across rows and images (70 pixels: the last repeated twice)
    ([2, 13, 5, 1], 4, (10, 4), (2, 1), (1, 1), "SAME", "NONE", -20, -128, "typical"),
    # 1x1 with 8, 16 or 32 input channels, stride 1, an even out_c (conv2d_q15_1x1.h: in_c 8 every
    # pixel triple in one block, UTVM_CONV2D_Q15W_1X1_TRIS_ASM under --optimize speed; 16 and 32 the
    # steps unrolled); batches, a single channel pair, a single pixel (a triple of one pixel)
    ([3, 1, 3, 8], 2, (1, 1), (1, 1), (1, 1), "VALID", "RELU", 127, -128, "typical"),
    ([1, 1, 1, 8], 4, (1, 1), (1, 1), (1, 1), "VALID", "RELU", -128, -128, "typical"),
    ([2, 2, 3, 16], 4, (1, 1), (1, 1), (1, 1), "VALID", "RELU", 100, -128, "typical"),
    ([1, 3, 3, 32], 6, (1, 1), (1, 1), (1, 1), "VALID", "RELU", 50, -128, "typical"),
    # 1x1 pixel triples (conv2d_q15_1x1.h UTVM_CONV2D_Q15_1X1_TRI_ASM, both weight types): a last
    # triple of one pixel after 16-step (two-iteration) loops, of two pixels at in_c 8 and 48 (an odd
    # multiple of 4 steps) at stride 2, an odd out_c with 16 input channels at stride (1, 2)
    ([1, 2, 5, 64], 6, (1, 1), (1, 1), (1, 1), "VALID", "RELU", -7, -128, "typical"),
    ([1, 9, 7, 8], 10, (1, 1), (2, 2), (1, 1), "VALID", "NONE", 21, -5, "typical"),
    ([1, 3, 7, 48], 4, (1, 1), (2, 2), (1, 1), "SAME", "RELU", -100, -128, "typical"),
    ([1, 4, 7, 16], 5, (1, 1), (1, 2), (1, 1), "SAME", "RELU", 40, -128, "typical"),
    # in_c 8 at stride 1 with two pixels after the whole-layer block's triples (out_c 8: its two
    # channel pairs per iteration; 6: three pairs, the triples one by one)
    ([1, 2, 7, 8], 6, (1, 1), (1, 1), (1, 1), "VALID", "RELU", -60, -128, "typical"),
    ([1, 2, 7, 8], 8, (1, 1), (1, 1), (1, 1), "VALID", "RELU", 35, -128, "typical"),
    # the three-pixel block with an output zero point other than -128 (36 864 outputs, enough to hit the
    # requantization's rounding boundary: the sign term kept, conv2d_s8_q15w.h UTVM_CONV2D_Q15W_TRI bit 3);
    # the test drops the term below and checks that this case then fails
    ([1, 48, 48, 3], 16, (3, 3), (1, 1), (1, 1), "SAME", "NONE", 5, 100, "typical"),
    # a layer of two pixels (two triples of one pixel: the blocks address pixel c at twice pixel b's
    # offset), in_c 8 and 16
    ([1, 1, 2, 8], 4, (1, 1), (1, 1), (1, 1), "VALID", "RELU", 17, -128, "typical"),
    ([1, 2, 1, 16], 6, (1, 1), (1, 1), (1, 1), "VALID", "RELU", -3, -128, "typical"),
    # an output zero point other than -128 in a layer of more than Q15_1X1_SIGN_C_MACS MACs: the
    # requantization's sign term in the assembly (the smaller ones above take the C form without it)
    ([1, 12, 12, 16], 32, (1, 1), (1, 1), (1, 1), "VALID", "NONE", 9, 20, "typical"),
    # 3x3x3 at stride 2 on even widths (pad right 1) with rows of 3k pixels, as VWW's first layer: each
    # row's last triple in the block with its edge pixel first (conv2d_s8_q15w.h UTVM_CONV2D_Q15W_W28_EDGE),
    # batches (the edge window of an image's last full row reads the next row), rows of 9 and 6 pixels
    ([2, 12, 18, 3], 8, (3, 3), (2, 2), (1, 1), "SAME", "RELU", 7, -128, "typical"),
    ([1, 8, 12, 3], 6, (3, 3), (2, 2), (1, 1), "SAME", "NONE", -20, -128, "typical"),
    # widened in_c 32 (8 steps: the V flag skips the loops, UTVM_CONV2D_Q15W_1X1_V8) with no activation
    # at zero point -128 (2 304 outputs through the 3-instruction requantization, both triplets by one
    # LDM); in_c 128 (the 8 unrolled steps, then three loop iterations: V clear after each)
    ([1, 12, 12, 32], 16, (1, 1), (1, 1), (1, 1), "VALID", "NONE", 7, -128, "typical"),
    ([1, 4, 6, 128], 6, (1, 1), (1, 1), (1, 1), "VALID", "RELU", -9, -128, "typical"),
]


def _takes_tri(case: tuple) -> bool:
    """Does a Q15_CONV case take conv2d_s8_q15w.h's three-pixel block when widened (ops/conv.py
    q15w_triples)? Windows of 28 or 40 bytes, an even out_c, the full int8 range, no strips (in_c
    not a multiple of 4 here)."""
    shape, out_c, (fh, fw), _, _, _, act, _, out_zp, regime = case
    depth4 = (fh * fw * shape[3] + 3) // 4 * 4
    full = act == "NONE" or (act == "RELU" and out_zp == -128)
    return depth4 in (28, 40) and out_c % 2 == 0 and full and shape[3] % 4 != 0 and regime == "typical"


def _takes_1x1(case: tuple) -> bool:
    """Does a Q15_CONV case take conv2d_q15_1x1.h (ops/conv.py conv_q15_1x1_layer)? 1x1, input
    channels a multiple of 16 or 8, the full int8 range with every shift in -22..-2 (no activation,
    or RELU to zero point -128; multipliers 2^-11..2^-7 or 2^-21.5)."""
    shape, out_c, filt, _, _, _, act, _, zp_out, regime = case
    ic = shape[3]
    full = act == "NONE" or (act, zp_out) == ("RELU", -128)
    return (filt == (1, 1) and (ic % 16 == 0 or ic == 8) and full
            and (regime == "typical" or (regime == "shift 22/23" and out_c <= 4)))


Q15_DW = [
    ([1, 7, 5, 8], None, (3, 3), (1, 1), (1, 1), "SAME", "RELU6", -128, 5, "typical"),
    ([1, 9, 8, 4], None, (3, 3), (2, 2), (1, 1), "SAME", "NONE", 127, -128, "typical"),
    ([1, 5, 5, 12], None, (3, 3), (1, 1), (1, 1), "VALID", "RELU", -5, -128, "typical"),
    ([1, 6, 7, 4], None, (5, 5), (1, 1), (1, 1), "SAME", "NONE", 3, 3, "typical"),
    ([1, 9, 9, 8], None, (3, 3), (1, 1), (2, 2), "SAME", "NONE", 0, -50, "typical"),
    ([1, 8, 9, 4], None, (3, 3), (1, 2), (1, 2), "SAME", "RELU6", -20, -128, "typical"),
    ([1, 4, 4, 4], None, (1, 1), (1, 1), (1, 1), "VALID", "NONE", 1, 1, "typical"),
    ([1, 64, 40, 4], None, (3, 3), (1, 1), (1, 1), "SAME", "RELU", 10, -128, "typical"),
    ([1, 6, 6, 8], None, (3, 3), (2, 2), (1, 1), "SAME", "NONE", 10, 0, "near one"),
    ([1, 6, 6, 8], None, (3, 3), (1, 1), (1, 1), "SAME", "RELU_N1_TO_1", 10, 0, "tiny"),
    ([2, 5, 4, 4], None, (3, 3), (1, 1), (1, 1), "SAME", "NONE", -128, 127, "mixed"),
    ([1, 5, 4, 6], None, (3, 3), (1, 1), (1, 1), "SAME", "NONE", 4, 4, "typical"),  # 6 channels: generic DSP kernel
    ([1, 6, 6, 8], None, (3, 3), (1, 1), (1, 1), "SAME", "NONE", -128, -128, "shift 22/23"),
    # 3x3 planes: dilation_h 2 with dilation_w 1, stride (2, 1), stride (1, 3) with an even row
    ([1, 9, 7, 8], None, (3, 3), (1, 1), (2, 1), "SAME", "RELU", 7, -128, "typical"),
    ([1, 9, 6, 4], None, (3, 3), (2, 1), (1, 1), "VALID", "RELU", -100, -128, "typical"),
    ([1, 5, 12, 4], None, (3, 3), (1, 3), (1, 1), "SAME", "NONE", 50, 20, "typical"),
    ([1, 4, 16, 8], None, (3, 3), (1, 4), (1, 1), "SAME", "RELU", -3, -128, "typical"),
    # one input channel (out_c here: the depth multiplier): conv2d_s8_q15.h with the filter as
    # [OC][KH][KW][1] (ops/conv.py); micro_speech's 10x8 at stride 2, odd multipliers with batches and
    # dilation, multiplier 1
    ([1, 49, 40, 1], 8, (10, 8), (2, 2), (1, 1), "SAME", "RELU", -128, -128, "typical"),
    ([2, 9, 7, 1], 3, (3, 3), (1, 2), (2, 1), "VALID", "NONE", 5, 10, "near one"),
    ([1, 6, 6, 1], 1, (3, 3), (1, 1), (1, 1), "SAME", "NONE", 127, -5, "per-tensor"),
    ([1, 7, 5, 1], 5, (2, 3), (1, 1), (1, 1), "SAME", "RELU6", 0, -128, "shift 22/23"),
    # one input channel, 3x3, a multiple of 4 channels: depthwise_conv2d_s8_q15.h with one plane
    # (person_detect's first layer: multiplier 8 at stride 2); odd widths (the fill's tail), several
    # bands, batches, dilation_h, mixed shifts
    ([1, 40, 37, 1], 8, (3, 3), (2, 2), (1, 1), "SAME", "RELU6", -128, -128, "typical"),
    ([2, 9, 11, 1], 4, (3, 3), (1, 1), (2, 1), "VALID", "NONE", 5, 3, "one near one"),
    ([1, 7, 6, 1], 12, (3, 3), (1, 2), (1, 1), "SAME", "RELU", 127, -128, "typical"),
    # one channel's shift above -2 (the others fast, channel by channel): full range and RELU6
    ([1, 9, 10, 8], None, (3, 3), (1, 1), (1, 1), "SAME", "NONE", -128, -128, "one near one"),
    ([1, 9, 9, 12], None, (3, 3), (2, 2), (1, 1), "SAME", "RELU6", 3, -128, "one near one"),
    # 4-pixel steps (full int8 range, stride 1 and 2): rows of 4, 5 (a C single), 6 (a 2-pixel
    # step), 7 (a 3-pixel step, with batches) and 8 pixels; stride 2 rows of 3, 7 (the 3-pixel step
    # reads past the band's last plane) and 6
    ([1, 6, 4, 4], None, (3, 3), (1, 1), (1, 1), "SAME", "RELU", 9, -128, "typical"),
    ([2, 7, 7, 8], None, (3, 3), (1, 1), (1, 1), "SAME", "NONE", -128, -128, "typical"),
    ([1, 8, 8, 4], None, (3, 3), (1, 1), (1, 1), "VALID", "RELU", 60, -128, "typical"),
    ([1, 5, 10, 4], None, (3, 3), (1, 1), (1, 1), "VALID", "NONE", -3, -128, "mixed"),
    ([2, 6, 6, 4], None, (3, 3), (2, 2), (1, 1), "SAME", "RELU", -128, -128, "typical"),
    ([1, 14, 14, 4], None, (3, 3), (2, 2), (1, 1), "SAME", "NONE", 17, -128, "typical"),
    ([1, 12, 12, 8], None, (3, 3), (2, 2), (1, 1), "SAME", "RELU", -128, -128, "typical"),  # a 2-pixel step
    ([1, 3, 3, 4], None, (3, 3), (1, 1), (1, 1), "SAME", "RELU", 0, -128, "typical"),
    # rows by the steps alone (depthwise_conv2d_s8_q15.h utvm_dw_q15_rows4: the plane position and
    # the output address carried between rows): stride (2, 1) with rows of 4k + 2, a transposed map
    # (rows of 4k + 3, the output rows not contiguous) with batches
    ([1, 11, 10, 4], None, (3, 3), (2, 1), (1, 1), "SAME", "RELU", 6, -128, "typical"),
    ([2, 23, 5, 8], None, (3, 3), (1, 1), (1, 1), "SAME", "NONE", -9, -128, "typical"),
    # rows of 4k + 2 at stride 1 (k >= 1): the last 6 pixels in one block (utvm_dw_q15_six1)
    ([1, 6, 6, 8], None, (3, 3), (1, 1), (1, 1), "SAME", "RELU", -3, -128, "typical"),
    ([2, 5, 10, 4], None, (3, 3), (1, 1), (1, 1), "SAME", "NONE", 12, -128, "typical"),
    # maps of few columns run transposed (ops/conv.py _dw_transpose): KWS's 25x5 at the full range,
    # with batches and several bands, stride (2, 1), other requantization modes
    ([1, 25, 5, 8], None, (3, 3), (1, 1), (1, 1), "SAME", "RELU", -128, -128, "typical"),
    ([2, 13, 5, 4], None, (3, 3), (1, 1), (1, 1), "SAME", "NONE", 5, -128, "typical"),
    ([1, 130, 6, 4], None, (3, 3), (1, 1), (1, 1), "SAME", "RELU", -20, -128, "typical"),
    ([1, 21, 4, 8], None, (3, 3), (2, 1), (1, 1), "SAME", "NONE", 3, 3, "typical"),
    ([1, 17, 3, 4], None, (3, 3), (1, 1), (1, 1), "SAME", "RELU6", -7, -128, "one near one"),
    # stride 2, rows of 4k + 2 (k >= 1): the last 6 pixels in one block (utvm_dw_q15_six2), with batches
    # and k = 2, and VALID (the block's last lane read past a row of 13 columns); rows of 4k + 1 at
    # stride 2 and the full range take utvm_dw_q15_ch3x3_other
    ([2, 7, 20, 8], None, (3, 3), (2, 2), (1, 1), "SAME", "NONE", -7, -128, "typical"),
    ([1, 7, 13, 4], None, (3, 3), (2, 2), (1, 1), "VALID", "RELU", 90, -128, "typical"),
    ([1, 9, 18, 4], None, (3, 3), (2, 2), (1, 1), "SAME", "RELU", 5, -128, "typical"),
    # rows of 6q pixels (q >= 2) by 6-pixel blocks alone (utvm_dw_q15_rows4): stride 1 rows of 18 and
    # of 48 in several bands, stride 2 rows of 12 with batches
    ([1, 5, 18, 8], None, (3, 3), (1, 1), (1, 1), "SAME", "RELU", -40, -128, "typical"),
    ([1, 60, 48, 4], None, (3, 3), (1, 1), (1, 1), "SAME", "RELU", 0, -128, "typical"),
    ([2, 9, 24, 4], None, (3, 3), (2, 2), (1, 1), "SAME", "NONE", 33, -128, "typical"),
    # 3-pixel steps at stride 2 whose last tap is inside the image (VALID: SAME pads the right there)
    ([1, 7, 7, 4], None, (3, 3), (2, 2), (1, 1), "VALID", "RELU", 11, -128, "typical"),
    ([1, 5, 15, 4], None, (3, 3), (2, 2), (1, 1), "VALID", "NONE", -60, -128, "typical"),
    # the band fill's rows in one asm statement (utvm_dw_q15_fill_rows: an even count of positions):
    # one pair a row (no loop of two), with batches ([2, 2, 2, 8] takes the tiny-map kernel now: maps of
    # 2 x 6 and 6 x 2 pixels, one of them rows of 2 positions whichever way the map runs)
    ([2, 2, 2, 8], None, (3, 3), (1, 1), (1, 1), "SAME", "RELU", 21, -128, "typical"),
    ([2, 6, 2, 8], None, (3, 3), (1, 1), (1, 1), "SAME", "RELU", 21, -128, "typical"),
    ([2, 2, 6, 8], None, (3, 3), (1, 1), (1, 1), "SAME", "RELU", -3, -128, "typical"),
    # the band's padding (utvm_dw_q15_pad): the columns outside the image written in the first band
    # only (later bands, a shorter last one too, find them 0), the rows outside in every band:
    # stride 2 in several bands with a shorter last one, SAME on an odd map (padding on every side)
    # and on an even one (right and bottom only), output zero points other than -128
    ([1, 45, 45, 8], None, (3, 3), (2, 2), (1, 1), "SAME", "NONE", 9, 5, "typical"),
    ([1, 50, 48, 4], None, (3, 3), (2, 2), (1, 1), "SAME", "RELU", -128, -128, "typical"),
    ([2, 47, 24, 4], None, (3, 3), (1, 1), (1, 1), "SAME", "RELU6", -5, -128, "typical"),
    # tiny output maps (at most 9 pixels, the full int8 range: depthwise_conv2d_s8_tiny.h, ops/conv.py
    # depthwise_tiny_call; the others here take the band kernel): 3x3 maps at stride 1 and 2, SAME and
    # VALID, 1x1 / 2x2 / 3x3 outputs, batches, 4 and 8 channels, output zero points -128 and others
    ([1, 3, 3, 8], None, (3, 3), (1, 1), (1, 1), "SAME", "RELU", -7, -128, "typical"),
    ([2, 6, 6, 4], None, (3, 3), (2, 2), (1, 1), "SAME", "NONE", 40, 12, "typical"),
    ([1, 3, 3, 4], None, (3, 3), (1, 1), (1, 1), "VALID", "NONE", -128, 127, "typical"),
    ([2, 4, 4, 8], None, (3, 3), (1, 1), (1, 1), "VALID", "RELU6", 3, -128, "mixed"),
    ([1, 5, 5, 4], None, (3, 3), (2, 2), (1, 1), "VALID", "NONE", 127, -60, "one near one"),
    ([1, 2, 2, 8], None, (3, 3), (1, 1), (1, 1), "SAME", "NONE", -128, -128, "shift 22/23"),
    ([1, 3, 3, 4], None, (3, 3), (2, 2), (1, 1), "SAME", "RELU", 9, -128, "typical"),
    # ... rows of 1, 2 and 3 taps (a 1-row map; a 1-column map takes the band kernel), VWW's two layers
    # (3x3x256 at stride 1, 6x6 -> 3x3 at stride 2) and 3x3x512 maps at output zero point 20 (the
    # requantization's sign term: thousands of negative sums, a few at the rounding boundary)
    ([1, 1, 3, 8], None, (3, 3), (1, 1), (1, 1), "SAME", "RELU", -20, -128, "typical"),
    ([2, 3, 1, 12], None, (3, 3), (1, 1), (1, 1), "SAME", "NONE", 0, -3, "mixed"),
    ([1, 3, 3, 256], None, (3, 3), (1, 1), (1, 1), "SAME", "RELU", -128, -128, "typical"),
    ([1, 6, 6, 128], None, (3, 3), (2, 2), (1, 1), "SAME", "RELU", -128, -128, "shift 22/23"),
    ([2, 3, 3, 512], None, (3, 3), (1, 1), (1, 1), "SAME", "NONE", 5, 20, "typical"),
    # the band fill's rows of 3k pairs (a loop of three steps) and of 3 pairs from one run of the
    # input (the 6x6 maps: the three steps alone), with the 6-pixel blocks' first filter row in one
    # run of loads: 6x6 maps at output zero points 7 and -128 (16 and 12 channels, batches), rows of
    # 3 pairs with a source skip (stride 3, VALID on 7 columns; 5 rows: 10 output pixels, so not the
    # tiny-map kernel), stride 2 rows of 6 pairs
    ([1, 6, 6, 16], None, (3, 3), (1, 1), (1, 1), "SAME", "NONE", 7, 7, "typical"),
    ([2, 6, 6, 12], None, (3, 3), (1, 1), (1, 1), "SAME", "RELU", -128, -128, "mixed"),
    ([1, 7, 7, 4], None, (3, 3), (1, 3), (1, 1), "VALID", "NONE", 3, -128, "typical"),
    ([1, 14, 12, 8], None, (3, 3), (2, 2), (1, 1), "SAME", "NONE", -30, 9, "typical"),
]


def _takes_tiny(case: tuple) -> bool:
    """Does a Q15_DW case take depthwise_conv2d_s8_tiny.h (ops/conv.py depthwise_tiny_call)? Depth
    multiplier 1, a multiple of 4 channels, a 3x3 filter without dilation, at most DW_TINY_MAX_PIXELS
    output pixels, rows of 2 columns or more, UTVM_DSP_RQ_FULL (every shift in -22..-2: the regimes
    below; the full int8 range)."""
    from utvm_build.ops.conv import DW_TINY_MAX_PIXELS, window

    shape, mult, (fh, fw), (sh, sw), (dh, dw), pad, act, _, zp_out, regime = case
    oh, _ = window(pad, shape[1], fh, sh, dh)
    ow, _ = window(pad, shape[2], fw, sw, dw)
    full = act == "NONE" or (act, zp_out) == ("RELU", -128)
    return (mult is None and shape[3] % 4 == 0 and oh * ow <= DW_TINY_MAX_PIXELS and (fh, fw, dh, dw) == (3, 3, 1, 1)
            and shape[2] >= 2 and full and regime in ("typical", "per-tensor", "mixed", "shift 22/23"))


def _q15_model(cases: list, seed: int, depthwise: bool = False) -> bytes:
    from tflite_writer import ModelBuilder

    from utvm_build.ops.conv import window

    rng = np.random.default_rng(seed)
    mb = ModelBuilder("arm_dsp q15 kernels")
    ins, outs = [], []
    for (shape, out_c, (fh, fw), (sh, sw), (dh, dw), pad, act, zp_in, zp_out, regime) in cases:
        n, ih, iw, ic = shape
        dwc = depthwise  # out_c: the depth multiplier (None: 1)
        oc = ic * (out_c or 1) if dwc else out_c
        taps = fh * fw * (1 if dwc else ic)
        s_in = 0.02
        x_std = 75.0
        w = rng.integers(-127, 128, [1, fh, fw, oc] if dwc else [oc, fh, fw, ic]).astype(np.int8)
        # real multipliers s_in * s_w / s_out by regime: typical ~2^-9, near one (QuantizeMultiplier
        # shift -1 and 0: the generic arithmetic), above one (shift +1), tiny (shift -26 and below 2^-32:
        # multiplier 0), per-tensor, mixed shifts, shifts -22 / -23 on both sides of the folding limit
        acc_std = np.sqrt(taps) * x_std * 73.0
        s_out = float(s_in * 0.01 * acc_std / 60.0)
        base = s_out / s_in
        reals = {"typical": rng.uniform(2.0**-11, 2.0**-7, oc), "near one": rng.uniform(0.3, 0.99, oc),
                 "above one": rng.uniform(1.0, 1.9, oc), "per-tensor": np.full(1, 2.0**-8.3),
                 "tiny": np.where(np.arange(oc) % 2 == 0, 2.0**-26.5, 2.0**-34),
                 "mixed": 2.0 ** rng.uniform(-20, -3, oc),
                 "one near one": np.where(np.arange(oc) == oc - 1, 0.7, rng.uniform(2.0**-11, 2.0**-7, oc)),
                 "shift 22/23": np.where(np.arange(oc) % 2 == 0, 2.0**-21.5, 2.0**-22.5) if oc > 4
                 else np.full(oc, 2.0**-21.5)}[regime]
        if regime == "shift 22/23" and dwc:
            reals = np.full(oc, 2.0**-21.5)  # all fold: the fast mode at its limit
        w_scales = (np.asarray(reals) * base).astype(np.float32)
        bias = np.round(rng.normal(0.0, acc_std, oc)).astype(np.int64)
        ti = mb.tensor(shape, "int8", scale=s_in, zero_point=zp_in)
        tw = mb.tensor(w.shape, "int8", data=w, scale=w_scales, zero_point=[0] * len(w_scales),
                       quantized_dimension=3 if dwc else 0)
        bs = (np.float32(s_in) * w_scales).astype(np.float32)
        tb = mb.tensor([oc], "int32", data=bias, scale=bs, zero_point=[0] * len(bs))
        oh, _ = window(pad, ih, fh, sh, dh)
        ow, _ = window(pad, iw, fw, sw, dw)
        to = mb.tensor([n, oh, ow, oc], "int8", scale=s_out, zero_point=zp_out)
        opts = {"padding": pad, "stride_h": sh, "stride_w": sw, "dilation_h_factor": dh,
                "dilation_w_factor": dw, "fused_activation_function": act}
        mb.operator("DEPTHWISE_CONV_2D" if dwc else "CONV_2D", [ti, tw, tb], [to], opts)
        ins.append(ti)
        outs.append(to)
    return mb.build(ins, outs)


# ADD / SUB int8 with same-shape operands (kernels/arm_dsp/add_s8_lut.h: the linear form of ops/add_s8_lin.py,
# else the two tables of ops/elementwise.py):
# (op, shape, (scale, zp) of input 1, input 2 and the output, activation); 4096+ elements each, so
# that every input byte occurs; the last one broadcasts (the DSP add_s8.h instead)
Q15_ADD = [
    ("ADD", [1, 16, 16, 16], (0.05, -3), (0.04, 7), (0.08, -128), "RELU"),
    ("ADD", [4096], (0.02, -128), (0.02, 127), (0.03, 0), "NONE"),
    ("SUB", [2, 32, 64], (0.1, 10), (0.003, -128), (0.1, 5), "NONE"),
    ("ADD", [64, 64], (1e-3, 127), (0.5, 0), (0.6, -128), "RELU6"),
    ("SUB", [4096], (0.25, 0), (0.25, 0), (0.01, 127), "RELU_N1_TO_1"),
    ("ADD", [8, 8, 16], (0.05, 1), (0.05, 1), (0.05, 1), "NONE"),
    # both inputs over 128x the output scale: no linear form (utvm_add_s8_lin), the two tables (the first
    # case has none either: rounding ties, see ops/add_s8_lin.py)
    ("ADD", [4099], (0.01, 0), (0.02, 3), (0.00005, 0), "NONE"),
]


def _add_model(seed: int) -> bytes:
    from tflite_writer import ModelBuilder

    mb = ModelBuilder("arm_dsp add lut")
    ins, outs = [], []
    for op, shape, (s1, z1), (s2, z2), (so, zo), act in Q15_ADD:
        a = mb.tensor(shape, "int8", scale=s1, zero_point=z1)
        b = mb.tensor(shape, "int8", scale=s2, zero_point=z2)
        o = mb.tensor(shape, "int8", scale=so, zero_point=zo)
        mb.operator(op, [a, b], [o], {"fused_activation_function": act})
        ins += [a, b]
        outs.append(o)
    a = mb.tensor([1, 16, 16, 8], "int8", scale=0.05, zero_point=-3)
    b = mb.tensor([1, 1, 16, 8], "int8", scale=0.04, zero_point=9)
    o = mb.tensor([1, 16, 16, 8], "int8", scale=0.07, zero_point=-20)
    mb.operator("ADD", [a, b], [o], {"fused_activation_function": "NONE"})
    return mb.build([*ins, a, b], [*outs, o])


# Broadcasting int8 ADD / SUB / MUL (arm_dsp/add_s8_lut.h utvm_add_s8_lin_bc; arm_mve/add_s8_mve.h
# utvm_add_s8_lin_mve_bc / utvm_add_s8_mve_bc, arm_mve/mul_s8_mve.h utvm_mul_s8_mve_bc; also
# tests/test_kernels_arm_mve.py): (op, shape1, shape2, (scale, zp) of input 1, input 2 and the
# output, activation). A per-channel vector against a tensor (either side, channels 3, 16, 21: the
# predicated tails), a scalar against a tensor, one value per row ([R, 1] against [R, C]), an outer
# sum ([R, 1] + [1, C]: each input repeated along a different dimension), SUB with the repeated
# operand first (the swapped roles); scales in simple ratios (no linear form: the 4-lane reference
# arithmetic) and arbitrary ones (the linear form); every activation; MUL with a left-shifting
# multiplier and a clamp.
BCAST = [
    ("ADD", [1, 5, 6, 16], [16], (0.0213, -7), (0.0171, 3), (0.0297, -128), "RELU"),
    ("ADD", [21], [2, 3, 7, 21], (0.0113, 100), (0.0329, -20), (0.0411, 5), "NONE"),
    ("SUB", [1], [3, 37], (0.05, 10), (0.04, -3), (0.08, 0), "NONE"),
    ("SUB", [3, 37], [1], (0.0517, 10), (0.0433, -3), (0.0811, 0), "RELU6"),
    ("ADD", [9, 1], [9, 13], (0.1, 0), (0.25, 7), (0.3, -1), "RELU_N1_TO_1"),
    ("ADD", [6, 1], [1, 11], (0.0277, -128), (0.0191, 127), (0.0377, 3), "NONE"),
    ("SUB", [4, 1, 3], [4, 5, 3], (0.0123, 9), (0.0321, -9), (0.0291, 2), "RELU"),
    ("MUL", [1, 5, 6, 16], [16], (0.05, -3), (0.04, 7), (0.002, -128), "NONE"),
    ("MUL", [21], [2, 3, 7, 21], (0.03, 127), (0.02, -128), (0.0002, 10), "RELU"),
    ("MUL", [1], [3, 37], (1.0, 0), (1.0, -1), (300.0, 3), "RELU6"),
    ("MUL", [6, 1], [1, 11], (0.5, 100), (0.125, -100), (0.01, 1), "NONE"),
]


def _bcast_model() -> bytes:
    from tflite_writer import ModelBuilder

    mb = ModelBuilder("broadcast add mul")
    ins, outs = [], []
    for op, sh1, sh2, (s1, z1), (s2, z2), (so, zo), act in BCAST:
        rank = max(len(sh1), len(sh2))
        p1, p2 = [1] * (rank - len(sh1)) + sh1, [1] * (rank - len(sh2)) + sh2
        a = mb.tensor(sh1, "int8", scale=s1, zero_point=z1)
        b = mb.tensor(sh2, "int8", scale=s2, zero_point=z2)
        o = mb.tensor([max(x, y) for x, y in zip(p1, p2)], "int8", scale=so, zero_point=zo)
        mb.operator(op, [a, b], [o], {"fused_activation_function": act})
        ins += [a, b]
        outs.append(o)
    return mb.build(ins, outs)


# FULLY_CONNECTED int8 with re-laid out weights (kernels/arm_dsp/fully_connected_s8_blk4.h, data from
# ops/fully_connected.py): (batches, depth, units, input zp, output zp, activation, bias, regime);
# depths 4 (one word), 12 (an odd word count), 8 and 640; units 1, 3, 6 (padded blocks), 128; batches
# 1 and 3; per-tensor and per-unit weights, multipliers near and above one (the generic arithmetic);
# a depth of 6 (not a multiple of 4: the DSP rows kernel instead); one block of units at the full
# int8 range (the raw input row)
Q15_FC = [
    (1, 640, 128, -128, -128, "RELU", True, "typical"),
    (3, 12, 6, 127, 5, "NONE", True, "per-tensor"),
    (1, 4, 1, 0, 0, "NONE", False, "typical"),
    (2, 8, 3, -7, -128, "RELU6", True, "near one"),
    (1, 16, 5, 20, 100, "NONE", True, "above one"),
    (1, 128, 8, -1, 3, "RELU_N1_TO_1", True, "per-tensor"),
    (1, 32, 9, 9, -20, "NONE", True, "shift 22/23"),
    (2, 6, 5, 3, 0, "NONE", True, "typical"),
    # one block of units, the full int8 range: the raw input row, no widening (k steps and a remainder)
    (2, 84, 3, 5, -128, "RELU", True, "typical"),
    (1, 1024, 4, -3, 7, "NONE", False, "typical"),
    # the requantization of twice the sum (rq_mode 3 per-tensor, 4 per-unit: units a multiple of 4
    # above 4, depth of 32): other output zero points, batches, enough outputs for rounding ties
    (2, 128, 40, -3, 1, "NONE", True, "per-tensor"),
    (1, 64, 24, 10, -128, "RELU", True, "typical"),
    (3, 32, 8, 0, -5, "NONE", True, "typical"),
    (1, 96, 64, -128, 30, "NONE", True, "per-tensor"),
    (2, 64, 32, 3, 6, "NONE", True, "quarter"),
    (2, 32, 48, -2, -9, "NONE", True, "quarter-pt"),
    # the full range without it (depth not a multiple of 32): the widened row, rq3
    (1, 24, 8, 2, -128, "RELU", True, "typical"),
    (1, 48, 12, 4, -128, "RELU", True, "per-tensor"),
]


def _fc_model(seed: int) -> bytes:
    from tflite_writer import ModelBuilder

    rng = np.random.default_rng(seed)
    mb = ModelBuilder("arm_dsp fc blk4")
    ins, outs = [], []
    for batches, depth, units, zp_in, zp_out, act, has_bias, regime in Q15_FC:
        s_in = 0.02
        small = regime.startswith("quarter")  # weights -1..1: multipliers near 1/4 without saturating
        w = rng.integers(-1, 2, [units, depth]) if small else rng.integers(-127, 128, [units, depth])
        w = w.astype(np.int8)
        acc_std = np.sqrt(depth) * 75.0 * (0.8 if small else 73.0)
        s_out = float(s_in * 0.01 * acc_std / 60.0)
        base = s_out / s_in
        reals = {"typical": rng.uniform(2.0**-11, 2.0**-7, units), "near one": rng.uniform(0.3, 0.99, units),
                 "above one": rng.uniform(1.0, 1.9, units), "per-tensor": np.full(1, 2.0**-8.3),
                 "shift 22/23": np.where(np.arange(units) % 2 == 0, 2.0**-21.5, 2.0**-22.5),
                 # shift 2 (the smallest of UTVM_DSP_RQ_FAST): a requantization's sign term changes
                 # about one negative output in four
                 "quarter": rng.uniform(0.13, 0.24, units), "quarter-pt": np.full(1, 0.2)}[regime]
        w_scales = (np.asarray(reals) * base).astype(np.float32)
        tin = mb.tensor([batches, depth], "int8", scale=s_in, zero_point=zp_in)
        tw = mb.tensor(w.shape, "int8", data=w, scale=w_scales, zero_point=[0] * len(w_scales),
                       quantized_dimension=0)
        inputs = [tin, tw]
        if has_bias:
            bias = np.round(rng.normal(0.0, acc_std, units)).astype(np.int64)
            bs = (np.float32(s_in) * w_scales).astype(np.float32)
            inputs.append(mb.tensor([units], "int32", data=bias, scale=bs, zero_point=[0] * len(bs)))
        to = mb.tensor([batches, units], "int8", scale=s_out, zero_point=zp_out)
        mb.operator("FULLY_CONNECTED", inputs, [to], {"fused_activation_function": act})
        ins.append(tin)
        outs.append(to)
    return mb.build(ins, outs)


def test_q15_kernels_on_qemu_equal_generic_host_and_reference(tools, tmp_path: Path) -> None:
    """conv2d_s8_q15 / depthwise_conv2d_s8_q15 / add_s8_lut / fully_connected_s8_blk4 with the generator's data:
    every case above."""
    need("cmake", "cc")
    from benchmarks import reference
    from benchmarks.compare import outputs_match
    from benchmarks.models import BenchModel
    from benchmarks.runner import CORES, build, model_metadata, parse_program_output

    n1x1 = sum(_takes_1x1(c) for c in Q15_CONV)
    assert n1x1 >= 9, n1x1
    models = []
    for name, cases, seed in (("q15_conv", Q15_CONV, 13), ("q15_dw", Q15_DW, 14)):
        path = tmp_path / f"{name}.tflite"
        path.write_bytes(_q15_model(cases, seed, depthwise=name == "q15_dw"))
        models.append(BenchModel(name, path, "test"))
    (tmp_path / "lut_add.tflite").write_bytes(_add_model(15))
    models.append(BenchModel("lut_add", tmp_path / "lut_add.tflite", "test"))
    (tmp_path / "fc_blk4.tflite").write_bytes(_fc_model(16))
    models.append(BenchModel("fc_blk4", tmp_path / "fc_blk4.tflite", "test"))
    build(models, None, "O2", tmp_path / "host", target="generic")
    # --optimize size: int8 weights (conv2d_s8_q15.h) in every conv case; speed below
    build(models, CORES["m4"], "Os", tmp_path / "m4", target="cortex-m4", codegen_args="--optimize size")
    for m, kernel in zip(models, ("conv2d_s8_q15", "depthwise_conv2d_s8_q15", "add_s8_lut",
                                     "fully_connected_s8_blk4")):
        meta = model_metadata(tmp_path / "m4", m)
        assert meta["kernel_variants"].get(kernel) == "arm_dsp", meta["kernel_variants"]
        if m.name == "q15_dw":  # the one-input-channel cases
            assert meta["kernel_variants"].get("conv2d_s8_q15") == "arm_dsp", meta["kernel_variants"]
        src = "\n".join(p.read_text() for p in (tmp_path / "m4").rglob(f"*{m.name}*/src/*.c"))
        if m.name == "lut_add":  # the linear form where it fits (5 cases), the two tables elsewhere (2)
            fits = sum(_lin_case((op, a, b, o, act))[1][1] is not None for op, _, a, b, o, act in Q15_ADD)
            assert fits == 5, fits
            assert src.count("utvm_add_s8_lin(") == fits and src.count("utvm_add_s8_lut(") == len(Q15_ADD) - fits
        for mode in (0, 1, 2) if m.name != "lut_add" else ():  # (fc_blk4: every mode too)
            assert f".rq_mode = {mode}" in src, (m.name, mode)  # every mode of dsp_s8.h utvm_dsp_rq3
        for mode in (3, 4) if m.name == "q15_dw" else ():  # the doubled 3x3 sums (UTVM_DW_Q15_RQ_FULL2 / _ANY2)
            assert f".rq_mode = {mode}" in src, (m.name, mode)
        if m.name == "fc_blk4":  # the doubled sums (UTVM_FC_BLK4_RQ2 / _PC), and the full range's wide row
            assert src.count(".rq_mode = 3") == 3 and src.count(".rq_mode = 4") == 4, src.count(".rq_mode = 4")
            assert re.search(r"\.units = 8,\n.*\n.*\n.*\n.*\n\s*\.rq_mode = 2", src), "no wide full-range row"
        if m.name == "q15_dw":  # the tiny output maps (depthwise_conv2d_s8_tiny.h)
            ntiny = sum(_takes_tiny(c) for c in Q15_DW)
            assert ntiny >= 7 and src.count("utvm_depthwise_conv2d_s8_tiny(") == ntiny, ntiny
        if m.name == "q15_conv":  # the 1x1 cases with int8 weights (conv2d_s8_q15.h, conv2d_q15_1x1.h)
            assert meta["kernel_variants"].get("conv2d_q15_1x1") == "arm_dsp", meta["kernel_variants"]
            assert src.count("utvm_conv2d_s8_q15_1x1(") == n1x1, (src.count("utvm_conv2d_s8_q15_1x1("), n1x1)
        host_meta = model_metadata(tmp_path / "host", m)
        host = parse_program_output(subprocess.run([str(tmp_path / "host" / f"bench_{m.name}")],
                                                   capture_output=True, text=True, timeout=300).stdout)
        assert host.rc == 0
        ref = reference.check(m, host_meta, host.outputs)
        assert ref.startswith("identical"), f"{m.name}: host vs reference: {ref}"
        rc, out = _qemu(tmp_path / "m4" / f"bench_{m.name}.elf", tmp_path)
        target = parse_program_output(out)
        assert rc == 0 and target.rc == 0, out[-2000:]
        ok, how = outputs_match(target.outputs, host.outputs, [t["dtype"] for t in meta["outputs"]])
        assert ok and how == "identical", f"{m.name}: cortex-m4 vs host: {how}"
    # FULLY_CONNECTED at -O0: the C form of every row loop (the doubled sums' too), the same outputs
    fc = models[3]
    build([fc], CORES["m4"], "O0", tmp_path / "m4fc0", target="cortex-m4")
    fc_host = parse_program_output(subprocess.run([str(tmp_path / "host" / f"bench_{fc.name}")],
                                                  capture_output=True, text=True, timeout=300).stdout)
    _qemu_equals_host(tmp_path, "m4fc0", fc, fc_host, "fc_blk4 -O0 (C forms)")
    # --optimize speed: every conv case with int16 pre-widened weights (conv2d_s8_q15w.h; the
    # _takes_1x1 ones through conv2d_q15_1x1.h's assembly); then --optimize balanced at -O0 (the 1x1
    # kernels' C form, with int8 weights in the layers of fewer than 16 pixels): the same outputs as
    # the generic host build
    conv = models[0]
    host = parse_program_output(subprocess.run([str(tmp_path / "host" / f"bench_{conv.name}")],
                                               capture_output=True, text=True, timeout=300).stdout)
    for opt, mode_arg, out_dir in (("Os", "speed", "m4w"), ("O0", "balanced", "m4b")):
        build([conv], CORES["m4"], opt, tmp_path / out_dir, target="cortex-m4", codegen_args=f"--optimize {mode_arg}")
        meta = model_metadata(tmp_path / out_dir, conv)
        assert meta["kernel_variants"].get("conv2d_s8_q15w") == "arm_dsp", meta["kernel_variants"]
        assert meta["kernel_variants"].get("conv2d_q15_1x1") == "arm_dsp", meta["kernel_variants"]
        src = "\n".join(p.read_text() for p in (tmp_path / out_dir).rglob("*q15_conv*/src/*.c"))
        calls = {k: src.count(f"{k}(") for k in ("utvm_conv2d_s8_q15w", "utvm_conv2d_s8_q15w_1x1",
                                                  "utvm_conv2d_s8_q15_1x1", "utvm_conv2d_s8_q15")}
        if mode_arg == "speed":
            assert "conv2d_s8_q15" not in meta["kernel_variants"], meta["kernel_variants"]
            assert calls["utvm_conv2d_s8_q15w_1x1"] == n1x1 and calls["utvm_conv2d_s8_q15_1x1"] == 0, calls
            assert calls["utvm_conv2d_s8_q15w"] == len(Q15_CONV) - n1x1, calls
            # both forms of the larger filters: strips (ops/conv.py q15_strip_cols) and packed windows
            assert re.search(r"\.strip_cols = [1-9]", src) and ".strip_cols = 0" in src
            # and both three-pixel blocks (28- and 40-byte windows) and the layers without one
            # (0xfu: and the 28-byte block's sign term, the last case's output zero point 100)
            assert "#define UTVM_CONV2D_Q15W_TRI 0xfu" in src
        else:  # both 1x1 kernels (1x1 layers of fewer than 16 output pixels keep int8 weights)
            assert meta["kernel_variants"].get("conv2d_s8_q15") == "arm_dsp", meta["kernel_variants"]
            assert calls["utvm_conv2d_s8_q15w_1x1"] > 0 and calls["utvm_conv2d_s8_q15_1x1"] > 0, calls
            assert calls["utvm_conv2d_s8_q15w_1x1"] + calls["utvm_conv2d_s8_q15_1x1"] == n1x1, calls
        for mode in (0, 1, 2):
            assert f".rq_mode = {mode}" in src, mode
        # the three-pixel block's layers (28- and 40-byte windows, ops/conv.py Q15W_RQ2: doubled data,
        # the SMMLAR requantization; -O0: its C form utvm_conv2d_q15w_tri_c)
        # (balanced: the layers of fewer than 16 output pixels keep int8 weights, no block)
        ntri = sum(_takes_tri(c) for c in Q15_CONV)
        assert ntri >= 6 and ntri - 2 <= src.count(".rq_mode = 3") <= ntri, (src.count(".rq_mode = 3"), ntri)
        assert mode_arg != "speed" or src.count(".rq_mode = 3") == ntri
        rc, out = _qemu(tmp_path / out_dir / f"bench_{conv.name}.elf", tmp_path)
        target = parse_program_output(out)
        assert rc == 0 and target.rc == 0, out[-2000:]
        ok, how = outputs_match(target.outputs, host.outputs, [t["dtype"] for t in meta["outputs"]])
        assert ok and how == "identical", f"--optimize {mode_arg} -{opt}: cortex-m4 vs host: {how}"
    # the loops' entry at their second half and the requantization's sign term compiled out
    # (UTVM_CONV2D_Q15_1X1_ODD4 with bit 0 alone, as in a file whose layers need neither: VWW's): the
    # widened layers that need the entry (in_c 48 and 80) or the sign term (an output zero point
    # other than -128) take the C form, the others the 3-instruction requantization; the same outputs
    # the 1x1 block forms a file compiles (UTVM_CONV2D_Q15_1X1_FORMS, ops/conv.py conv_q15_1x1_form):
    # every widened form in this model; with the in_c 8 whole-layer block and the 8-step form alone,
    # the layers of 2 and 4 steps and the in_c 8 ones with a last short triple take the C form; with
    # int8 weights the loops alone (the in_c 8 layers in C)
    values = _force_define(tmp_path / "m4w", conv.name, "UTVM_CONV2D_Q15_1X1_FORMS", 0x24)
    assert values == [0x7C], values
    _qemu_equals_host(tmp_path, "m4w", conv, host, "1x1 forms 2 and 5 alone")
    _force_define(tmp_path / "m4w", conv.name, "UTVM_CONV2D_Q15_1X1_FORMS", 0x7C)
    values = _force_define(tmp_path / "m4", conv.name, "UTVM_CONV2D_Q15_1X1_FORMS", 0x2)
    assert values == [0x3], values
    _qemu_equals_host(tmp_path, "m4", conv, host, "int8 1x1 loops alone")
    values = _force_define(tmp_path / "m4w", conv.name, "UTVM_CONV2D_Q15_1X1_ODD4", 0x1)
    assert len(values) == 1 and values[0] & 0x3 == 0x3 and values[0] & 0x4, values  # every form in this model
    _qemu_equals_host(tmp_path, "m4w", conv, host, "1x1 loops without the odd4 entry")
    # and, in the same build, the three-pixel block's sign term compiled out (UTVM_CONV2D_Q15W_TRI
    # without bits 3 and 4, as in a file whose layers all have the output zero point -128: VWW's,
    # KWS's): the 3-instruction requantization gives the same outputs in every block layer of zero
    # point -128, and the last case (zero point 100), which needs the term, fails without it
    values = _force_define(tmp_path / "m4w", conv.name, "UTVM_CONV2D_Q15W_TRI", 0x7)
    assert values == [0xF], values
    signed = frozenset(i for i, t in enumerate(meta["outputs"])
                       if t["shape"] == [1, 48, 48, 16] and t["zero_point"] == 100)
    assert len(signed) == 1 and len(host.outputs) == len(Q15_CONV), signed
    _qemu_equals_host(tmp_path, "m4w", conv, host, "three-pixel blocks without the sign term", signed, signed)
    # the depthwise steps' requantization without its sign term (UTVM_DW_Q15_SIGN with bit 0 alone, as
    # in a file whose doubled layers all have the output zero point -128: VWW's): the doubled layers of
    # another zero point take the C form, the others the 3-instruction requantization (the 60x48 and
    # 64x40 maps: thousands of negative sums, some at the rounding boundary); the same outputs
    dw = models[1]
    host = parse_program_output(subprocess.run([str(tmp_path / "host" / f"bench_{dw.name}")],
                                               capture_output=True, text=True, timeout=300).stdout)
    values = _force_define(tmp_path / "m4", dw.name, "UTVM_DW_Q15_SIGN", 0x1)
    assert values == [0x3], values  # both forms in this model
    _qemu_equals_host(tmp_path, "m4", dw, host, "depthwise steps without the sign term")
    # and, in the same build, the tiny-map kernel's sign term compiled out (UTVM_DW_TINY_SIGN with bit 0
    # alone, as in VWW's file): its layers of zero point -128 give the same outputs, the 3x3x512 ones of
    # zero point 20, which need the term, do not
    values = _force_define(tmp_path / "m4", dw.name, "UTVM_DW_TINY_SIGN", 0x1)
    assert values == [0x3], values
    signed = frozenset(i for i, c in enumerate(Q15_DW) if _takes_tiny(c) and c[8] != -128)
    zp20 = frozenset(i for i in signed if Q15_DW[i][0] == [2, 3, 3, 512])
    assert len(signed) >= 3 and len(zp20) == 1 and len(host.outputs) == len(Q15_DW), signed
    _qemu_equals_host(tmp_path, "m4", dw, host, "tiny maps without the sign term", signed, zp20)
    # the depthwise cases at -O0: depthwise_conv2d_s8_q15.h's C loops alone (no assembly steps: the
    # pair loop at stride 1 and the other strides at UTVM_DSP_RQ_FULL, the band fill in C)
    build([dw], CORES["m4"], "O0", tmp_path / "m4dw0", target="cortex-m4", codegen_args="--optimize size")
    _qemu_equals_host(tmp_path, "m4dw0", dw, host, "q15_dw -O0")


def _force_define(build_dir: Path, model: str, macro: str, value: int) -> list[int]:
    """Rewrite ``#define macro 0x...u`` in a built model's operator files to ``value`` and rebuild;
    returns the values the generator had written (to force a kernel's forms as another file's)."""
    ops_c = list(build_dir.rglob(f"*{model}*/src/*_ops.c"))
    define = re.compile(rf"#define {macro} 0x([0-9a-fA-F]+)u")
    values = [int(m.group(1), 16) for p in ops_c for m in define.finditer(p.read_text())]
    for p in ops_c:
        p.write_text(define.sub(f"#define {macro} 0x{value:X}u", p.read_text()))
    subprocess.run(["cmake", "--build", str(build_dir)], check=True, capture_output=True, timeout=600)
    return values


def _qemu_equals_host(tmp_path: Path, out_dir: str, model, host, what: str,
                      skip: frozenset[int] = frozenset(), differ: frozenset[int] = frozenset()) -> None:
    """The model's M4 build in tmp_path / out_dir, run on QEMU, gives the host run's outputs byte for
    byte, except the outputs in ``skip``; those in ``differ`` (a subset of ``skip``: a build with a
    path forced off that these cases need) must differ."""
    from benchmarks.compare import outputs_match
    from benchmarks.runner import model_metadata, parse_program_output

    rc, out = _qemu(tmp_path / out_dir / f"bench_{model.name}.elf", tmp_path)
    target = parse_program_output(out)
    assert rc == 0 and target.rc == 0, out[-2000:]
    assert len(target.outputs) == len(host.outputs), (len(target.outputs), len(host.outputs))
    assert all(target.outputs[i] != host.outputs[i] for i in differ), f"{what}: passes where it should not"
    keep = [i for i in range(len(host.outputs)) if i not in skip]
    dtypes = [t["dtype"] for t in model_metadata(tmp_path / out_dir, model)["outputs"]]
    ok, how = outputs_match([target.outputs[i] for i in keep], [host.outputs[i] for i in keep],
                            [dtypes[i] for i in keep])
    assert ok and how == "identical", f"{what}: cortex-m4 vs host: {how}"


# ADD / SUB int8 in the linear form (kernels/arm_dsp/add_s8_lut.h utvm_add_s8_lin, ops/add_s8_lin.py):
# (op, (scale, zp) of input 1, input 2 and the output, activation). ResNet-8's first residual ADD; SUB
# with the linear input negated; scales 500x apart; rescales near the 2^31 limit of c (one input 96x
# the output scale, the other past it: the smaller-scale input is the linear one); equal scales; every
# activation (RELU with the zero point inside the range: the clamped loop). The last case fits no c
# (both inputs over 128x the output scale): the generator keeps utvm_add_s8_lut there.
LIN_ADD = [
    ("ADD", (0.006152986083179712, -128), (0.008103201165795326, -6), (0.006784087512642145, -128), "RELU"),
    ("SUB", (0.1, 10), (0.003, -128), (0.1, 5), "NONE"),
    ("ADD", (1e-3, 127), (0.5, 0), (0.6, -128), "RELU6"),
    ("SUB", (0.25, 0), (0.25, 0), (0.01, 127), "RELU_N1_TO_1"),
    ("ADD", (0.05, 1), (0.05, 1), (0.05, 1), "NONE"),
    ("ADD", (0.02, -7), (0.03, 100), (0.04, 10), "RELU"),
    ("ADD", (1.0, 0), (0.9, -128), (0.0101, 0), "NONE"),
    ("SUB", (0.5, 127), (0.7, -128), (0.0052, -5), "NONE"),
    ("ADD", (0.9, 3), (1e-4, 5), (0.9, 0), "NONE"),
    ("ADD", (0.01, 0), (0.02, 0), (0.00005, 0), "NONE"),
]


def _lin_case(case: tuple, bias: int = 128) -> tuple[dict, object]:
    """The generator's parameters (ops/elementwise.py AddSub.prepare) and fit for one LIN_ADD case
    (bias 128: arm_dsp's table, 0: arm_mve's)."""
    from utvm_build.ops.add_s8_lin import fit_linear_add, reference_table
    from utvm_build.ops.elementwise import AddSub, quantize_multiplier_lt1
    from utvm_build.quant import activation_range_quantized

    op, (s1, z1), (s2, z2), (so, zo), act = case
    ts = [SimpleNamespace(quant=SimpleNamespace(s=s)) for s in (s1, s2, so)]
    r1, r2, ro = AddSub._reals(*ts, 20)
    (m1, e1), (m2, e2), (mo, eo) = (quantize_multiplier_lt1(r) for r in (r1, r2, ro))
    if op == "SUB":
        m2 = -m2
    lo, hi = activation_range_quantized(act, "int8", so, zo)
    p = {"left_shift": 20, "input1_offset": -z1, "input1_multiplier": m1, "input1_shift": e1,
         "input2_offset": -z2, "input2_multiplier": m2, "input2_shift": e2, "output_offset": zo,
         "output_multiplier": mo, "output_shift": eo, "act_min": lo, "act_max": hi}
    ref = reference_table((-z1, -z2), (m1, m2, mo), (e1, e2, eo), zo, (lo, hi))
    return p, (ref, fit_linear_add(ref, (s1, s2), so, op == "SUB", lo, hi, bias))


def test_add_lin_reference_table_is_tflite_arithmetic() -> None:
    """ops/add_s8_lin.reference_table (numpy, every pair) against the scalar gemmlowp arithmetic of
    ops/elementwise.py on two cases, every pair; and which cases fit."""
    from utvm_build.ops.elementwise import _rdbp, _srdhm, add_s8_input_table

    for case in (LIN_ADD[1], LIN_ADD[7]):
        p, (ref, _) = _lin_case(case)
        t1 = add_s8_input_table(p["input1_offset"], p["input1_multiplier"], p["input1_shift"])
        t2 = add_s8_input_table(p["input2_offset"], p["input2_multiplier"], p["input2_shift"])
        for a in range(-128, 128):
            for b in range(-128, 128):
                x = int(t1[a & 255]) + int(t2[b & 255])
                v = _rdbp(_srdhm(x, p["output_multiplier"]), -p["output_shift"]) + p["output_offset"]
                assert ref[a + 128, b + 128] == min(max(v, p["act_min"]), p["act_max"]), (case, a, b)
    fits = [_lin_case(c)[1][1] for c in LIN_ADD]
    assert all(f is not None for f in fits[:-1]) and fits[-1] is None, [f is not None for f in fits]
    assert [f.linear for f in fits[:-1]] == [1, 1, 1, 0, 0, 1, 0, 0, 0], [f.linear for f in fits[:-1]]


LIN_MAIN = r"""
#include <stdint.h>
#include <string.h>
#include "add_s8.h"
#include LIN_HEADER
#include "semihosting.h"
#include "lin_cases.h"

#define N 65536
static int8_t in1[N + 8], in2[N + 8], want[N + 8], got[N + 8];

static void put_u(unsigned long u) {
  char b[16];
  int i = 15;
  b[i] = 0;
  do { b[--i] = (char)('0' + (int)(u % 10u)); u /= 10u; } while (u != 0u);
  semihosting_write0(&b[i]);
}

/* the kernel on n elements from offset off, against the generic kernel; bytes past n untouched */
static unsigned long run(const lin_case* t, int32_t off, int32_t n) {
  utvm_ew_shape sh;
  unsigned long bad = 0;
  int32_t k;
  memset(&sh, 0, sizeof sh);
  sh.size = n;
  utvm_add_s8(&t->p, &sh, &in1[off], &in2[off], &want[off]);
  memset(got, 0x5A, sizeof got);
  if (t->linear == 0) {
    LIN_FN(&t->p, t->table, t->c, n, &in1[off], &in2[off], &got[off]);
  } else {
    LIN_FN(&t->p, t->table, t->c, n, &in2[off], &in1[off], &got[off]);
  }
  for (k = 0; k < n; ++k) bad += (got[off + k] != want[off + k]);
  for (k = off + n; k < N + 8; ++k) bad += (got[k] != 0x5A);
  for (k = 0; k < off; ++k) bad += (got[k] != 0x5A);
  return bad;
}

int main(void) {
  unsigned long bad = 0;
  int32_t k;
  size_t i;
  for (k = 0; k < N + 8; ++k) { /* every (input1, input2) pair once */
    in1[k] = (int8_t)(uint8_t)((uint32_t)k >> 8);
    in2[k] = (int8_t)(uint8_t)((uint32_t)k * 167u + 11u);
  }
  for (i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    int32_t n;
    bad += run(&cases[i], 0, N);
    bad += run(&cases[i], 1, N - 1); /* unaligned words, a tail of 7 */
    bad += run(&cases[i], 3, N - 12);
    for (n = 0; n < 20; ++n) bad += run(&cases[i], (n * 5) % 4, n);
  }
  semihosting_write0("cases ");
  put_u((unsigned long)(sizeof cases / sizeof cases[0]));
  semihosting_write0(" bad ");
  put_u(bad);
  semihosting_write0("\n");
  semihosting_exit(0);
  return 0;
}
"""


def lin_every_pair(tmp_path: Path, flags: list[str], header: str, fn: str, bias: int, machine: str,
                   builds: tuple[tuple[str, ...], ...] = (("-Os",), ("-O2",))) -> None:
    """Builds LIN_MAIN for ``fn`` (from ``header``, tables with ``bias``) with each of ``builds``' flags
    and runs it on QEMU ``machine``: every LIN_ADD case that fits must give the generic kernel's bytes."""
    rows = []
    for case in LIN_ADD:
        p, (_, lin) = _lin_case(case, bias)
        if lin is None:
            continue
        fields = ", ".join(f".{k} = {v}" for k, v in p.items())
        table = ", ".join(str(int(v)) for v in lin.table)
        rows.append(f"  {{{{{fields}}}, {lin.linear}, {lin.c}, {{{table}}}}}")
    assert len(rows) == len(LIN_ADD) - 1
    (tmp_path / "lin_cases.h").write_text(
        "typedef struct { utvm_add_q_params p; int32_t linear; int32_t c; int32_t table[256]; } lin_case;\n"
        "static const lin_case cases[] = {\n" + ",\n".join(rows) + "\n};\n")
    (tmp_path / "main.c").write_text(LIN_MAIN)
    ld = CORTEX_M / ("mps2-an386.ld" if machine == "mps2-an386" else "mps3-an547.ld")
    for opt in builds:
        r = _cc([*flags, *opt, *STRICT, f'-DLIN_HEADER="{header}"', f"-DLIN_FN={fn}", "-I", str(tmp_path),
                 "-I", str(KERNELS), "-I", str(CORTEX_M), "main.c", str(CORTEX_M / "startup.c"),
                 str(CORTEX_M / "semihosting.c"), "-nostartfiles", "--specs=nano.specs", "-Wl,--gc-sections",
                 f"-L{CORTEX_M}", f"-T{ld}", "-o", "lin.elf"], tmp_path)
        assert r.returncode == 0, r.stderr
        rc, out = _qemu(tmp_path / "lin.elf", tmp_path, machine=machine)
        assert rc == 0 and f"cases {len(rows)} bad 0" in out, (opt, out[-2000:])


def test_add_lin_every_pair_on_qemu(tools, tmp_path: Path) -> None:
    """utvm_add_s8_lin with the generator's (c, table) against the generic utvm_add_s8 on QEMU M4:
    every pair of int8 values, lengths 0..19 and 2^16 - 12..2^16 from offsets 0..3 (unaligned words,
    tails of 1..7), nothing written past the end, both loops (full range, clamped); -Os, -O2 and the
    C twin of the assembly step (UTVM_NO_INLINE_ASM)."""
    lin_every_pair(tmp_path, M4_FLAGS, "arm_dsp/add_s8_lut.h", "utvm_add_s8_lin", 128, "mps2-an386",
                   (("-Os",), ("-O2",), ("-Os", "-DUTVM_NO_INLINE_ASM")))  # the assembly step and its C twin


def test_add_lin_broadcast_on_qemu_equal_generic_host_and_reference(tools, tmp_path: Path) -> None:
    """utvm_add_s8_lin_bc (broadcasting ADD / SUB in the linear form, rows through the same-shape loop
    or one element at a time) on the BCAST cases: cortex-m4 on QEMU == the generic host build == TFLite."""
    need("cmake", "cc")
    from benchmarks import reference
    from benchmarks.compare import outputs_match
    from benchmarks.models import BenchModel
    from benchmarks.runner import CORES, build, model_metadata, parse_program_output

    (tmp_path / "bcast.tflite").write_bytes(_bcast_model())
    m = BenchModel("bcast", tmp_path / "bcast.tflite", "test")
    build([m], None, "O2", tmp_path / "host", target="generic")
    build([m], CORES["m4"], "Os", tmp_path / "m4", target="cortex-m4")
    src = "\n".join(p.read_text() for p in (tmp_path / "m4").rglob("*bcast*/src/*.c"))
    lin, nest = src.count("utvm_add_s8_lin_bc("), src.count("utvm_add_s8(")
    assert lin >= 3 and lin + nest == 7, (lin, nest)  # the linear form where it fits, add_s8.h elsewhere
    host_meta = model_metadata(tmp_path / "host", m)
    host = parse_program_output(subprocess.run([str(tmp_path / "host" / "bench_bcast")], capture_output=True,
                                               text=True, timeout=300).stdout)
    assert host.rc == 0
    ref = reference.check(m, host_meta, host.outputs)
    assert ref.startswith("identical"), f"host vs reference: {ref}"
    rc, out = _qemu(tmp_path / "m4" / "bench_bcast.elf", tmp_path)
    target = parse_program_output(out)
    assert rc == 0 and target.rc == 0, out[-2000:]
    dtypes = [t["dtype"] for t in model_metadata(tmp_path / "m4", m)["outputs"]]
    ok, how = outputs_match(target.outputs, host.outputs, dtypes)
    assert ok and how == "identical", f"cortex-m4 vs host: {how}"
