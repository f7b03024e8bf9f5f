"""MEAN: int8, int16 (zero points 0), float32; any axes, keep_dims (TFLite reference semantics).

tflite-runtime 2.14's reduce.cc EvalMean with kReference sends int8 and int16 to the integer
reference_ops::QuantizedMeanOrSum for every axis set (older TFLite versions special-cased 4-D
keep_dims means over axes {1, 2} and equal input/output quantization, and had a float32
requantization; their results differ by one in many cases; the oracle confirms the integer path):

- PrepareMeanOrSum: ``QuantizeMultiplier(double(input_scale) / double(output_scale))``;
- the divide by the element count is folded into the multiplier:
  ``shift = min(63 - clz64(count), 32, 31 + shift_q)``,
  ``multiplier = (int64(multiplier_q) << shift) / count``, ``shift_q -= shift``;
- ``out = clamp(MultiplyByQuantizedMultiplier(sum - zp_in * count) + zp_out)``.

float32 sums every output's inputs in input order and divides by the count (MeanGeneral and the
4-D special case agree). Duplicate axes count once; negative axes are resolved.
"""

from __future__ import annotations

import numpy as np

from ..graph import Graph, Operator
from ..quant import dtype_range, quantize_multiplier
from .base import (
    OpHandler,
    dtype_suffix,
    expect_const,
    expect_counts,
    expect_dtype,
    expect_quant,
    fail,
    out_tensor,
    register,
    tensor,
)
from .call import In, Out, Params, Prepared, Scratch, call

_F32 = np.float32
MAX_RANK = 6


def _axes(op: Operator, g: Graph) -> tuple[list[int], list[int]]:
    """(raw axis values, resolved sorted unique axes)."""
    x, axis = tensor(g, op, 0), tensor(g, op, 1, "axis")
    raw = [int(a) for a in np.asarray(axis.data).ravel()]
    rank = len(x.shape)
    resolved = set()
    for a in raw:
        r = a + rank if a < 0 else a
        if not 0 <= r < rank:
            raise fail(op, f"axis {a} is out of range for a rank-{rank} input")
        resolved.add(r)
    return raw, sorted(resolved)


def _geometry(op: Operator, g: Graph) -> dict:
    """Input dims with adjacent dims of the same kind merged, output strides (0 on reduced dims)."""
    x = tensor(g, op, 0)
    _, axes = _axes(op, g)
    dims: list[list] = []   # [size, reduced]
    for d, n in enumerate(x.shape):
        red = d in axes
        if dims and dims[-1][1] == red:
            dims[-1][0] *= n
        else:
            dims.append([n, red])
    if not dims:
        dims = [[1, False]]
    strides = [0] * len(dims)
    s = 1
    for i in range(len(dims) - 1, -1, -1):
        if not dims[i][1]:
            strides[i] = s
            s *= dims[i][0]
    count = int(np.prod([x.shape[a] for a in axes], dtype=np.int64)) if axes else 1
    return {"dims": [d[0] for d in dims], "strides": strides, "out_size": s, "count": count}


def _c_array(values: list[int]) -> list[int]:
    """A MAX_RANK-long array field (unused trailing dims 0)."""
    return [int(v) for v in values] + [0] * (MAX_RANK - len(values))


@register("MEAN")
class Mean(OpHandler):
    supported = "int8, int16 (zero points 0), float32; constant axes, keep_dims true/false"

    def validate(self, op: Operator, g: Graph) -> None:
        expect_counts(op, 2)
        x, axis, out = tensor(g, op, 0), tensor(g, op, 1, "axis"), out_tensor(g, op)
        expect_dtype(op, x, ("int8", "int16", "float32"), "input")
        expect_dtype(op, out, (x.dtype,), "output")
        expect_dtype(op, axis, ("int32",), "axis")
        expect_const(op, axis, "axis")
        raw, axes = _axes(op, g)
        if x.size == 0:
            raise fail(op, "empty input tensors are not supported")
        geo = _geometry(op, g)
        if len(geo["dims"]) > MAX_RANK:
            raise fail(op, f"the reduction pattern needs {len(geo['dims'])} dimensions; at most {MAX_RANK}")
        if out.size != geo["out_size"]:
            raise fail(op, f"output {list(out.shape)} does not match the reduction of {list(x.shape)} over {raw}")
        if x.dtype == "float32":
            return
        for t, role in ((x, "input"), (out, "output")):
            expect_quant(op, t, role)
            if not t.quant.s > 0:
                raise fail(op, f"{role} scale must be positive")
        if x.dtype == "int16" and (x.quant.zp or out.quant.zp):
            raise fail(op, "int16 tensors must have zero point 0")

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        self.validate(op, g)
        x, out = tensor(g, op, 0), out_tensor(g, op)
        geo = _geometry(op, g)
        common = {"rank": len(geo["dims"]), "in_dims": _c_array(geo["dims"]),
                  "out_strides": _c_array(geo["strides"]), "in_size": x.size, "out_size": geo["out_size"]}
        sfx = dtype_suffix(x.dtype)
        if x.dtype == "float32":
            p = Params("utvm_mean_f32_params", {**common, "count": geo["count"]})
            return Prepared([call("utvm_mean_f32", p, In(0), Out(0))])
        count = geo["count"]
        mult, shift = quantize_multiplier(float(_F32(x.quant.s)) / float(_F32(out.quant.s)))
        fold = min(63 - (64 - count.bit_length()), 32, 31 + shift)
        if fold < 0 or mult == 0:
            raise fail(op, "the input/output scale ratio is too small")
        mult = (mult << fold) // count
        shift -= fold
        lo, hi = dtype_range(x.dtype)
        p = Params("utvm_mean_q_params", {
            **common, "sum_offset": -x.quant.zp * count, "multiplier": mult, "shift": shift,
            "output_zero_point": out.quant.zp, "out_min": lo, "out_max": hi})
        return Prepared([call(f"utvm_mean_{sfx}", p, In(0), Out(0), Scratch("int32_t"))])
