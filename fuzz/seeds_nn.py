"""Seeds of the reduction, normalization, BATCH_MATMUL and hybrid operators (issue 14): one small
model per (operator, type), made with the test suite's model writer."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from .seeds import _writer

_Q8 = {"scale": 0.05, "zero_point": -3}
_Q16 = {"scale": 0.002, "zero_point": 0}


def _q(dtype: str) -> dict:
    return {"int8": _Q8, "int16": _Q16}.get(dtype, {})


def _reduce(op: str, dtype: str, out_q: dict | None = None) -> bytes:
    mb = _writer().ModelBuilder()
    x = mb.tensor((2, 3, 4), dtype, name="x", **_q(dtype))
    ax = mb.tensor((2,), "int32", name="axis", data=np.array([0, -1], np.int32))
    y = mb.tensor((1, 3, 1), dtype, name="y", **(out_q if out_q is not None else _q(dtype)))
    mb.operator(op, [x, ax], [y], {"keep_dims": True})
    return mb.build([x], [y])


def _arg(op: str, dtype: str, out_dtype: str) -> bytes:
    mb = _writer().ModelBuilder()
    x = mb.tensor((2, 5, 3), dtype, name="x", **_q(dtype))
    ax = mb.tensor((1,), "int32", name="axis", data=np.array([1], np.int32))
    y = mb.tensor((2, 3), out_dtype, name="y")
    mb.operator(op, [x, ax], [y], {"output_type": out_dtype.upper()})
    return mb.build([x], [y])


def _bmm(dtype: str, const_rhs: bool, adj_y: bool) -> bytes:
    mb = _writer().ModelBuilder()
    rng = np.random.default_rng(0)
    x = mb.tensor((2, 3, 4), dtype, name="lhs", **_q(dtype))
    rshape = (5, 4) if adj_y else (4, 5)
    rdtype = "int8" if dtype == "float32" and const_rhs and not adj_y else dtype
    rq = {"scale": 0.02, "zero_point": 0} if rdtype == "int8" and dtype == "float32" else _q(rdtype)
    data = None
    if const_rhs:
        data = rng.integers(-127, 128, rshape)
        if rdtype == "float32":
            data = rng.standard_normal(rshape).astype(np.float32)
    y = mb.tensor(rshape, rdtype, name="rhs", data=data, **rq)
    o = mb.tensor((2, 3, 5), dtype, name="out", **_q(dtype))
    mb.operator("BATCH_MATMUL", [x, y], [o], {"adj_y": adj_y})
    return mb.build([x] if const_rhs else [x, y], [o])


def _hybrid(op: str, asym: bool) -> bytes:
    mb = _writer().ModelBuilder()
    rng = np.random.default_rng(1)
    if op == "FULLY_CONNECTED":
        x = mb.tensor((2, 6), "float32", name="x")
        w = mb.tensor((4, 6), "int8", name="w", data=rng.integers(-127, 128, (4, 6)), scale=0.02, zero_point=0)
        b = mb.tensor((4,), "float32", name="b", data=rng.standard_normal(4).astype(np.float32))
        y = mb.tensor((2, 4), "float32", name="y")
        mb.operator(op, [x, w, b], [y], {"asymmetric_quantize_inputs": asym})
        return mb.build([x], [y])
    dw = op == "DEPTHWISE_CONV_2D"
    wshape = (1, 3, 3, 4) if dw else (4, 3, 3, 2)
    x = mb.tensor((1, 5, 5, 4 if dw else 2), "float32", name="x")
    scales = [0.01, 0.02, 0.03, 0.04] if asym or dw else 0.02
    zps = [0] * 4 if isinstance(scales, list) else 0
    w = mb.tensor(wshape, "int8", name="w", data=rng.integers(-127, 128, wshape), scale=scales, zero_point=zps,
                  quantized_dimension=3 if dw else 0)
    b = mb.tensor((4,), "float32", name="b", data=rng.standard_normal(4).astype(np.float32))
    y = mb.tensor((1, 5, 5, 4), "float32", name="y")
    mb.operator(op, [x, w, b], [y], {"padding": "SAME"})
    return mb.build([x], [y])


def _unary(op: str, dtype: str, shape: tuple[int, ...], qin: dict, qout: dict, options: dict | None = None,
           out_shape: tuple[int, ...] | None = None) -> bytes:
    mb = _writer().ModelBuilder()
    x = mb.tensor(shape, dtype, name="x", **qin)
    y = mb.tensor(out_shape or shape, dtype, name="y", **qout)
    mb.operator(op, [x], [y], options)
    return mb.build([x], [y])


def seeds() -> Iterator[tuple[str, bytes]]:
    for op in ("REDUCE_MAX", "REDUCE_MIN"):
        for d in ("float32", "int8", "int16", "int32"):
            yield f"{op.lower()}_{d}", _reduce(op, d)
    for d in ("float32", "int32", "int8", "int16"):
        yield f"sum_{d}", _reduce("SUM", d)
    yield "sum_int8_requant", _reduce("SUM", "int8", {"scale": 0.2, "zero_point": 5})
    yield "reduce_all_bool", _reduce("REDUCE_ALL", "bool")
    for op in ("ARG_MAX", "ARG_MIN"):
        for d in ("float32", "int8", "int32", "uint8", "bool"):
            yield f"{op.lower()}_{d}", _arg(op, d, "int32" if d != "int32" else "int64")
    for d in ("float32", "int8", "int16"):
        yield f"batch_matmul_{d}", _bmm(d, const_rhs=False, adj_y=True)
        yield f"batch_matmul_{d}_const", _bmm(d, const_rhs=True, adj_y=d == "int16")
    for op in ("FULLY_CONNECTED", "CONV_2D", "DEPTHWISE_CONV_2D"):
        for asym in (False, True):
            yield f"hybrid_{op.lower()}_{'asym' if asym else 'sym'}", _hybrid(op, asym)
    yield "l2_normalization_float32", _unary("L2_NORMALIZATION", "float32", (2, 6), {}, {})
    yield "l2_normalization_int8", _unary("L2_NORMALIZATION", "int8", (2, 6), _Q8, {"scale": 1 / 128, "zero_point": 0})
    yield "l2_pool_2d_float32", _unary("L2_POOL_2D", "float32", (1, 4, 4, 2), {}, {},
                                       {"padding": "VALID", "stride_h": 2, "stride_w": 2, "filter_height": 2,
                                        "filter_width": 2}, (1, 2, 2, 2))
    yield "log_softmax_float32", _unary("LOG_SOFTMAX", "float32", (2, 7), {}, {})
    yield "log_softmax_int8", _unary("LOG_SOFTMAX", "int8", (2, 7), _Q8, {"scale": 16 / 256, "zero_point": 127})
