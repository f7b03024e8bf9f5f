"""int8 ADD / SUB: the one-step rescale of kernels/add_s8.h.

utvm_add_s8 replaces the reference's three MultiplyByQuantizedMultiplierSmallerThanOneExp
(kernels/common.h arithmetic) with exact shorter forms. Every intermediate and the output are
compared with that arithmetic on every pair of int8 inputs for many parameter sets (multipliers and shifts as
QuantizeMultiplierSmallerThanOneExp makes them, input multipliers negated as for SUB, every zero
point), and end to end with the TFLite reference kernels at the scale ratios that give the
largest and smallest shifts.
"""

from __future__ import annotations

from pathlib import Path

from harness import run_kernel_check
from system_tools import need
from test_ops_elementwise import ACTS, _run, binary_case

EXHAUSTIVE = r"""
#include <stdio.h>
#include <string.h>
#include "add_s8.h"

static uint32_t state = 88172645u;
static uint32_t next(void) { state ^= state << 13; state ^= state >> 17; state ^= state << 5; return state; }

/* QuantizeMultiplierSmallerThanOneExp-like: multiplier 0 or in [2^30, 2^31), shift in [-31, 0] */
static void multiplier(int32_t* m, int32_t* shift, uint32_t kind) {
  static const int32_t edge[] = {1073741824, 1073741825, 1518500250, 2147483646, 2147483647};
  *m = (kind % 7u == 0u) ? edge[next() % 5u] : (int32_t)(1073741824u + (next() >> 2));
  if (kind % 53u == 0u) { *m = 0; }
  *shift = -(int32_t)(next() % 32u);
  if (kind % 3u != 0u) { *shift = -(int32_t)(next() % 4u); } /* the common small shifts */
}

/* The reference arithmetic (reference_integer_ops::AddElementwise) with kernels/common.h. */
static int32_t reference(const utvm_add_q_params* p, int32_t a, int32_t b) {
  const int32_t s1 = utvm_mul_by_quantized_mul_lt1((p->input1_offset + a) * 1048576, p->input1_multiplier,
                                                   p->input1_shift);
  const int32_t s2 = utvm_mul_by_quantized_mul_lt1((p->input2_offset + b) * 1048576, p->input2_multiplier,
                                                   p->input2_shift);
  return utvm_mul_by_quantized_mul_lt1(s1 + s2, p->output_multiplier, p->output_shift);
}

static int8_t in1[65536];
static int8_t in2[65536];
static int8_t out[65536];

int main(void) {
  long checked = 0;
  int32_t set;
  int32_t i;
  for (i = 0; i < 65536; ++i) {
    in1[i] = (int8_t)((i >> 8) - 128);
    in2[i] = (int8_t)((i & 255) - 128);
  }
  for (set = 0; set < 1500; ++set) {
    utvm_add_q_params p;
    utvm_ew_shape sh;
    utvm_add_s8_input c_in1;
    utvm_add_s8_input c_in2;
    utvm_add_s8_rescale c_out;
    p.left_shift = 20;
    multiplier(&p.input1_multiplier, &p.input1_shift, next());
    multiplier(&p.input2_multiplier, &p.input2_shift, next());
    multiplier(&p.output_multiplier, &p.output_shift, next());
    if ((set % 2) == 1) { p.input2_multiplier = -p.input2_multiplier; } /* SUB */
    if ((set % 5) == 2) { p.output_shift = -(int32_t)(15u + (next() % 10u)); } /* typical ADD output */
    p.input1_offset = (set % 17 == 0) ? 128 : ((set % 17 == 1) ? -127 : (int32_t)(next() % 256u) - 127);
    p.input2_offset = (set % 13 == 0) ? -127 : ((set % 13 == 1) ? 128 : (int32_t)(next() % 256u) - 127);
    p.output_offset = (int32_t)(next() % 256u) - 128;
    p.act_min = (set % 3 == 0) ? -128 : (int32_t)(next() % 128u) - 128;
    p.act_max = (set % 3 == 0) ? 127 : (int32_t)(next() % 128u);
    memset(&sh, 0, sizeof sh);   /* as the generator emits it: every field set */
    sh.size = 65536;
    sh.broadcast = 0;
    utvm_add_s8(&p, &sh, in1, in2, out);
    utvm_add_s8_input_init(&c_in1, p.input1_multiplier, p.input1_shift);
    utvm_add_s8_input_init(&c_in2, p.input2_multiplier, p.input2_shift);
    utvm_add_s8_rescale_init(&c_out, p.output_multiplier, p.output_shift, 0);
    for (i = 0; i < 65536; ++i) {
      const int32_t a = in1[i];
      const int32_t b = in2[i];
      const int32_t s1 = utvm_mul_by_quantized_mul_lt1((p.input1_offset + a) * 1048576, p.input1_multiplier,
                                                       p.input1_shift);
      const int32_t s2 = utvm_mul_by_quantized_mul_lt1((p.input2_offset + b) * 1048576, p.input2_multiplier,
                                                       p.input2_shift);
      const int32_t ref = reference(&p, a, b);
      /* every intermediate, unclamped, then the kernel's int8 output */
      const int32_t f1 = (int32_t)(utvm_add_s8_input_apply(&c_in1, p.input1_offset + a) - c_in1.offset);
      const int32_t f2 = (int32_t)(utvm_add_s8_input_apply(&c_in2, p.input2_offset + b) - c_in2.offset);
      const int32_t got = utvm_add_s8_rescale_apply(&c_out, f1 + f2);
      if ((f1 != s1) || (f2 != s2) || (got != ref) ||
          (out[i] != (int8_t)utvm_clamp_i32(ref + p.output_offset, p.act_min, p.act_max))) {
        printf("mismatch set %ld a %ld b %ld: %ld %ld %ld %d vs %ld %ld %ld\n", (long)set, (long)a, (long)b,
               (long)f1, (long)f2, (long)got, out[i], (long)s1, (long)s2, (long)ref);
        return 1;
      }
      ++checked;
    }
  }
  printf("ok %ld\n", checked);
  return 0;
}
"""


def test_add_s8_fast_matches_reference_arithmetic(tmp_path: Path) -> None:
    """Every (a, b) in int8 x int8 for 1500 parameter sets (98 M elements), with UBSan."""
    need("cc")
    run_kernel_check(tmp_path, EXHAUSTIVE, "-O2", timeout=600)


def test_add_sub_s8_shift_extremes() -> None:
    """Scale ratios that give input shift 0 (equal scales) and large input and output shifts,
    zero points at both ends, broadcast and not."""
    cases = []
    for k, (s1, s2, so, z1, z2, zo) in enumerate([
        (0.02, 0.02, 0.02, -128, -128, -128),        # input multipliers 0.5: shift 0
        (0.02, 0.02, 0.0001, 127, 127, 127),         # output multiplier near 1: small output shift
        (0.5, 0.00005, 0.5, -128, 127, 0),           # second input shift ~14
        (0.00005, 0.5, 0.3, 127, -128, -128),        # first input shift ~14
        (1e-3, 1e-3, 20.0, 0, 0, 0),                 # outputs mostly 0: large output shift
        (0.1, 0.07, 0.17, -1, 1, 127),
    ]):
        q = ({"scale": s1, "zero_point": z1}, {"scale": s2, "zero_point": z2}, {"scale": so, "zero_point": zo})
        for op in ("ADD", "SUB"):
            cases.append(binary_case(op, "int8", (2, 5, 16), (2, 5, 16), 1000 + k, ACTS[k % 4], q=q))
            cases.append(binary_case(op, "int8", (3, 4, 7), (4, 1), 1100 + k, ACTS[(k + 1) % 4], q=q))
    res = _run(cases)
    assert res["bit_exact"] == res["cases"]
