"""The type sweep's second half (issue 23): the convolution, pooling, reduction, shape / movement
and softmax families as single-operator models (tests/type_sweep.py holds the first half and the
``Combo`` these candidates use; tests/test_type_sweep.py runs both).

A candidate names every non-constant-index input's type: for the convolutions the input, the
weights and the bias (``CONV_2D int16,int8,int64 -> int16`` is 16x8 with an int64 bias,
``CONV_2D float32,int8,float32 -> float32`` is hybrid); for the other operators the data inputs
(axes, shapes, paddings, begin / size and gather indices are constant int32 tensors, the same in
every candidate). Quantization parameters are fixed per type as in the first half (int8 / uint8
scale 0.05 with a non-zero zero point, int16 scale 0.002 zero point 0); an operator's output takes
the input's parameters except where TFLM prescribes others (softmax family) or where the
operator rescales (convolutions, MEAN / SUM). Shapes are small and fixed per operator.

Left out (not generic single-type operators; their types are tested in the files named in
docs/operators.md): UNIDIRECTIONAL_SEQUENCE_LSTM, SVDF, the signal library, detection
post-processing, the state and control-flow operators (VAR_HANDLE, READ / ASSIGN_VARIABLE,
CALL_ONCE, IF, WHILE), and int4 weights (tests/tflite_writer.py writes no int4 tensors).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from oracle import random_inputs
from tflite_writer import ModelBuilder

TYPES = ("float32", "int8", "uint8", "int16", "int32", "int64", "uint32", "bool")

CONV = ("CONV_2D", "DEPTHWISE_CONV_2D", "TRANSPOSE_CONV", "FULLY_CONNECTED", "BATCH_MATMUL")
POOLING = ("AVERAGE_POOL_2D", "MAX_POOL_2D", "L2_POOL_2D")
REDUCTION = ("MEAN", "SUM", "REDUCE_MAX", "REDUCE_MIN", "REDUCE_PROD", "REDUCE_ANY", "REDUCE_ALL",
             "ARG_MAX", "ARG_MIN")
SHAPE_OPS = ("RESHAPE", "SQUEEZE", "EXPAND_DIMS", "TRANSPOSE", "CONCATENATION", "PACK", "UNPACK", "SPLIT",
             "SPLIT_V", "SLICE", "STRIDED_SLICE", "GATHER", "GATHER_ND", "PAD", "PADV2", "MIRROR_PAD",
             "REVERSE_V2", "BROADCAST_TO", "CUMSUM", "DEPTH_TO_SPACE", "SPACE_TO_DEPTH", "SPACE_TO_BATCH_ND",
             "BATCH_TO_SPACE_ND", "RESIZE_BILINEAR", "RESIZE_NEAREST_NEIGHBOR", "DYNAMIC_UPDATE_SLICE",
             "EMBEDDING_LOOKUP", "SHAPE", "FILL", "BROADCAST_ARGS")
SOFTMAX = ("SOFTMAX", "LOG_SOFTMAX", "L2_NORMALIZATION")
FAMILIES = {"convolution": CONV, "pooling": POOLING, "reduction": REDUCTION, "shape": SHAPE_OPS,
            "softmax": SOFTMAX}

_QUANT = {"int8": (0.05, 3), "uint8": (0.05, 131), "int16": (0.002, 0)}
_CONV_OUT = {"int8": (0.1, -2), "uint8": (0.1, 120), "int16": (0.01, 0)}
_W_QUANT = {"int8": (0.02, 0), "uint8": (0.02, 128), "int16": (0.0005, 0)}
_SOFTMAX_OUT = {("SOFTMAX", "int8", "int8"): (1 / 256, -128), ("SOFTMAX", "int8", "int16"): (1 / 65536, -32768),
                ("SOFTMAX", "int16", "int16"): (1 / 32768, 0), ("SOFTMAX", "uint8", "uint8"): (1 / 256, 0),
                ("LOG_SOFTMAX", "int8", "int8"): (16 / 256, 127), ("LOG_SOFTMAX", "uint8", "uint8"): (16 / 256, 255),
                ("L2_NORMALIZATION", "int8", "int8"): (1 / 128, 0),
                ("L2_NORMALIZATION", "uint8", "uint8"): (1 / 128, 128),
                ("L2_NORMALIZATION", "int16", "int16"): (1 / 32768, 0)}


def _q(dtype: str, override: tuple[float, int] | None = None) -> dict:
    if dtype not in _QUANT:
        return {}
    s, z = override or _QUANT[dtype]
    return {"scale": float(np.float32(s)), "zero_point": int(z)}


def _i32(mb: ModelBuilder, values, shape=None) -> int:
    arr = np.asarray(values, dtype=np.int32)
    return mb.tensor(arr.shape if shape is None else shape, "int32", data=arr.reshape(-1))


def _conv_types() -> list[tuple[str, str, str]]:
    """(input, weights, bias) candidates: weights of the input's type or int8 (hybrid for float32,
    16x8 for int16), bias float32 for float32 inputs, int32 for 8-bit, int64 or int32 for int16."""
    out = [("float32", "float32", "float32"), ("float32", "int8", "float32"), ("int8", "int8", "int32"),
           ("int8", "uint8", "int32"), ("uint8", "uint8", "int32"), ("uint8", "int8", "int32")]
    out += [("int16", w, b) for w in ("int16", "int8") for b in ("int64", "int32")]
    return out


def candidates() -> list:
    from type_sweep import Combo

    out: list[Combo] = []
    for op in CONV[:4]:
        out += [Combo(op, t, t[0]) for t in _conv_types()]
    out += [Combo("BATCH_MATMUL", (t, t), t) for t in TYPES] + [Combo("BATCH_MATMUL", ("float32", "int8"), "float32")]
    for op in POOLING + REDUCTION[:7] + SHAPE_OPS + SOFTMAX:
        for t in TYPES:
            n = 2 if op in ("CONCATENATION", "PACK", "DYNAMIC_UPDATE_SLICE", "BROADCAST_ARGS") else 1
            for o in _outputs(op, t):
                out.append(Combo(op, (t,) * n, o))
    for op in ("ARG_MAX", "ARG_MIN"):
        out += [Combo(op, (t,), o) for t in TYPES for o in ("int32", "int64")]
    return out


def _outputs(op: str, t: str) -> tuple[str, ...]:
    if op == "SHAPE":
        return ("int32", "int64")
    if op == "SOFTMAX" and t == "int8":
        return ("int8", "int16")
    if op == "EMBEDDING_LOOKUP" and t != "float32":
        return (t, "float32")
    return (t,)


# ------------------------------------------------------------------------- models
def _conv(mb: ModelBuilder, c) -> tuple[list[int], list[int]]:
    rng = np.random.default_rng(7)
    t, wt, bt = c.inputs
    op = c.op
    shapes = {"CONV_2D": ((1, 5, 5, 2), (3, 3, 3, 2), (1, 5, 5, 3)),
              "DEPTHWISE_CONV_2D": ((1, 5, 5, 2), (1, 3, 3, 2), (1, 5, 5, 2)),
              "TRANSPOSE_CONV": ((1, 5, 5, 2), (3, 3, 3, 2), (1, 5, 5, 3)),
              "FULLY_CONNECTED": ((2, 6), (3, 6), (2, 3))}[op]
    in_shape, w_shape, out_shape = shapes
    oc = out_shape[-1]
    x = mb.tensor(in_shape, t, name="x", **_q(t))
    if wt == "float32":
        w = mb.tensor(w_shape, wt, data=rng.normal(0, 0.3, w_shape).astype(np.float32), name="w")
        ws = 1.0
    else:
        ws, wz = _W_QUANT[wt]
        info = np.iinfo(wt)
        lo, hi = (-127, 127) if wt == "int8" else (info.min, info.max) if wt == "uint8" else (-32767, 32767)
        w = mb.tensor(w_shape, wt, data=rng.integers(lo, hi, w_shape, endpoint=True).astype(wt), name="w",
                      scale=float(np.float32(ws)), zero_point=wz)
    if bt == "float32":
        b = mb.tensor((oc,), bt, data=rng.normal(0, 0.5, oc).astype(np.float32), name="b")
    else:
        bs = float(np.float32(np.float32(_QUANT[t][0]) * np.float32(ws)))
        b = mb.tensor((oc,), bt, data=rng.integers(-500, 500, oc).astype(bt), name="b", scale=bs, zero_point=0)
    y = mb.tensor(out_shape, c.output, name="y", **({} if c.output == "float32" else _q(c.output, _CONV_OUT[c.output])))
    if op == "TRANSPOSE_CONV":
        mb.operator(op, [_i32(mb, out_shape), w, x, b], [y], {"padding": "SAME", "stride_w": 1, "stride_h": 1})
    elif op == "FULLY_CONNECTED":
        mb.operator(op, [x, w, b], [y], {"fused_activation_function": "NONE"})
    else:
        mb.operator(op, [x, w, b], [y], {"padding": "SAME", "stride_w": 1, "stride_h": 1})
    return [x], [y]


def _batch_matmul(mb: ModelBuilder, c) -> tuple[list[int], list[int]]:
    t, u = c.inputs
    x = mb.tensor((1, 2, 3, 4), t, name="x", **_q(t))
    if u != t:   # hybrid: constant int8 right-hand side
        rng = np.random.default_rng(7)
        w = mb.tensor((1, 2, 4, 5), u, data=rng.integers(-127, 127, (1, 2, 4, 5)).astype(u), name="w",
                      scale=0.02, zero_point=0)
        ins = [x]
    else:
        w = mb.tensor((1, 2, 4, 5), u, name="w", **_q(u))
        ins = [x, w]
    y = mb.tensor((1, 2, 3, 5), c.output, name="y", **_q(c.output, _CONV_OUT.get(c.output)))
    mb.operator("BATCH_MATMUL", [x, w], [y], {"adj_x": False, "adj_y": False})
    return ins, [y]


def _pool(mb: ModelBuilder, c) -> tuple[list[int], list[int]]:
    t = c.inputs[0]
    x = mb.tensor((1, 4, 4, 2), t, name="x", **_q(t))
    y = mb.tensor((1, 2, 2, 2), t, name="y", **_q(t))
    mb.operator(c.op, [x], [y], {"padding": "VALID", "stride_w": 2, "stride_h": 2, "filter_width": 2,
                                 "filter_height": 2, "fused_activation_function": "NONE"})
    return [x], [y]


def _reduce(mb: ModelBuilder, c) -> tuple[list[int], list[int]]:
    t = c.inputs[0]
    x = mb.tensor((2, 3, 4), t, name="x", **_q(t))
    out_q = _q(t, (0.07, -1) if t == "int8" else (0.07, 130) if t == "uint8" else None)
    if c.op in ("ARG_MAX", "ARG_MIN"):
        y = mb.tensor((2, 4), c.output, name="y")
        mb.operator(c.op, [x, _i32(mb, [1])], [y], {"output_type": c.output})
    else:
        y = mb.tensor((2, 4), t, name="y", **(out_q if c.op in ("MEAN", "SUM") else _q(t)))
        mb.operator(c.op, [x, _i32(mb, [1])], [y], {"keep_dims": False})
    return [x], [y]


def _softmax(mb: ModelBuilder, c) -> tuple[list[int], list[int]]:
    t = c.inputs[0]
    x = mb.tensor((2, 5), t, name="x", **_q(t))
    oq = _SOFTMAX_OUT.get((c.op, t, c.output))
    y = mb.tensor((2, 5), c.output, name="y", **(_q(c.output, oq) if oq else _q(c.output)))
    opts = {"beta": 1.0} if c.op == "SOFTMAX" else {"fused_activation_function": "NONE"} \
        if c.op == "L2_NORMALIZATION" else None
    mb.operator(c.op, [x], [y], opts)
    return [x], [y]


def _shape_op(mb: ModelBuilder, c) -> tuple[list[int], list[int]]:  # noqa: C901 - one table of small cases
    op, t = c.op, c.inputs[0]
    q = _q(t)

    def data(shape, name="x") -> int:
        return mb.tensor(shape, t, name=name, **q)

    def out(shape, name="y", dtype=None) -> int:
        d = dtype or t
        return mb.tensor(shape, d, name=name, **(_q(d) if d == t else {}))

    if op in ("CONCATENATION", "PACK"):
        a, b = data((2, 3, 4), "a"), data((2, 3, 4), "b")
        if op == "CONCATENATION":
            y = out((2, 6, 4))
            mb.operator(op, [a, b], [y], {"axis": 1, "fused_activation_function": "NONE"})
        else:
            y = out((2, 2, 3, 4))
            mb.operator(op, [a, b], [y], {"values_count": 2, "axis": 0})
        return [a, b], [y]
    if op == "DYNAMIC_UPDATE_SLICE":
        a, u = data((2, 3, 4), "a"), data((1, 2, 2), "u")
        y = out((2, 3, 4))
        mb.operator(op, [a, u, _i32(mb, [1, 1, 1])], [y])
        return [a, u], [y]
    if op == "BROADCAST_ARGS":
        a, b = mb.tensor((2,), t, name="a"), mb.tensor((2,), t, name="b")
        y = mb.tensor((2,), t, name="y")
        mb.operator(op, [a, b], [y])
        return [a, b], [y]
    if op == "FILL":
        v = data((), "v")
        y = out((2, 3))
        mb.operator(op, [_i32(mb, [2, 3]), v], [y])
        return [v], [y]
    if op == "EMBEDDING_LOOKUP":
        v = data((3, 4), "v")
        y = out((2, 4), dtype=c.output)
        mb.operator(op, [_i32(mb, [2, 0]), v], [y])
        return [v], [y]
    four_d = {"DEPTH_TO_SPACE": ((1, 2, 2, 4), (1, 4, 4, 1)), "SPACE_TO_DEPTH": ((1, 4, 4, 1), (1, 2, 2, 4)),
              "SPACE_TO_BATCH_ND": ((1, 4, 4, 1), (4, 2, 2, 1)), "BATCH_TO_SPACE_ND": ((4, 2, 2, 1), (1, 4, 4, 1)),
              "RESIZE_BILINEAR": ((1, 2, 3, 2), (1, 4, 6, 2)), "RESIZE_NEAREST_NEIGHBOR": ((1, 2, 3, 2), (1, 4, 6, 2)),
              "BROADCAST_TO": ((1, 3, 4), (2, 3, 4)), "SQUEEZE": ((2, 1, 4), (2, 4))}
    in_shape, out_shape = four_d.get(op, ((2, 3, 4), None))
    x = data(in_shape)
    ys: list[int]
    extra: list[int] = []
    opts: dict | None = None
    if op == "RESHAPE":
        out_shape, extra, opts = (4, 6), [_i32(mb, [4, 6])], {"new_shape": [4, 6]}
    elif op == "SQUEEZE":
        opts = {"squeeze_dims": [1]}
    elif op == "EXPAND_DIMS":
        out_shape, extra = (1, 2, 3, 4), [_i32(mb, [0])]
    elif op == "TRANSPOSE":
        out_shape, extra = (4, 2, 3), [_i32(mb, [2, 0, 1])]
    elif op == "SLICE":
        out_shape, extra = (2, 2, 2), [_i32(mb, [0, 1, 1]), _i32(mb, [2, 2, 2])]
    elif op == "STRIDED_SLICE":
        out_shape, extra = (2, 2, 2), [_i32(mb, [0, 0, 0]), _i32(mb, [2, 3, 4]), _i32(mb, [1, 2, 2])]
        opts = {}
    elif op == "GATHER":
        out_shape, extra, opts = (2, 2, 4), [_i32(mb, [2, 0])], {"axis": 1, "batch_dims": 0}
    elif op == "GATHER_ND":
        out_shape, extra = (2, 3, 4), [_i32(mb, [[1], [0]])]
    elif op in ("PAD", "PADV2", "MIRROR_PAD"):
        out_shape, extra = (2, 5, 5), [_i32(mb, [[0, 0], [1, 1], [0, 1]])]
        if op == "PADV2":
            extra.append(mb.tensor((1,), t, data=np.zeros(1, np.dtype(t if t != "bool" else np.bool_)), **q))
        if op == "MIRROR_PAD":
            opts = {"mode": "REFLECT"}
    elif op == "REVERSE_V2":
        out_shape, extra = (2, 3, 4), [_i32(mb, [1])]
    elif op == "BROADCAST_TO":
        extra = [_i32(mb, [2, 3, 4])]
    elif op == "CUMSUM":
        out_shape, extra, opts = (2, 3, 4), [mb.tensor((), "int32", data=np.array(1, np.int32))], \
            {"exclusive": False, "reverse": False}
    elif op in ("DEPTH_TO_SPACE", "SPACE_TO_DEPTH"):
        opts = {"block_size": 2}
    elif op == "SPACE_TO_BATCH_ND":
        extra = [_i32(mb, [2, 2]), _i32(mb, [[0, 0], [0, 0]])]
    elif op == "BATCH_TO_SPACE_ND":
        extra = [_i32(mb, [2, 2]), _i32(mb, [[0, 0], [0, 0]])]
    elif op in ("RESIZE_BILINEAR", "RESIZE_NEAREST_NEIGHBOR"):
        extra, opts = [_i32(mb, [4, 6])], {"align_corners": False, "half_pixel_centers": False}
    elif op == "SHAPE":
        y = mb.tensor((3,), c.output, name="y")
        mb.operator(op, [x], [y], {"out_type": c.output})
        return [x], [y]
    if op == "SPLIT":
        ys = [out((2, 3, 2), "y0"), out((2, 3, 2), "y1")]
        mb.operator(op, [mb.tensor((), "int32", data=np.array(2, np.int32)), x], ys, {"num_splits": 2})
        return [x], ys
    if op == "SPLIT_V":
        ys = [out((2, 3, 1), "y0"), out((2, 3, 3), "y1")]
        mb.operator(op, [x, _i32(mb, [1, 3]), mb.tensor((), "int32", data=np.array(2, np.int32))], ys,
                    {"num_splits": 2})
        return [x], ys
    if op == "UNPACK":
        ys = [out((3, 4), "y0"), out((3, 4), "y1")]
        mb.operator(op, [x], ys, {"num": 2, "axis": 0})
        return [x], ys
    y = out(out_shape)
    mb.operator(op, [x, *extra], [y], opts)
    return [x], [y]


_BUILDERS: dict[str, Callable] = {**{op: _conv for op in CONV[:4]}, "BATCH_MATMUL": _batch_matmul,
                                  **{op: _pool for op in POOLING}, **{op: _reduce for op in REDUCTION},
                                  **{op: _shape_op for op in SHAPE_OPS}, **{op: _softmax for op in SOFTMAX}}

BUILT = frozenset(_BUILDERS)


def model(c) -> bytes:
    mb = ModelBuilder(f"type sweep {c.key}")
    ins, outs = _BUILDERS[c.op](mb, c)
    return mb.build(ins, outs)


def inputs(c, m: bytes, seed: int) -> list[np.ndarray]:
    """Seeded inputs over each type's whole range (float32 in [-1, 1)), except where the
    reference kernels' arithmetic would overflow (wrap-around is undefined in C and C++):
    32 / 64-bit sums and products get small values, BROADCAST_ARGS gets broadcastable shapes."""
    xs = random_inputs(m, seed)
    if c.op == "BROADCAST_ARGS":
        return [np.array([1, 4]).astype(xs[0].dtype), np.array([3, 1]).astype(xs[1].dtype)]
    wide = ("int32", "int64", "uint32")
    if c.op in ("SUM", "MEAN", "CUMSUM", "BATCH_MATMUL") and c.inputs[0] in wide:
        xs = [(x // 65536 if x.dtype != np.uint32 else x // 131072).astype(x.dtype) for x in xs]
    if c.op == "REDUCE_PROD" and c.inputs[0] in wide:
        xs = [(x % 7).astype(x.dtype) for x in xs]
    return xs
