"""STRIDED_SLICE: int8, int16, int32, float32 (TFLite strided_slice.cc, 2.14 semantics).

All index arithmetic is done here; the kernel gets a base offset, 5 steps and 5 counts.
Steps mirror the reference exactly:
- ``BuildStridedSliceParams`` (strided_slice.cc): ellipsis_mask expands to full-range dimensions,
  new_axis_mask inserts dimensions of size 1 (the "effective input shape"), begin/end/strides
  shorter than the rank leave the trailing dimensions full;
- ``StridedSlicePadIndices`` extends everything to 5-D (leading full dimensions);
- ``StridedSliceStartForAxis`` / ``StridedSliceEndForAxis`` (strided_slice_logic.h): negative
  indices count from the end, then clamp to [0, n] (stride > 0) or [-1, n-1] (stride < 0), masks
  override; shrink_axis takes one element (none if begin >= n); ``offset`` makes end relative to
  begin;
- the output shape TFLite resizes to (``ResizeOutputTensor``: ceil((end-begin)/float(stride)),
  with ``offset``: ceil(end/float(stride))) must equal the model's output shape, and the number of
  elements the reference loop writes must fill it; otherwise the model is rejected.
"""

from __future__ import annotations

import math

import numpy as np

from ..graph import Graph, Operator
from .base import OpHandler, expect_const, expect_counts, expect_dtype, fail, out_tensor, register, tensor
from .call import In, Out, Params, Prepared, call

_DTYPES = ("int8", "int16", "int32", "float32", "bool")   # an element copy of any size
_INT32_MIN, _INT32_MAX = -(1 << 31), (1 << 31) - 1


def _clamp(v: int, lo: int, hi: int) -> int:
    return hi if hi < v else lo if v < lo else v


def _start(start: int, stride: int, begin_masked: bool, n: int) -> int:
    if start < 0:
        start += n
    start = _clamp(start, 0, n) if stride > 0 else _clamp(start, -1, n - 1)
    if begin_masked:
        start = 0 if stride > 0 else n - 1
    return start


def _end(stop: int, stride: int, end_masked: bool, shrink: bool, offset: bool, n: int, start: int) -> int:
    if shrink:
        return start if start >= n else start + 1
    end = stop + start if offset else stop
    if end < 0:
        end += n
    end = _clamp(end, 0, n) if stride > 0 else _clamp(end, -1, n - 1)
    if end_masked:
        end = n if stride > 0 else -1
    return end


def resolve(op: Operator, in_shape: tuple[int, ...], begin: list[int], end: list[int], strides: list[int]):
    """(effective 5-D input shape, starts, strides, counts, TFLite's output shape)."""
    o = op.options
    ell, new_ax = int(o.get("ellipsis_mask", 0)), int(o.get("new_axis_mask", 0))
    bmask, emask, smask = int(o.get("begin_mask", 0)), int(o.get("end_mask", 0)), int(o.get("shrink_axis_mask", 0))
    offset = bool(o.get("offset", False))
    rank, count = len(in_shape), len(begin)
    num_add = sum(1 for i in range(count) if not (ell >> i) & 1 and (new_ax >> i) & 1)
    dims = rank + num_add
    if dims > 5:
        raise fail(op, f"{dims} dimensions including new axes; the reference supports up to 5")
    eff_ell = eff_new = 0
    ell_start, expanded = dims, 0
    i = 0
    while i < dims:
        if (ell >> i) & 1:
            ell_start = i
            ell_end = max(i + 1, min(i + 1 + num_add + rank - count, dims))
            expanded = ell_end - ell_start - 1
            while i < ell_end:
                eff_ell |= 1 << i
                i += 1
            continue
        if (new_ax >> (i - expanded)) & 1:
            eff_new |= 1 << i
        i += 1

    def build(with_indices: bool):
        starts, stops, st, shape = [0] * dims, [0] * dims, [0] * dims, [0] * dims
        bm = em = sm = 0
        added_ell = added_ax = 0
        for i in range(dims):
            if (eff_ell >> i) & 1:
                added_ell = max(0, i - ell_start)
                bm |= 1 << i
                em |= 1 << i
                st[i] = 1
                shape[i] = in_shape[i - added_ax]
            elif (eff_new >> i) & 1:
                starts[i], stops[i], st[i], shape[i] = 0, 1, 1, 1
                added_ax += 1
            elif i >= count + expanded:
                starts[i], stops[i], st[i] = 0, 0, 1
                bm |= 1 << i
                em |= 1 << i
                shape[i] = in_shape[i - added_ax]
            else:
                k = i - added_ell
                if not 0 <= k < count or not 0 <= i - added_ax < rank:
                    raise fail(op, "the begin/end/strides and masks do not describe this input")
                if with_indices:
                    starts[i], stops[i] = begin[k], end[k]
                st[i] = strides[k]
                bm |= ((bmask >> k) & 1) << i
                em |= ((emask >> k) & 1) << i
                sm |= ((smask >> k) & 1) << i
                shape[i] = in_shape[i - added_ax]
        return starts, stops, st, shape, bm, em, sm

    # Output shape as ResizeOutputTensor computes it (start/end indices only without offset).
    starts, stops, st, shape, bm, em, sm = build(not offset)
    if any(s == 0 for s in st):
        raise fail(op, "stride 0 is not allowed")
    out_shape = []
    for i in range(dims - 1, -1, -1):
        if (sm >> i) & 1:
            continue
        if offset:
            if i >= count:
                raise fail(op, "offset=True needs begin/end for every dimension")
            d = end[i]
        else:
            b = _start(starts[i], st[i], bool((bm >> i) & 1), shape[i])
            d = _end(stops[i], st[i], bool((em >> i) & 1), False, False, shape[i], b) - b
        d = math.ceil(float(np.float32(d) / np.float32(st[i])))
        out_shape.append(max(d, 0))
    out_shape.reverse()

    # What the reference loop reads (Eval builds the params with the indices).
    starts, stops, st, shape, bm, em, sm = build(True)
    pad = 5 - dims
    shape5 = [1] * pad + shape
    starts5 = [0] * pad + starts
    stops5 = [1] * pad + stops
    st5 = [1] * pad + st
    bm5 = (bm << pad) | ((1 << pad) - 1)
    em5 = (em << pad) | ((1 << pad) - 1)
    sm5 = sm << pad
    first, counts = [], []
    for a in range(5):
        n = shape5[a]
        s0 = _start(starts5[a], st5[a], bool((bm5 >> a) & 1), n)
        e0 = _end(stops5[a], st5[a], bool((em5 >> a) & 1), bool((sm5 >> a) & 1), offset, n, s0)
        c = 0
        idx = s0
        while not (idx >= e0 if st5[a] > 0 else idx <= e0):
            c += 1
            idx += st5[a]
        # The reference's loop index is an int advanced by the stride once past the last element
        # (and with offset, end = stop + start): beyond int32 its arithmetic is undefined.
        if not _INT32_MIN <= idx <= _INT32_MAX or (offset and not (sm5 >> a) & 1
                                                     and not _INT32_MIN <= stops5[a] + s0 <= _INT32_MAX):
            raise fail(op, f"stride {st5[a]} from index {s0} overflows the reference's int32 index "
                           "arithmetic (strides and ends must keep every index within int32)")
        first.append(s0)
        counts.append(c)
    return shape5, first, st5, counts, out_shape


def _c_array(values) -> list[int]:
    return [int(v) for v in values]


@register("STRIDED_SLICE")
class StridedSlice(OpHandler):
    supported = ("int8, int16, int32, float32, bool; constant begin/end/strides; begin/end/shrink/ellipsis/new_axis "
                 "masks, negative indices and strides, offset")

    def _plan(self, op: Operator, g: Graph):
        x = tensor(g, op, 0)
        vals = []
        for k, role in ((1, "begin"), (2, "end"), (3, "strides")):
            t = tensor(g, op, k, role)
            expect_dtype(op, t, ("int32",), role)
            data = np.asarray(expect_const(op, t, role)).astype(np.int64).ravel()
            if len(t.shape) != 1:
                raise fail(op, f"{role} must be 1-D, got {list(t.shape)}")
            vals.append([int(v) for v in data])
        if len(vals[0]) != len(vals[1]) or len(vals[2]) < len(vals[0]):
            raise fail(op, "begin, end and strides must have the same length")
        return resolve(op, tuple(x.shape), *vals)

    def validate(self, op: Operator, g: Graph) -> None:
        expect_counts(op, 4)
        x, out = tensor(g, op, 0), out_tensor(g, op)
        expect_dtype(op, x, _DTYPES, "input")
        expect_dtype(op, out, (x.dtype,), "output")
        if not 1 <= len(x.shape) <= 5:
            raise fail(op, f"input rank {len(x.shape)} is not supported (1 to 5)")
        _, _, _, counts, out_shape = self._plan(op, g)
        if list(out.shape) != out_shape:
            raise fail(op, f"output shape {list(out.shape)} differs from the reference's {out_shape}")
        if int(np.prod(counts)) != out.size:
            raise fail(op, f"the slice selects {int(np.prod(counts))} elements for an output of {out.size}")

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        self.validate(op, g)
        x, out = tensor(g, op, 0), out_tensor(g, op)
        if out.size == 0:
            return Prepared()
        shape5, first, st5, counts, _ = self._plan(op, g)
        elem_strides = [int(np.prod(shape5[a + 1:], dtype=np.int64)) for a in range(5)]
        base = sum(f * s for f, s in zip(first, elem_strides))
        # A dimension that selects one element never moves by its stride (the reference's loop exits
        # after one step): its step is 0, so a stride of any int32 size stays a C int literal.
        # With two or more elements, |step| * (count - 1) lies within the input: it fits too.
        steps = [st * s if c > 1 else 0 for st, s, c in zip(st5, elem_strides, counts)]
        p = Params("utvm_strided_slice_params", {
            "base": base, "step": _c_array(steps), "count": _c_array(counts),
            "elem_size": np.dtype(x.dtype).itemsize})
        return Prepared([call("utvm_strided_slice", p, In(0), Out(0))])
