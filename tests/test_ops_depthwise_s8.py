"""int8 DEPTHWISE_CONV_2D: the edges of the blocked kernel (kernels/depthwise_conv2d_s8.h).

The kernel accumulates blocks of 4 output channels over the taps inside the image and cancels the
folded input offset of the taps outside it separately; channels left over by the blocks and
width-dilated depth multiplier 1 convolutions take the one-channel path. These hand-picked
geometries reach every branch (checked byte for byte against the TFLite reference kernels):
images where every pixel is a border pixel, a single interior pixel, windows with no tap inside
the image, channel counts that are not multiples of 4, depth multipliers 1..9, strides,
dilations, input zero points -128 / 0 / 127, output zero points at the ends of the range,
fused activations, batches, output multipliers above 1 (left shift) and far below. The
requantization (an inlined, reformulated MultiplyByQuantizedMultiplier) is also compared with
kernels/common.h's over edge and random accumulators, multipliers and shifts.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from harness import Case, check_against_oracle, run_kernel_check
from system_tools import need
from tflite_writer import ModelBuilder

from utvm_build.ops.conv import window

# (label, input NHWC, filter (h, w), depth multiplier, padding, stride (h, w), dilation (h, w),
#  input zero point, output zero point, activation, bias, output scale factor)
# output scale factor: output scale = factor * (typical accumulator std * input scale * filter scale);
# < 0.01 makes the real multiplier > 1 (left shift in the requantization).
GEOMETRIES = [
    ("all border", [1, 2, 2, 5], (3, 3), 1, "SAME", (1, 1), (1, 1), -128, 0, "NONE", True, 1.0),
    ("all border dm2", [1, 2, 3, 3], (3, 3), 2, "SAME", (1, 1), (1, 1), 5, -3, "RELU", True, 1.0),
    ("filter larger than image", [1, 2, 2, 8], (5, 5), 1, "SAME", (1, 1), (1, 1), 127, 127, "NONE", True, 1.0),
    ("single interior pixel", [1, 3, 3, 8], (3, 3), 1, "SAME", (1, 1), (1, 1), -128, -128, "NONE", True, 1.0),
    ("valid single pixel", [1, 3, 3, 4], (3, 3), 1, "VALID", (1, 1), (1, 1), 17, 4, "RELU6", True, 1.0),
    ("channels 1", [1, 6, 5, 1], (3, 3), 1, "SAME", (1, 1), (1, 1), -128, 0, "NONE", True, 1.0),
    ("channels 2", [1, 6, 5, 2], (3, 3), 1, "SAME", (1, 1), (1, 1), 0, 0, "NONE", False, 1.0),
    ("channels 3", [1, 5, 6, 3], (3, 3), 1, "SAME", (2, 2), (1, 1), 3, -20, "NONE", True, 1.0),
    ("channels 7", [2, 6, 5, 7], (3, 3), 1, "SAME", (1, 1), (1, 1), -128, 10, "RELU", True, 1.0),
    ("channels 13", [1, 7, 7, 13], (3, 3), 1, "SAME", (1, 1), (1, 1), -100, -128, "NONE", True, 0.5),
    ("channels 64 kws-like", [1, 25, 5, 64], (3, 3), 1, "SAME", (1, 1), (1, 1), -128, -128, "RELU", True, 1.0),
    ("stride 2 even", [1, 8, 8, 8], (3, 3), 1, "SAME", (2, 2), (1, 1), -128, -128, "RELU6", True, 1.0),
    ("stride 2 odd", [1, 9, 7, 12], (3, 3), 1, "SAME", (2, 2), (1, 1), 60, 0, "NONE", True, 1.0),
    ("stride 3 5x5", [1, 11, 10, 5], (5, 5), 1, "SAME", (3, 3), (1, 1), -7, 2, "NONE", True, 1.0),
    ("stride 2x1 valid", [1, 9, 6, 4], (3, 2), 1, "VALID", (2, 1), (1, 1), 0, 0, "RELU_N1_TO_1", True, 1.0),
    ("1x1 filter", [1, 4, 4, 9], (1, 1), 1, "SAME", (1, 1), (1, 1), -128, 5, "NONE", True, 1.0),
    ("1x5 filter", [1, 4, 7, 4], (1, 5), 1, "SAME", (1, 1), (1, 1), 127, -5, "NONE", True, 1.0),
    ("5x1 filter", [1, 7, 3, 6], (5, 1), 1, "SAME", (1, 2), (1, 1), -128, 0, "NONE", False, 1.0),
    ("dilation h", [1, 9, 8, 8], (3, 3), 1, "SAME", (1, 1), (2, 1), -128, 0, "NONE", True, 1.0),
    ("dilation w dm1", [1, 8, 9, 6], (3, 3), 1, "SAME", (1, 1), (1, 2), -128, 0, "RELU", True, 1.0),
    ("dilation w dm4", [1, 8, 9, 2], (3, 3), 4, "SAME", (1, 1), (1, 3), 20, 0, "NONE", True, 1.0),
    ("dilation both stride 2", [1, 10, 10, 5], (3, 3), 1, "SAME", (2, 2), (2, 2), -128, 0, "NONE", True, 1.0),
    ("window with no tap inside", [1, 3, 1, 4], (2, 2), 1, "SAME", (1, 1), (1, 3), -50, 0, "NONE", True, 1.0),
    ("no tap inside dm2", [1, 1, 3, 2], (2, 2), 2, "SAME", (1, 1), (3, 1), 90, 0, "NONE", True, 1.0),
    ("no row inside dm1", [1, 1, 4, 8], (2, 2), 1, "SAME", (1, 1), (3, 1), -50, 0, "NONE", True, 1.0),
    ("no column inside dm4", [1, 3, 1, 2], (2, 2), 4, "SAME", (1, 1), (1, 3), 90, 0, "NONE", True, 1.0),
    ("no tap inside dm4", [1, 1, 1, 1], (2, 2), 4, "SAME", (1, 1), (3, 3), -128, 0, "NONE", True, 1.0),
    ("dm 2", [1, 5, 6, 3], (3, 3), 2, "SAME", (1, 1), (1, 1), -128, 0, "NONE", True, 1.0),
    ("dm 3", [1, 5, 6, 2], (3, 3), 3, "SAME", (1, 2), (1, 1), 127, 0, "RELU6", True, 1.0),
    ("dm 4", [2, 5, 5, 3], (3, 3), 4, "SAME", (1, 1), (1, 1), -128, -128, "NONE", True, 1.0),
    ("dm 5", [1, 5, 6, 2], (3, 3), 5, "VALID", (1, 1), (1, 1), 0, 0, "NONE", True, 1.0),
    ("dm 8 micro_speech-like", [1, 20, 16, 1], (10, 8), 8, "SAME", (2, 2), (1, 1), -128, -128, "RELU", True, 1.0),
    ("dm 9", [1, 4, 4, 2], (2, 3), 9, "SAME", (1, 1), (1, 1), -128, 0, "NONE", False, 1.0),
    ("left shift dm1", [1, 5, 5, 6], (3, 3), 1, "SAME", (1, 1), (1, 1), -128, 0, "NONE", True, 0.004),
    ("left shift dm4", [1, 5, 5, 2], (3, 3), 4, "SAME", (1, 1), (1, 1), 10, 0, "NONE", True, 0.003),
    ("large right shift", [1, 5, 5, 8], (3, 3), 1, "SAME", (1, 1), (1, 1), -128, 0, "NONE", True, 40.0),
    ("vww-like stride 2", [1, 12, 12, 16], (3, 3), 1, "SAME", (2, 2), (1, 1), -128, -128, "RELU6", True, 1.0),
    ("batches 3", [3, 4, 5, 6], (3, 3), 1, "SAME", (1, 1), (1, 1), -128, 0, "NONE", True, 1.0),
    ("asymmetric valid", [1, 7, 4, 5], (4, 2), 1, "VALID", (2, 1), (1, 1), 33, -33, "NONE", True, 1.0),
]


def _case(rng: np.random.Generator, k: int, geo: tuple) -> Case:
    label, shape, (fh, fw), dm, padding, (sh, sw), (dh, dw), zp_in, zp_out, act, with_bias, factor = geo
    n, ih, iw, ic = shape
    oc = ic * dm
    oh, _ = window(padding, ih, fh, sh, dh)
    ow, _ = window(padding, iw, fw, sw, dw)
    s_in = float(rng.uniform(0.005, 0.05))
    x = rng.integers(-128, 128, shape).astype(np.int8)
    w = rng.integers(-127, 128, [1, fh, fw, oc]).astype(np.int8)
    w_scales = rng.uniform(0.002, 0.02, oc).astype(np.float32)
    x_std = float(np.std(x.astype(np.float64) - zp_in)) + 1.0
    acc_std = np.sqrt(fh * fw) * x_std * 73.0
    out_scale = float(s_in * np.mean(w_scales) * acc_std / 60.0 * factor * rng.uniform(0.7, 1.4))
    bias = np.round(rng.normal(0.0, acc_std, oc)).astype(np.int64) if with_bias else None
    mb = ModelBuilder()
    ti = mb.tensor(shape, "int8", scale=s_in, zero_point=zp_in)
    tw = mb.tensor([1, fh, fw, oc], "int8", data=w, scale=w_scales, zero_point=[0] * oc, quantized_dimension=3)
    inputs = [ti, tw]
    if bias is not None:
        bs = (np.float32(s_in) * w_scales).astype(np.float32)
        inputs.append(mb.tensor([oc], "int32", data=bias, scale=bs, zero_point=[0] * oc))
    to = mb.tensor([n, oh, ow, oc], "int8", scale=out_scale, zero_point=zp_out)
    mb.operator("DEPTHWISE_CONV_2D", inputs, [to], {
        "padding": padding, "stride_h": sh, "stride_w": sw, "dilation_h_factor": dh,
        "dilation_w_factor": dw, "depth_multiplier": dm, "fused_activation_function": act})
    return Case(mb.build([ti], [to]), [x], f"#{k} {label}: in={shape} f={fh}x{fw} dm={dm} {padding} "
                                             f"s=({sh},{sw}) d=({dh},{dw}) zp={zp_in}/{zp_out} {act}")


def test_depthwise_s8_edges() -> None:
    rng = np.random.default_rng(20)
    cases = [_case(rng, k, geo) for k, geo in enumerate(GEOMETRIES)]
    res = check_against_oracle(cases)
    assert res["bit_exact"] == len(cases)


REQUANT_TEST = r"""
#include <stdio.h>
#include <stdlib.h>
#include "depthwise_conv2d_s8.h"

static uint32_t state = 2463534242u;
static uint32_t next(void) { state ^= state << 13; state ^= state >> 17; state ^= state << 5; return state; }

int main(void) {
  static const int32_t edge_acc[] = {0, 1, -1, 2, -2, 3, -3, 127, -128, 1 << 20, -(1 << 20), 1073741823,
                                     -1073741824, INT32_MAX, INT32_MIN, INT32_MAX - 1, INT32_MIN + 1};
  static const int32_t edge_mult[] = {0, 1073741824, 1073741825, 1518500250, 2147483646, 2147483647};
  const int32_t n_acc = (int32_t)(sizeof edge_acc / sizeof edge_acc[0]);
  const int32_t n_mult = (int32_t)(sizeof edge_mult / sizeof edge_mult[0]);
  utvm_conv_q_params p;
  long checked = 0;
  int32_t i;
  p.output_offset = 0;
  p.act_min = INT32_MIN; /* no clamp: compare the whole int32 result through the low byte and below */
  p.act_max = INT32_MAX;
  for (i = 0; i < 3000000; ++i) {
    int32_t acc[4];
    int32_t mult[4];
    int32_t shift[4];
    int8_t out[4];
    int32_t j;
    for (j = 0; j < 4; ++j) {
      const uint32_t r = next();
      acc[j] = (r & 1u) ? edge_acc[next() % (uint32_t)n_acc] : (int32_t)(next() >> (next() % 32u));
      if (((r & 2u) != 0u) && (acc[j] != INT32_MIN)) { acc[j] = -acc[j] - (int32_t)(r >> 31); }
      mult[j] = (r & 4u) ? edge_mult[next() % (uint32_t)n_mult] : (int32_t)(1073741824u + (next() >> 2));
      shift[j] = (int32_t)(next() % 63u) - 31; /* -31 .. 31 */
      if ((r & 24u) != 0u) { shift[j] = (int32_t)(next() % 12u) - 10; }
    }
    p.output_offset = (int32_t)(next() % 256u) - 128;
    for (j = 0; j < 4; ++j) {
      const int32_t r = utvm_mul_by_quantized_mul(acc[j], mult[j], shift[j]);
      if ((r > 1073741824) || (r < -1073741824)) {
        p.output_offset = 0; /* the sum would overflow int32 (in the reference too) */
      }
    }
    utvm_dw_s8_store(&p, mult, shift, acc, 4, out);
    for (j = 0; j < 4; ++j) {
      const int32_t want = utvm_mul_by_quantized_mul(acc[j], mult[j], shift[j]) + p.output_offset;
      if ((int8_t)want != out[j]) {
        printf("mismatch acc %ld mult %ld shift %ld offset %ld: ours %d reference %ld\n", (long)acc[j],
               (long)mult[j], (long)shift[j], (long)p.output_offset, out[j], (long)want);
        return 1;
      }
      ++checked;
    }
  }
  (void)utvm_depthwise_conv2d_s8;
  printf("ok %ld\n", checked);
  return 0;
}
"""


def test_depthwise_s8_requantize_matches_common(tmp_path: Path) -> None:
    """utvm_dw_s8_store == utvm_mul_by_quantized_mul + offset (low byte of the unclamped result:
    int8 stores wrap, so every bit that reaches the output is compared) over 12 M triples:
    accumulators over the whole int32 range and its edges, QuantizeMultiplier multipliers
    (0 and [2^30, 2^31)) and shifts -31..31, with UBSan (no signed overflow or bad shift)."""
    need("cc")
    run_kernel_check(tmp_path, REQUANT_TEST, "-O1", timeout=300)
