"""The Helium (MVE) kernels (utvm_build/kernels/arm_mve/, --target cortex-m55/m85/m52).

On QEMU mps3-an547 (Cortex-M55, which QEMU emulates with MVE):

- requantization: mve_s8.h utvm_mve_rq (VSHL, VQRDMULH, the sign fix-up, VRSHL) against common.h's
  TFLite MultiplyByQuantizedMultiplier on edge operands (x = INT32_MIN / INT32_MAX / 0 / +-1, ties
  of every rounding shift, multipliers 0, 2^30, 2^31 - 1 and near them, shifts -31..+8 with the
  left shift wrapping) and seeded random ones: 40 000 in CI, 400 000 with UTVM_TEST_FULL=1;
- kernels with the generator's data (conv2d_s8_mve.h, depthwise_conv2d_s8_mve.h, add_s8_mve.h,
  mul_s8_mve.h) and the FULLY_CONNECTED and pooling overrides: models of one operator per edge case
  (the DSP kernels' cases of tests/test_kernels_arm_dsp.py, plus depthwise channel counts that are
  not a multiple of 8, depth multipliers 2-8, FULLY_CONNECTED shapes, same-shape ADD / SUB / MUL,
  average and max pooling windows), compiled --target cortex-m55
  and run on QEMU, against the generic build on the host byte for byte and the host against
  TFLite's reference kernels;
- models: the MLPerf Tiny re-creations and micro_speech --target cortex-m55 on QEMU against the
  generic host build (kws_dscnn in CI, all with UTVM_TEST_FULL=1).

And the guard: an arm_mve kernel compiled without MVE is a compile error naming the fix.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from system_tools import need

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from test_kernels_arm_dsp import Q15_CONV, Q15_DW, _add_model, _bcast_model, _q15_model, _qemu, lin_every_pair  # noqa: E402

FULL = os.environ.get("UTVM_TEST_FULL") == "1"
KERNELS = REPO / "utvm_build" / "kernels"
MVE = KERNELS / "arm_mve"
CORTEX_M = REPO / "examples" / "cortex_m"
M55_FLAGS = ["-mcpu=cortex-m55", "-mthumb", "-mfloat-abi=hard"]
STRICT = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-Wno-unused-function"]
MACHINE = "mps3-an547"


@pytest.fixture(scope="module")
def tools() -> None:
    need("arm-none-eabi-gcc", "qemu-system-arm")


def _cc(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["arm-none-eabi-gcc", *args], cwd=cwd, capture_output=True, text=True)


def test_every_override_has_the_mve_guard() -> None:
    files = sorted(MVE.glob("*.h"))
    assert files, "no arm_mve kernels"
    for f in files:
        head = "\n".join(ln for ln in f.read_text().splitlines() if ln.startswith("#"))[:800]
        guard = head.split("#include")[0]
        assert "#if !defined(__ARM_FEATURE_MVE)" in guard, f"{f.name}: no MVE guard before its includes"


@pytest.mark.parametrize("cpu", ["cortex-m33", "cortex-m4", "cortex-m55+nomve"])
def test_without_mve_is_a_compile_error(tools, tmp_path: Path, cpu: str) -> None:
    for f in sorted(MVE.glob("*.h")):
        src = tmp_path / "t.c"
        src.write_text(f'#include <stdbool.h>\n#include <stdint.h>\n#include "{f.name}"\n')
        r = _cc([f"-mcpu={cpu}", "-mthumb", "-I", str(MVE), "-I", str(KERNELS), "-c", str(src), "-o", "t.o"],
                tmp_path)
        assert r.returncode != 0, f.name
        assert "compiled without MVE; use --target cortex-m33 or generic" in r.stderr, r.stderr


RQ_MAIN = r"""
#include <stdbool.h>
#include <stdint.h>
#include "mve_s8.h"
#include "semihosting.h"

static void put(const char* t) { semihosting_write0(t); }
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

static uint32_t s = 12345u;
static uint32_t rnd(void) { s ^= s << 13; s ^= s >> 17; s ^= s << 5; return s; }

static const int32_t XS[] = {INT32_MIN, INT32_MIN + 1, -1073741825, -1073741824, -65536, -3, -2, -1, 0, 1,
                             2, 3, 65535, 1073741823, 1073741824, INT32_MAX - 1, INT32_MAX};
static const int32_t MS[] = {0, 1073741824, 1073741825, 1518500250, 2147483646, 2147483647, 1932735283};

static long failures = 0;
static long checked = 0;
static long checked_right = 0;

static void check4(const int32_t* x, const int32_t* m, const int32_t* sh) {
  int32_t got[4];
  int k;
  /* the raw MultiplyByQuantizedMultiplier: output offset 0, no clamp */
  vst1q_s32(got, utvm_mve_rq(vld1q_s32(x), vld1q_s32(m), vld1q_s32(sh), 0, INT32_MIN, INT32_MAX));
  for (k = 0; k < 4; ++k) {
    const int32_t want = utvm_mul_by_quantized_mul(x[k], m[k], sh[k]);
    ++checked;
    if (got[k] != want) {
      if (failures < 10) {
        put("bad x="); put_i(x[k]); put(" m="); put_i(m[k]); put(" s="); put_i(sh[k]);
        put(" got="); put_i(got[k]); put(" want="); put_i(want); put("\n");
      }
      ++failures;
    }
  }
  /* utvm_mve_rq_right (no left shift) on the same operands when no lane shifts left */
  if (sh[0] <= 0 && sh[1] <= 0 && sh[2] <= 0 && sh[3] <= 0) {
    vst1q_s32(got, utvm_mve_rq_right(vld1q_s32(x), vld1q_s32(m), vld1q_s32(sh), 0, INT32_MIN, INT32_MAX));
    for (k = 0; k < 4; ++k) {
      ++checked_right;
      if (got[k] != utvm_mul_by_quantized_mul(x[k], m[k], sh[k])) {
        if (failures < 10) {
          put("bad (right) x="); put_i(x[k]); put(" m="); put_i(m[k]); put(" s="); put_i(sh[k]); put("\n");
        }
        ++failures;
      }
    }
  }
}

int main(void) {
  int32_t x[4], m[4], sh[4];
  long i;
  int a, b, e, k;
  /* every edge x with every edge multiplier and every shift -31..8 */
  for (a = 0; a < (int)(sizeof XS / sizeof XS[0]); ++a) {
    for (b = 0; b < (int)(sizeof MS / sizeof MS[0]); ++b) {
      for (e = -31; e <= 8; e += 4) {
        for (k = 0; k < 4; ++k) { x[k] = XS[a]; m[k] = MS[b]; sh[k] = e + k; }
        check4(x, m, sh);
      }
    }
  }
  /* ties of the rounding shift: high products +-(2k+1) 2^(e-1) (multiplier 2^30: x itself) */
  for (e = 1; e <= 31; ++e) {
    for (i = 0; i < 64; ++i) {
      const int64_t t = ((int64_t)(2 * (i / 2) + 1) << (e - 1)) * ((i & 1) ? -1 : 1);
      for (k = 0; k < 4; ++k) {
        const int64_t v = t + (k - 1) * (e > 1 ? 1 : 0);
        x[k] = (v > INT32_MAX) ? INT32_MAX : ((v < INT32_MIN) ? INT32_MIN : (int32_t)v);
        m[k] = 1073741824; sh[k] = -e;
      }
      check4(x, m, sh);
    }
  }
  for (i = 0; i < CASES; i += 4) {
    for (k = 0; k < 4; ++k) {
      const uint32_t r = rnd();
      x[k] = (int32_t)rnd() >> (r & 31u);
      m[k] = (r & 0x100u) ? (int32_t)(0x40000000u | (rnd() & 0x3FFFFFFFu)) : MS[(r >> 9) % 7u];
      sh[k] = (int32_t)((r >> 12) % 40u) - 31;
    }
    check4(x, m, sh);
  }
  put("checked "); put_i(checked); put(" right "); put_i(checked_right); put(" failures "); put_i(failures);
  put("\n");
  return failures ? 1 : 0;
}
"""


def test_requantization_on_qemu_equals_tflite(tools, tmp_path: Path) -> None:
    """utvm_mve_rq (and utvm_mve_rq_right where no lane shifts left) == MultiplyByQuantizedMultiplier
    (common.h) on edge and random operands."""
    cases = 400_000 if FULL else 40_000
    (tmp_path / "rq.c").write_text(RQ_MAIN)
    r = _cc([*M55_FLAGS, "-Os", *STRICT, "-Wno-error", f"-I{MVE}", f"-I{KERNELS}", f"-I{CORTEX_M}",
             f"-DCASES={cases}", "rq.c", str(CORTEX_M / "startup.c"), str(CORTEX_M / "semihosting.c"),
             "-nostartfiles", "--specs=nano.specs", "-Wl,--gc-sections", f"-L{CORTEX_M}",
             f"-T{CORTEX_M / 'mps3-an547.ld'}", "-o", "rq.elf"], tmp_path)
    assert r.returncode == 0, r.stderr
    rc, out = _qemu(tmp_path / "rq.elf", tmp_path, machine=MACHINE)
    assert rc == 0 and "failures 0" in out, out[-3000:]
    checked = int(out.split("checked ")[1].split()[0])
    assert checked >= cases, out
    assert int(out.split(" right ")[1].split()[0]) >= cases // 2, out  # utvm_mve_rq_right too


# depthwise cases the DSP list does not have: channel counts not a multiple of 4 (the predicated
# last block), 1 and 3 channels, a 1-pixel image, 5x5 with dilation
MVE_DW = [
    ([1, 7, 5, 6], None, (3, 3), (1, 1), (1, 1), "SAME", "RELU6", -128, 5, "typical"),
    ([1, 5, 6, 1], None, (3, 3), (2, 1), (1, 1), "SAME", "NONE", 127, -128, "typical"),
    ([2, 6, 6, 13], None, (3, 3), (1, 1), (1, 1), "VALID", "RELU", -5, -128, "mixed"),
    ([1, 1, 1, 7], None, (3, 3), (1, 1), (1, 1), "SAME", "NONE", 3, 3, "near one"),
    ([1, 9, 9, 3], None, (5, 5), (2, 2), (2, 1), "SAME", "NONE", 0, -50, "tiny"),
    ([1, 4, 5, 10], None, (2, 3), (1, 1), (1, 1), "SAME", "NONE", -128, 127, "per-tensor"),
]

# depthwise with a depth multiplier (gathered input lanes): (in shape, multiplier, filter, strides,
# dilations, padding, activation, input zp, output zp); micro_speech's 10x8 stride 2 from 1 channel
MVE_DW_MULT = [
    ([1, 13, 10, 1], 8, (10, 8), (2, 2), (1, 1), "SAME", "RELU", -128, -128),
    ([1, 6, 7, 3], 2, (3, 3), (1, 1), (1, 1), "SAME", "NONE", 5, -3),
    ([2, 5, 5, 2], 5, (3, 3), (2, 1), (1, 2), "VALID", "RELU6", 127, 10),
    ([1, 4, 6, 5], 3, (2, 2), (1, 1), (1, 1), "SAME", "NONE", -7, 127),
]


def _dw_mult_model(seed: int) -> bytes:
    from tflite_writer import ModelBuilder

    from utvm_build.ops.conv import window

    rng = np.random.default_rng(seed)
    mb = ModelBuilder("arm_mve depthwise multiplier")
    ins, outs = [], []
    for shape, mult, (fh, fw), (sh, sw), (dh, dw), pad, act, zp_in, zp_out in MVE_DW_MULT:
        n, ih, iw, ic = shape
        oc = ic * mult
        s_in = 0.02
        w = rng.integers(-127, 128, [1, fh, fw, oc]).astype(np.int8)
        acc_std = np.sqrt(fh * fw) * 75.0 * 73.0
        s_out = float(s_in * 0.01 * acc_std / 60.0)
        w_scales = (rng.uniform(2.0**-11, 2.0**-7, oc) * s_out / s_in).astype(np.float32)
        bias = np.round(rng.normal(0.0, acc_std, oc)).astype(np.int64)
        ti = mb.tensor(shape, "int8", scale=s_in, zero_point=zp_in)
        tw = mb.tensor(w.shape, "int8", data=w, scale=w_scales, zero_point=[0] * oc, quantized_dimension=3)
        bs = (np.float32(s_in) * w_scales).astype(np.float32)
        tb = mb.tensor([oc], "int32", data=bias, scale=bs, zero_point=[0] * oc)
        oh, _ = window(pad, ih, fh, sh, dh)
        ow, _ = window(pad, iw, fw, sw, dw)
        to = mb.tensor([n, oh, ow, oc], "int8", scale=s_out, zero_point=zp_out)
        mb.operator("DEPTHWISE_CONV_2D", [ti, tw, tb], [to],
                    {"padding": pad, "stride_h": sh, "stride_w": sw, "dilation_h_factor": dh,
                     "dilation_w_factor": dw, "fused_activation_function": act, "depth_multiplier": mult})
        ins.append(ti)
        outs.append(to)
    return mb.build(ins, outs)


# FULLY_CONNECTED: (batches, depth, units, input zp, output zp, activation, per-channel weights)
MVE_FC = [
    (1, 640, 128, -3, -128, "RELU", False),
    (1, 37, 5, 127, 0, "NONE", True),
    (3, 16, 4, -128, 127, "NONE", False),
    (2, 15, 9, 5, -7, "RELU6", True),
    (1, 1, 1, 0, 0, "NONE", False),
    (1, 250, 12, 20, 30, "NONE", True),
]


def _fc_model(seed: int) -> bytes:
    from tflite_writer import ModelBuilder

    rng = np.random.default_rng(seed)
    mb = ModelBuilder("arm_mve fully connected")
    ins, outs = [], []
    for batches, depth, units, zp_in, zp_out, act, per_channel in MVE_FC:
        s_in = 0.02
        w = rng.integers(-127, 128, [units, depth]).astype(np.int8)
        acc_std = np.sqrt(depth) * 75.0 * 73.0
        s_out = float(s_in * 0.01 * acc_std / 60.0)
        n = units if per_channel else 1
        w_scales = (rng.uniform(2.0**-11, 2.0**-7, n) * s_out / s_in).astype(np.float32)
        bias = np.round(rng.normal(0.0, acc_std, units)).astype(np.int64)
        ti = mb.tensor([batches, depth], "int8", scale=s_in, zero_point=zp_in)
        tw = mb.tensor(w.shape, "int8", data=w, scale=w_scales, zero_point=[0] * n, quantized_dimension=0)
        bs = (np.float32(s_in) * w_scales).astype(np.float32)
        tb = mb.tensor([units], "int32", data=bias, scale=bs, zero_point=[0] * n)
        to = mb.tensor([batches, units], "int8", scale=s_out, zero_point=zp_out)
        mb.operator("FULLY_CONNECTED", [ti, tw, tb], [to], {"fused_activation_function": act})
        ins.append(ti)
        outs.append(to)
    return mb.build(ins, outs)


# CONV_2D cases of the windows read in place (filter rows of whole vectors: filter_w * in_c a
# multiple of 16; pairs of pixels both inside the image, the others through im2col): 3x3 x 16
# and x 32 channels at strides 1 and 2, a dilated row step, 1x2 x 8 (one vector per row), 2x1 x
# 16 on 2 batches with an odd pixel count, left shifts ("above one"), out_c not a multiple of 4.
MVE_CONV = [
    ([1, 8, 9, 16], 6, (3, 3), (1, 1), (1, 1), "SAME", "RELU", -128, -128, "typical"),
    ([1, 9, 7, 32], 8, (3, 3), (2, 2), (1, 1), "SAME", "NONE", 5, 3, "typical"),
    ([1, 9, 8, 16], 4, (3, 3), (1, 1), (2, 1), "VALID", "RELU6", -3, 10, "mixed"),
    ([1, 5, 7, 8], 5, (1, 2), (1, 1), (1, 1), "VALID", "NONE", 7, -128, "above one"),
    ([2, 5, 3, 16], 3, (2, 1), (1, 1), (1, 1), "VALID", "NONE", 0, 0, "near one"),
    # the row-padded layout (filter rows under 16 bytes, each one vector; ops/conv_mve.row_padded):
    # ResNet-8's 3x3 x 3 first layer (pairs in place and at the border), person_detect's 3x3 x 1 at
    # stride 2, left shifts, 5 output channels (a predicated last block)
    ([1, 8, 9, 3], 16, (3, 3), (1, 1), (1, 1), "SAME", "RELU", -128, -128, "typical"),
    ([1, 11, 10, 1], 8, (3, 3), (2, 2), (1, 1), "SAME", "RELU6", 3, -128, "typical"),
    ([1, 6, 7, 3], 5, (3, 3), (1, 1), (2, 1), "SAME", "NONE", 7, 9, "above one"),
]


# ADD / SUB cases of add_s8_mve.h beyond the DSP test's: sizes not a multiple of 4 (the predicated
# last vector), both input shifts 0 (equal scales) in a SUB, one input shift 0 with the other
# negative (a fix-up applied to a shift-0 input fails here), and an output multiplier in [0.5, 1)
# (output shift 0; every output but an exact 0 saturates, so it checks the clamp and the path).
MVE_ADD = [
    ("ADD", [7], (0.05, -3), (0.04, 7), (0.08, -128), "NONE"),
    ("SUB", [1, 5, 5, 3], (0.03, 0), (0.03, 4), (0.05, -7), "RELU"),
    ("ADD", [4099], (0.02, -128), (0.07, 127), (0.03, 0), "NONE"),
    ("ADD", [1, 9, 9, 5], (1.0, 0), (1.0, -1), (3e-6, 0), "NONE"),
    ("SUB", [2, 130], (0.5, 100), (0.125, -100), (0.3, 1), "NONE"),
]


# MUL int8 same shape (mul_s8_mve.h): (shape, (scale, zp) of each input and of the output,
# activation): sizes not a multiple of 8 (the predicated last 1..7), zero points at both ends
# (offsets 128 and -127 in int16 lanes), an output scale that makes the multiplier above one
# (a left shift), a small one (a right shift of 20+), a clamp by RELU6.
MVE_MUL = [
    ([7], (0.05, -3), (0.04, 7), (0.002, -128), "NONE"),
    ([1, 5, 5, 3], (0.03, -128), (0.03, 127), (0.0002, 10), "RELU"),
    ([4099], (0.02, 127), (0.07, -128), (0.5, 0), "NONE"),
    ([2, 9, 9, 5], (1.0, 0), (1.0, -1), (300.0, 3), "RELU6"),
    ([2, 130], (0.5, 100), (0.125, -100), (0.01, 1), "NONE"),
]


def _mul_mve_model() -> bytes:
    from tflite_writer import ModelBuilder

    mb = ModelBuilder("arm_mve mul")
    ins, outs = [], []
    for shape, (s1, z1), (s2, z2), (so, zo), act in MVE_MUL:
        a = mb.tensor(shape, "int8", scale=s1, zero_point=z1)
        b = mb.tensor(shape, "int8", scale=s2, zero_point=z2)
        o = mb.tensor(shape, "int8", scale=so, zero_point=zo)
        mb.operator("MUL", [a, b], [o], {"fused_activation_function": act})
        ins += [a, b]
        outs.append(o)
    return mb.build(ins, outs)


# BATCH_MATMUL int8 (batch_matmul_s8.h): (lhs batch, rhs batch, M, K, N, adj_x, adj_y, constant rhs,
# lhs zp, rhs zp). Depths 1, 5, 16, 17, 40, 100 (whole vectors and predicated tails), N 1, 3, 6, 8
# (a last block of fewer than 4 columns), broadcast batch dimensions on either side, a constant rhs
# (stored transposed), a runtime rhs with adj_y (depth-contiguous: the vector path) and without (the
# generic walk), adj_x (the generic walk), lhs zero point 0 (no rhs sums) and at both ends.
MVE_BMM = [
    ((2,), (2,), 3, 40, 6, False, False, True, 5, -3),
    ((1,), (3,), 4, 17, 3, False, True, False, -128, 10),
    ((3,), (), 2, 100, 8, False, False, True, 0, 0),
    ((2, 2), (2, 1), 5, 16, 1, False, True, False, 127, -128),
    ((), (), 7, 5, 6, False, False, False, 9, 2),
    ((2,), (2,), 3, 12, 5, True, False, True, -7, 1),
    ((), (), 1, 1, 3, False, False, True, 0, 4),
]


def _bmm_mve_model(seed: int = 31) -> bytes:
    from tflite_writer import ModelBuilder

    rng = np.random.default_rng(seed)
    mb = ModelBuilder("arm_mve batch_matmul")
    ins, outs = [], []
    for lb, rb, m, k, n, adj_x, adj_y, const, zl, zr in MVE_BMM:
        sl, sr = float(rng.uniform(0.01, 0.05)), float(rng.uniform(0.005, 0.05))
        # the output quantization from sampled sums (+-3 sigma over the int8 range, centred)
        acc = ((rng.integers(-128, 128, (256, k)) - zl) * (rng.integers(-128, 128, (256, k)) - zr)).sum(axis=1)
        so = sl * sr * 3.0 * float(acc.std()) / 127.0
        zo = int(np.clip(-round(float(acc.mean()) * sl * sr / so), -128, 127))
        lshape = (*lb, k, m) if adj_x else (*lb, m, k)
        rshape = (*rb, n, k) if adj_y else (*rb, k, n)
        nb = max(len(lb), len(rb))
        lbe, rbe = (1,) * (nb - len(lb)) + lb, (1,) * (nb - len(rb)) + rb
        oshape = tuple(max(a, b) for a, b in zip(lbe, rbe)) + (m, n)
        x = mb.tensor(lshape, "int8", scale=sl, zero_point=zl)
        data = rng.integers(-128, 128, rshape).astype(np.int8) if const else None
        y = mb.tensor(rshape, "int8", data=data, scale=sr, zero_point=zr)
        o = mb.tensor(oshape, "int8", scale=so, zero_point=zo)
        mb.operator("BATCH_MATMUL", [x, y], [o], {"adj_x": adj_x, "adj_y": adj_y})
        ins += [x] if const else [x, y]
        outs.append(o)
    return mb.build(ins, outs)


# SOFTMAX int8 (softmax_s8.h): ([outer, depth], input scale, input zero point, beta): depths
# under, at and above 4 / 16 (predicated tails), 1, 256 (the largest on the vector path) and 300
# (the generic fallback), input scales from 0.01 to 1 (diff_min cutting many lanes off at 1),
# betas 0.5 and 2.
MVE_SOFTMAX = [
    ([1, 10], 0.1, 0, 1.0),
    ([3, 12], 0.05, -10, 1.0),
    ([2, 17], 1.0, 127, 1.0),
    ([1, 1], 0.01, -128, 1.0),
    ([4, 33], 0.2, 5, 0.5),
    ([1, 256], 0.3, -3, 1.0),
    ([1, 300], 0.1, 0, 1.0),
    ([2, 64], 0.0625, 20, 2.0),
]


def _softmax_mve_model() -> bytes:
    from tflite_writer import ModelBuilder

    mb = ModelBuilder("arm_mve softmax")
    ins, outs = [], []
    for shape, scale, zp, beta in MVE_SOFTMAX:
        x = mb.tensor(shape, "int8", scale=scale, zero_point=zp)
        y = mb.tensor(shape, "int8", scale=1.0 / 256, zero_point=-128)
        mb.operator("SOFTMAX", [x], [y], {"beta": beta})
        ins.append(x)
        outs.append(y)
    return mb.build(ins, outs)


def _add_mve_model() -> bytes:
    from tflite_writer import ModelBuilder

    mb = ModelBuilder("arm_mve add")
    ins, outs = [], []
    for op, shape, (s1, z1), (s2, z2), (so, zo), act in MVE_ADD:
        a = mb.tensor(shape, "int8", scale=s1, zero_point=z1)
        b = mb.tensor(shape, "int8", scale=s2, zero_point=z2)
        o = mb.tensor(shape, "int8", scale=so, zero_point=zo)
        mb.operator(op, [a, b], [o], {"fused_activation_function": act})
        ins += [a, b]
        outs.append(o)
    return mb.build(ins, outs)


# AVERAGE_POOL_2D int8 (pooling_avg_s8.h): (in [n, h, w, c], filter (h, w), strides, padding,
# activation, zero point): channels under, at and above 16 (the predicated last 1..15), border
# windows (SAME), KWS's 25x5 global pool (125 taps), a 16x17 global window (272 taps: the
# generic loop), batches.
MVE_POOL = [
    ([1, 25, 5, 64], (25, 5), (1, 1), "VALID", "NONE", -5),
    ([1, 7, 6, 20], (3, 3), (2, 2), "SAME", "RELU", 3),
    ([2, 5, 5, 7], (2, 3), (1, 1), "SAME", "RELU6", -128),
    ([1, 8, 8, 16], (8, 8), (1, 1), "VALID", "NONE", 127),
    ([1, 16, 17, 9], (16, 17), (1, 1), "VALID", "NONE", 0),
    ([1, 4, 4, 33], (3, 3), (1, 1), "SAME", "NONE", -1),
]


def _pool_model(op: str = "AVERAGE_POOL_2D") -> bytes:
    """One ``op`` (AVERAGE_POOL_2D or MAX_POOL_2D) per MVE_POOL case."""
    from tflite_writer import ModelBuilder

    mb = ModelBuilder(f"arm_mve {op}")
    ins, outs = [], []
    for shape, (fh, fw), (sh, sw), pad, act, zp in MVE_POOL:
        x = mb.tensor(shape, "int8", scale=0.05, zero_point=zp)
        oh = -(-shape[1] // sh) if pad == "SAME" else (shape[1] - fh) // sh + 1
        ow = -(-shape[2] // sw) if pad == "SAME" else (shape[2] - fw) // sw + 1
        y = mb.tensor([shape[0], oh, ow, shape[3]], "int8", scale=0.05, zero_point=zp)
        mb.operator(op, [x], [y], {"padding": pad, "stride_h": sh, "stride_w": sw,
                                   "filter_height": fh, "filter_width": fw, "fused_activation_function": act})
        ins.append(x)
        outs.append(y)
    return mb.build(ins, outs)


def _check_on_qemu(tmp_path: Path, models: list, kernels: dict[str, str] | None = None,
                   reference_check: bool = False) -> None:
    """Builds `models` for the host (generic) and for Cortex-M55 (--target cortex-m55), runs the
    M55 build on QEMU and asserts its outputs byte for byte equal to the host's; kernels: model
    name -> a kernel header the M55 build must take from arm_mve (else: some arm_mve kernel);
    reference_check: the host outputs also against TFLite's reference kernels."""
    from benchmarks import reference
    from benchmarks.compare import outputs_match
    from benchmarks.runner import CORES, build, model_metadata, parse_program_output

    build(models, None, "O2", tmp_path / "host", target="generic")
    build(models, CORES["m55"], "Os", tmp_path / "m55", target="cortex-m55")
    for m in models:
        meta = model_metadata(tmp_path / "m55", m)
        assert meta["target"] == "cortex-m55"
        variants = meta["kernel_variants"]
        if kernels is not None:
            assert variants.get(kernels[m.name]) == "arm_mve", (m.name, variants)
        else:
            assert "arm_mve" in variants.values(), (m.name, variants)
        host = parse_program_output(subprocess.run([str(tmp_path / "host" / f"bench_{m.name}")],
                                                   capture_output=True, text=True, timeout=300).stdout)
        assert host.rc == 0
        if reference_check:
            ref = reference.check(m, model_metadata(tmp_path / "host", m), host.outputs)
            assert ref.startswith("identical"), f"{m.name}: host vs reference: {ref}"
        rc, out = _qemu(tmp_path / "m55" / f"bench_{m.name}.elf", tmp_path, machine=MACHINE)
        target = parse_program_output(out)
        assert rc == 0 and target.rc == 0, out[-2000:]
        ok, how = outputs_match(target.outputs, host.outputs, [t["dtype"] for t in meta["outputs"]])
        assert ok and how == "identical", f"{m.name}: cortex-m55 vs host: {how}"


def test_mve_kernels_on_qemu_equal_generic_host_and_reference(tools, tmp_path: Path) -> None:
    """conv2d_s8_mve / depthwise_conv2d_s8_mve (multiplier 1 and above) / fully_connected_s8_rows (MVE)
    / add_s8_mve / mul_s8_mve / average and max pooling / softmax on every case above (ADD / SUB: the DSP
    test's cases, 4096+ elements each so that every input byte occurs, odd sizes, and a broadcast
    ADD that keeps the other kernels)."""
    need("cmake", "cc")
    from benchmarks.models import BenchModel

    models, kernels = [], {}
    for name, data, kernel in (
            ("mve_conv", _q15_model(Q15_CONV + MVE_CONV, 23), "conv2d_s8_mve"),
            ("mve_dw", _q15_model(Q15_DW + MVE_DW, 24, depthwise=True), "depthwise_conv2d_s8_mve"),
            ("mve_dw_mult", _dw_mult_model(26), "depthwise_conv2d_s8_mve"),
            ("mve_fc", _fc_model(25), "fully_connected_s8_rows"), ("mve_add", _add_model(27), "add_s8_mve"),
            ("mve_add2", _add_mve_model(), "add_s8_mve"), ("mve_mul", _mul_mve_model(), "mul_s8_mve"),
            ("mve_bcast", _bcast_model(), "add_s8_mve"), ("mve_bmm", _bmm_mve_model(), "batch_matmul_s8"),
            ("mve_softmax", _softmax_mve_model(), "softmax_s8"),
            ("mve_pool", _pool_model(), "pooling_avg_s8"), ("mve_max", _pool_model("MAX_POOL_2D"), "pooling_max_s8")):
        (tmp_path / f"{name}.tflite").write_bytes(data)
        models.append(BenchModel(name, tmp_path / f"{name}.tflite", "test"))
        kernels[name] = kernel
    _check_on_qemu(tmp_path, models, kernels, reference_check=True)
    # ADD / SUB: the linear form where it fits, the reference arithmetic on 4 lanes elsewhere
    src = "\n".join(p.read_text() for p in (tmp_path / "m55").rglob("*mve_add*/src/*.c"))
    assert src.count("utvm_add_s8_lin_mve(") >= 5 and src.count("utvm_add_s8_mve(") >= 2, src
    # broadcasts: every ADD / SUB / MUL case through the MVE row kernels, both ADD forms
    src = "\n".join(p.read_text() for p in (tmp_path / "m55").rglob("*mve_bcast*/src/*.c"))
    lin, ref, mul = (src.count(f"{f}(") for f in ("utvm_add_s8_lin_mve_bc", "utvm_add_s8_mve_bc", "utvm_mul_s8_mve_bc"))
    assert lin >= 3 and ref >= 2 and lin + ref == 7 and mul == 4, (lin, ref, mul)


def test_models_on_qemu_equal_generic_host(tools, tmp_path: Path) -> None:
    """The MLPerf-like models and micro_speech --target cortex-m55 on QEMU vs the generic build on the
    host (kws_dscnn in CI, every one with UTVM_TEST_FULL=1)."""
    need("cmake", "cc")
    from benchmarks.models import MLPERF_MODELS, get_models, model_names

    wanted = ("micro_speech", "person_detect", *MLPERF_MODELS) if FULL else ("kws_dscnn",)
    names = [n for n in model_names() if n in wanted]
    assert names, "no benchmark models"
    _check_on_qemu(tmp_path, get_models(names, tmp_path))


def test_add_lin_mve_every_pair_on_qemu(tools, tmp_path: Path) -> None:
    """add_s8_mve.h utvm_add_s8_lin_mve (the linear form: VMULH and a gather) with the generator's
    (c, table) against the generic utvm_add_s8 on QEMU M55: every pair of int8 values of the DSP
    test's LIN_ADD cases, lengths 0..19 and 2^16 - 12..2^16 from offsets 0..3, nothing written past
    the end."""
    lin_every_pair(tmp_path, M55_FLAGS, "arm_mve/add_s8_mve.h", "utvm_add_s8_lin_mve", 0, MACHINE)
