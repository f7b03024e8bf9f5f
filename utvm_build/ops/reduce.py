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

The rest of the family (reduce.cc, kReference) shares MEAN's geometry:

- SUM: int8 and int16 are QuantizedMeanOrSum with ``compute_sum`` (the MEAN kernels with the
  unfolded multiplier: saturating, requantized to the output), as TFLite Micro computes them;
  tflite-runtime 2.14 runs int8 SUM as QuantizedMeanOrSum<uint8_t> over the int8 bytes (wrong for
  every negative input) and sums int16 without saturation, refusing different scales, so these are
  checked against TFLM's interpreter (docs/operators/nn.md). int32 sums wrap as the reference's ``int``
  arithmetic does in practice; float32 sums in input order;
- REDUCE_MAX / REDUCE_MIN: float32, int8, int16, int32 (quantized: input and output
  quantization must be equal, as EvalType checks); REDUCE_ALL: bool;
- when every input dimension is reduced the reference seeds the output with the first input
  (ReduceAllDims), otherwise with the reduction's initial value (kernels/reduce.h).
"""

from __future__ import annotations

import numpy as np

from ..graph import Graph, Operator, Tensor
from ..quant import dtype_range, quantize_multiplier
from .base import (
    OpHandler,
    dtype_suffix,
    expect_const,
    expect_counts,
    expect_dtype,
    expect_quant,
    expect_scale,
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
        _, x, out = _validate_geometry(op, g, ("int8", "int16", "float32"))
        if x.dtype == "float32":
            return
        expect_scale(op, ((x, "input"), (out, "output")))

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        self.validate(op, g)
        x, out = tensor(g, op, 0), out_tensor(g, op)
        geo = _geometry(op, g)
        common = _walk(geo, x.size)
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


def _validate_geometry(op: Operator, g: Graph, dtypes: tuple[str, ...]) -> tuple[dict, Tensor, Tensor]:
    """The checks every reduction shares: input of one of ``dtypes``, output of the same type,
    constant int32 axes, the output shape; returns (geometry, input, output)."""
    expect_counts(op, 2)
    x, axis, out = tensor(g, op, 0), tensor(g, op, 1, "axis"), out_tensor(g, op)
    expect_dtype(op, x, dtypes, "input")
    expect_dtype(op, out, (x.dtype,), "output")
    expect_dtype(op, axis, ("int32",), "axis")
    expect_const(op, axis, "axis")
    raw, _ = _axes(op, g)
    if x.size == 0:
        raise fail(op, "empty input tensors are not supported")
    geo = _geometry(op, g)
    if len(geo["dims"]) > MAX_RANK:
        raise fail(op, f"the reduction pattern needs {len(geo['dims'])} dimensions; at most {MAX_RANK}")
    if out.size != geo["out_size"]:
        raise fail(op, f"output {list(out.shape)} does not match the reduction of {list(x.shape)} over {raw}")
    return geo, x, out


def _walk(geo: dict, in_size: int) -> dict:
    return {"rank": len(geo["dims"]), "in_dims": _c_array(geo["dims"]), "out_strides": _c_array(geo["strides"]),
            "in_size": in_size, "out_size": geo["out_size"]}


def _reduces_all(op: Operator, g: Graph) -> bool:
    """reduce.cc IsReduceAllDims over the resolved axes (a rank-0 input counts as all)."""
    x = tensor(g, op, 0)
    _, axes = _axes(op, g)
    return len(axes) == len(x.shape)


def _same_quant(op: Operator, g: Graph) -> bool:
    x, out = tensor(g, op, 0), out_tensor(g, op)
    return float(np.float32(x.quant.s)) == float(np.float32(out.quant.s)) and x.quant.zp == out.quant.zp


def _wrap32(v: int) -> int:
    """v as the reference's int64 -> int32 conversion leaves it (two's complement wrap)."""
    return ((int(v) + (1 << 31)) % (1 << 32)) - (1 << 31)


_KIND = {"REDUCE_MAX": 0, "REDUCE_MIN": 1, "SUM": 2, "REDUCE_ALL": 3}


def _reduce_call(op: Operator, g: Graph, geo: dict, dtype: str) -> Prepared:
    """The kernel of reduce.h for REDUCE_MAX / REDUCE_MIN / float32 and int32 SUM."""
    p = Params("utvm_reduce_params", {**_walk(geo, tensor(g, op, 0).size), "kind": _KIND[op.op],
                                      "seed_first": int(_reduces_all(op, g))})
    return Prepared([call(f"utvm_reduce_{dtype_suffix(dtype)}", p, In(0), Out(0))])


@register("REDUCE_MAX", "REDUCE_MIN")
class ReduceMinMax(OpHandler):
    supported = ("float32, int8, int16, int32 (int8/int16: input and output quantization equal); constant axes, "
                 "keep_dims true/false")

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        geo, x, out = _validate_geometry(op, g, ("float32", "int8", "int16", "int32"))
        if x.dtype in ("int8", "int16"):
            expect_quant(op, x, "input")
            expect_quant(op, out, "output")
            if not _same_quant(op, g):
                raise fail(op, "input and output quantization must be equal (scale and zero point)")
        return _reduce_call(op, g, geo, x.dtype)


@register("REDUCE_ALL")
class ReduceAll(OpHandler):
    supported = "bool; constant axes, keep_dims true/false"

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        geo, x, out = _validate_geometry(op, g, ("bool",))
        p = Params("utvm_reduce_params", {**_walk(geo, x.size), "kind": _KIND[op.op], "seed_first": 0})
        return Prepared([call("utvm_reduce_all_b8", p, In(0), Out(0))])


@register("SUM")
class Sum(OpHandler):
    supported = ("float32, int32, int8, int16 (requantized to the output, as TFLite Micro); constant axes, "
                 "keep_dims true/false")

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        geo, x, out = _validate_geometry(op, g, ("float32", "int32", "int8", "int16"))
        if x.dtype in ("float32", "int32"):
            return _reduce_call(op, g, geo, x.dtype)
        for t, role in ((x, "input"), (out, "output")):
            expect_quant(op, t, role)
        count = geo["count"]
        mult, shift = quantize_multiplier(float(_F32(x.quant.s)) / float(_F32(out.quant.s)))
        lo, hi = dtype_range(x.dtype)
        p = Params("utvm_mean_q_params", {
            **_walk(geo, x.size), "sum_offset": _wrap32(-x.quant.zp * count), "multiplier": mult, "shift": shift,
            "output_zero_point": out.quant.zp, "out_min": lo, "out_max": hi})
        return Prepared([call(f"utvm_mean_{dtype_suffix(x.dtype)}", p, In(0), Out(0), Scratch("int32_t"))])
