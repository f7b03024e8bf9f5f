"""The seed corpus: small models of every supported operator and dtype, made with the test
suite's model writer, plus the bundled example model and, when present, ../shared/models."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
SHARED_MODELS = ROOT.parent / "shared" / "models"
EXAMPLE_MODELS = ROOT / "examples" / "models"


def _writer():  # noqa: ANN202 - the module, imported from tests/ on demand
    tests = str(ROOT / "tests")
    if tests not in sys.path:
        sys.path.insert(0, tests)
    import tflite_writer

    return tflite_writer


Q = {"int8": dict(scale=0.05, zero_point=-3), "int16": dict(scale=0.002, zero_point=0),
     "float32": {}, "int32": dict(scale=0.1, zero_point=0), "uint8": dict(scale=0.05, zero_point=125)}


def _q(dtype: str, **over: float) -> dict:
    return {**Q[dtype], **over}


def _unary(op: str, dtype: str, shape: tuple[int, ...] = (1, 2, 3, 4), qin: dict | None = None,
           qout: dict | None = None, options: dict | None = None, out_dtype: str | None = None) -> bytes:
    mb = _writer().ModelBuilder()
    od = out_dtype or dtype
    x = mb.tensor(shape, dtype, name="x", **(qin if qin is not None else _q(dtype)))
    y = mb.tensor(shape, od, name="y", **(qout if qout is not None else _q(od)))
    mb.operator(op, [x], [y], options)
    return mb.build([x], [y])


def _binary(op: str, dtype: str, broadcast: bool, act: str) -> bytes:
    mb = _writer().ModelBuilder()
    a = mb.tensor((1, 2, 3, 4), dtype, name="a", **_q(dtype))
    b = mb.tensor((1, 1, 3, 1) if broadcast else (1, 2, 3, 4), dtype, name="b", **_q(dtype, scale=0.07 if
                                                                                         dtype == "int8" else 0.003))
    y = mb.tensor((1, 2, 3, 4), dtype, name="y", **_q(dtype, scale=0.11 if dtype == "int8" else 0.004))
    mb.operator(op, [a, b], [y], {"fused_activation_function": act})
    return mb.build([a, b], [y])


def _conv(op: str, dtype: str, per_channel: bool, rng: np.random.Generator, padding: str = "SAME",
          stride: int = 1, dilation: int = 1) -> bytes:
    w_mod = _writer()
    mb = w_mod.ModelBuilder()
    ic, oc = (3, 3) if op == "DEPTHWISE_CONV_2D" else (3, 5)
    x = mb.tensor((1, 6, 5, ic), dtype, name="x", **_q(dtype))
    wshape = (1, 3, 3, oc) if op == "DEPTHWISE_CONV_2D" else (oc, 3, 3, ic)
    if dtype == "float32":
        w = mb.tensor(wshape, "float32", data=rng.uniform(-1, 1, wshape).astype(np.float32))
        b = mb.tensor((oc,), "float32", data=rng.uniform(-1, 1, oc).astype(np.float32))
    else:
        ws = rng.uniform(0.005, 0.02, oc) if per_channel else 0.01
        w = mb.tensor(wshape, "int8", data=rng.integers(-127, 128, wshape), scale=ws, zero_point=0,
                      quantized_dimension=3 if op == "DEPTHWISE_CONV_2D" else 0)
        bdt = "int32" if dtype == "int8" else "int64"
        b = mb.tensor((oc,), bdt, data=rng.integers(-1000, 1000, oc), scale=0.0005, zero_point=0)
    oh = 6 if padding == "SAME" else 6 - 2 * dilation
    ow = 5 if padding == "SAME" else 5 - 2 * dilation
    oh, ow = -(-oh // stride), -(-ow // stride)
    y = mb.tensor((1, oh, ow, oc), dtype, name="y", **_q(dtype, scale=0.3 if dtype == "int8" else 0.01))
    opts = {"padding": padding, "stride_w": stride, "stride_h": stride, "dilation_w_factor": dilation,
            "dilation_h_factor": dilation, "fused_activation_function": "RELU6"}
    mb.operator(op, [x, w, b], [y], opts)
    return mb.build([x], [y])


def _fc(dtype: str, per_channel: bool, rng: np.random.Generator) -> bytes:
    mb = _writer().ModelBuilder()
    x = mb.tensor((2, 7), dtype, name="x", **_q(dtype))
    if dtype == "float32":
        w = mb.tensor((5, 7), "float32", data=rng.uniform(-1, 1, (5, 7)).astype(np.float32))
        b = mb.tensor((5,), "float32", data=rng.uniform(-1, 1, 5).astype(np.float32))
    else:
        w = mb.tensor((5, 7), "int8", data=rng.integers(-127, 128, (5, 7)),
                      scale=rng.uniform(0.005, 0.02, 5) if per_channel else 0.01, zero_point=0)
        bdt = "int32" if dtype == "int8" else "int64"
        b = mb.tensor((5,), bdt, data=rng.integers(-1000, 1000, 5), scale=0.0005, zero_point=0)
    y = mb.tensor((2, 5), dtype, name="y", **_q(dtype, scale=0.2 if dtype == "int8" else 0.01))
    mb.operator("FULLY_CONNECTED", [x, w, b], [y], {"fused_activation_function": "RELU"})
    return mb.build([x], [y])


def _pool(op: str, dtype: str) -> bytes:
    mb = _writer().ModelBuilder()
    x = mb.tensor((1, 5, 5, 2), dtype, name="x", **_q(dtype))
    y = mb.tensor((1, 3, 3, 2), dtype, name="y", **_q(dtype))
    mb.operator(op, [x], [y], {"padding": "SAME", "stride_w": 2, "stride_h": 2, "filter_width": 2,
                               "filter_height": 3})
    return mb.build([x], [y])


def _softmax(dtype: str, out_dtype: str) -> bytes:
    qout = {"int8": dict(scale=1 / 256, zero_point=-128), "int16": dict(scale=1 / 32768, zero_point=0),
            "float32": {}}[out_dtype]
    if dtype == "int8" and out_dtype == "int16":
        qout = dict(scale=1 / 65536, zero_point=-32768)
    return _unary("SOFTMAX", dtype, (2, 6), qout=qout, options={"beta": 1.0}, out_dtype=out_dtype)


def _logistic_tanh(op: str, dtype: str) -> bytes:
    qout = {"int8": dict(scale=1 / 256, zero_point=-128) if op == "LOGISTIC" else dict(scale=1 / 128, zero_point=0),
            "int16": dict(scale=1 / 32768, zero_point=0), "float32": {}}[dtype]
    return _unary(op, dtype, qout=qout)


def _concat(dtype: str) -> bytes:
    mb = _writer().ModelBuilder()
    a = mb.tensor((1, 2, 3), dtype, name="a", **_q(dtype))
    b = mb.tensor((1, 2, 2), dtype, name="b", **_q(dtype))
    y = mb.tensor((1, 2, 5), dtype, name="y", **_q(dtype))
    mb.operator("CONCATENATION", [a, b], [y], {"axis": 2})
    return mb.build([a, b], [y])


def _pad(op: str, dtype: str) -> bytes:
    mb = _writer().ModelBuilder()
    x = mb.tensor((1, 2, 3, 2), dtype, name="x", **_q(dtype))
    p = mb.tensor((4, 2), "int32", data=np.array([[0, 0], [1, 2], [0, 1], [0, 0]]))
    y = mb.tensor((1, 5, 4, 2), dtype, name="y", **_q(dtype))
    ins = [x, p]
    if op == "PADV2":
        cv = (np.array([0.5], np.float32) if dtype == "float32" else np.array([7]))
        ins.append(mb.tensor((1,), dtype, data=cv, **_q(dtype)))
    mb.operator(op, ins, [y])
    return mb.build([x], [y])


def _mean(dtype: str, keep_dims: bool) -> bytes:
    mb = _writer().ModelBuilder()
    q = _q(dtype, zero_point=0) if dtype == "int16" else _q(dtype)
    x = mb.tensor((1, 4, 3, 2), dtype, name="x", **q)
    ax = mb.tensor((2,), "int32", data=np.array([1, 2]))
    y = mb.tensor((1, 1, 1, 2) if keep_dims else (1, 2), dtype, name="y", **q)
    mb.operator("MEAN", [x, ax], [y], {"keep_dims": keep_dims})
    return mb.build([x], [y])


def _strided_slice(dtype: str) -> bytes:
    mb = _writer().ModelBuilder()
    x = mb.tensor((2, 5, 4), dtype, name="x", **_q(dtype))
    b = mb.tensor((3,), "int32", data=np.array([0, 4, 1]))
    e = mb.tensor((3,), "int32", data=np.array([2, 0, 4]))
    s = mb.tensor((3,), "int32", data=np.array([1, -2, 2]))
    y = mb.tensor((2, 2, 2), dtype, name="y", **_q(dtype))
    mb.operator("STRIDED_SLICE", [x, b, e, s], [y], {})
    return mb.build([x], [y])


def _reshape(op: str, dtype: str) -> bytes:
    mb = _writer().ModelBuilder()
    x = mb.tensor((1, 3, 1, 4), dtype, name="x", **_q(dtype))
    y = mb.tensor((3, 4), dtype, name="y", **_q(dtype))
    h = mb.tensor((4,), "int32", data=np.array([3, 3, 3, 3]), scale=0.1, zero_point=0)  # extra consumer keeps y live
    z = mb.tensor((3, 4), dtype, name="z", **_q(dtype))
    if op == "RESHAPE":
        s = mb.tensor((2,), "int32", data=np.array([3, 4]))
        mb.operator("RESHAPE", [x, s], [y], {"new_shape": [3, 4]})
    else:
        mb.operator("SQUEEZE", [x], [y], {"squeeze_dims": [0, 2]})
    del h
    mb.operator("RELU" if dtype != "int32" else "ADD", [y] if dtype != "int32" else [y, y], [z])
    return mb.build([x], [z])


def _quantize(src: str, dst: str) -> bytes:
    qin = {} if src == "float32" else _q(src)
    qout = {} if dst == "float32" else _q(dst, scale=0.04)
    return _unary("DEQUANTIZE" if dst == "float32" else "QUANTIZE", src, (2, 5), qin=qin, qout=qout, out_dtype=dst)


def _svdf(dtype: str, state: str, rng: np.random.Generator) -> bytes:
    mb = _writer().ModelBuilder()
    n_in, filters, mem, rank = 4, 6, 3, 2
    units = filters // rank
    if dtype == "float32":
        wf = mb.tensor((filters, n_in), "float32", data=rng.standard_normal((filters, n_in)).astype(np.float32))
        wt = mb.tensor((filters, mem), "float32", data=rng.standard_normal((filters, mem)).astype(np.float32))
        b = mb.tensor((units,), "float32", data=rng.standard_normal(units).astype(np.float32))
        st = mb.tensor((1, mem * filters), "float32", is_variable=True)
        x, y = mb.tensor((1, n_in), "float32", name="x"), mb.tensor((1, units), "float32", name="y")
    else:
        tmax = 32767 if state == "int16" else 127
        wf = mb.tensor((filters, n_in), "int8", data=rng.integers(-127, 128, (filters, n_in)), scale=0.01,
                       zero_point=0)
        wt = mb.tensor((filters, mem), state, data=rng.integers(-tmax, tmax + 1, (filters, mem)),
                       scale=0.0001 if state == "int16" else 0.01, zero_point=0)
        b = mb.tensor((units,), "int32", data=rng.integers(-3000, 3000, units), scale=0.0001, zero_point=0)
        st = mb.tensor((1, mem * filters), state, scale=0.001 if state == "int16" else 0.05,
                       zero_point=0 if state == "int16" else 2, is_variable=True)
        x = mb.tensor((1, n_in), "int8", name="x", scale=0.05, zero_point=1)
        y = mb.tensor((1, units), "int8", name="y", scale=0.1, zero_point=-2)
    mb.operator("SVDF", [x, wf, wt, b, st], [y], {"rank": rank, "fused_activation_function": "RELU"})
    return mb.build([x], [y])


def _transpose_conv(dtype: str, rng: np.random.Generator) -> bytes:
    mb = _writer().ModelBuilder()
    n, h, w, ic, oc = 1, 3, 3, 2, 3
    out_shape = (n, 6, 6, oc)
    s = mb.tensor((4,), "int32", data=np.array(out_shape))
    if dtype == "float32":
        wt = mb.tensor((oc, 3, 3, ic), "float32", data=rng.uniform(-1, 1, (oc, 3, 3, ic)).astype(np.float32))
        b = mb.tensor((oc,), "float32", data=rng.uniform(-1, 1, oc).astype(np.float32))
    else:
        wt = mb.tensor((oc, 3, 3, ic), "int8", data=rng.integers(-127, 128, (oc, 3, 3, ic)),
                       scale=rng.uniform(0.005, 0.02, oc), zero_point=0)
        b = mb.tensor((oc,), "int32" if dtype == "int8" else "int64", data=rng.integers(-500, 500, oc),
                      scale=0.0005, zero_point=0)
    x = mb.tensor((n, h, w, ic), dtype, name="x", **_q(dtype))
    y = mb.tensor(out_shape, dtype, name="y", **_q(dtype, scale=0.2 if dtype == "int8" else 0.01))
    mb.operator("TRANSPOSE_CONV", [s, wt, x, b], [y], {"padding": "SAME", "stride_w": 2, "stride_h": 2})
    return mb.build([x], [y])


def _chain(rng: np.random.Generator) -> bytes:
    """A small multi-operator int8 model: conv -> pool -> reshape -> fc -> softmax."""
    mb = _writer().ModelBuilder()
    x = mb.tensor((1, 4, 4, 1), "int8", name="input", scale=0.02, zero_point=-128)
    w = mb.tensor((2, 3, 3, 1), "int8", data=rng.integers(-127, 128, (2, 3, 3, 1)), scale=[0.01, 0.02],
                  zero_point=0)
    b = mb.tensor((2,), "int32", data=rng.integers(-100, 100, 2), scale=[0.0002, 0.0004], zero_point=0)
    c = mb.tensor((1, 4, 4, 2), "int8", name="conv", scale=0.05, zero_point=-128)
    mb.operator("CONV_2D", [x, w, b], [c], {"padding": "SAME", "fused_activation_function": "RELU"})
    p = mb.tensor((1, 2, 2, 2), "int8", name="pool", scale=0.05, zero_point=-128)
    mb.operator("MAX_POOL_2D", [c], [p], {"padding": "VALID", "stride_w": 2, "stride_h": 2, "filter_width": 2,
                                          "filter_height": 2})
    r = mb.tensor((1, 8), "int8", name="flat", scale=0.05, zero_point=-128)
    rs = mb.tensor((2,), "int32", data=np.array([1, 8]))
    mb.operator("RESHAPE", [p, rs], [r], {"new_shape": [1, 8]})
    fw = mb.tensor((3, 8), "int8", data=rng.integers(-127, 128, (3, 8)), scale=0.02, zero_point=0)
    f = mb.tensor((1, 3), "int8", name="logits", scale=0.1, zero_point=5)
    mb.operator("FULLY_CONNECTED", [r, fw, -1], [f])
    s = mb.tensor((1, 3), "int8", name="probs", scale=1 / 256, zero_point=-128)
    mb.operator("SOFTMAX", [f], [s], {"beta": 1.0})
    return mb.build([x], [s])


def generated_seeds() -> Iterator[tuple[str, bytes]]:
    """(name, model) pairs covering every supported operator and its dtypes."""
    rng = np.random.default_rng(20261125)
    makers: list[tuple[str, Callable[[], bytes]]] = []
    for dt in ("int8", "int16", "float32"):
        for op in ("RELU", "RELU6"):
            makers.append((f"{op.lower()}_{dt}", lambda op=op, dt=dt: _unary(op, dt)))
        makers.append((f"leaky_relu_{dt}", lambda dt=dt: _unary("LEAKY_RELU", dt, options={"alpha": 0.2})))
        for op in ("ADD", "SUB", "MUL"):
            makers.append((f"{op.lower()}_{dt}", lambda op=op, dt=dt: _binary(op, dt, False, "NONE")))
            makers.append((f"{op.lower()}_{dt}_bcast", lambda op=op, dt=dt: _binary(op, dt, True, "RELU")))
        for op in ("CONV_2D", "DEPTHWISE_CONV_2D"):
            makers.append((f"{op.lower()}_{dt}", lambda op=op, dt=dt: _conv(op, dt, False, rng)))
            makers.append((f"{op.lower()}_{dt}_pc_valid_s2",
                           lambda op=op, dt=dt: _conv(op, dt, dt != "float32", rng, "VALID", 2)))
            makers.append((f"{op.lower()}_{dt}_dil", lambda op=op, dt=dt: _conv(op, dt, dt != "float32", rng,
                                                                              "VALID", 1, 2)))
        makers.append((f"fc_{dt}", lambda dt=dt: _fc(dt, False, rng)))
        makers.append((f"fc_{dt}_pc", lambda dt=dt: _fc(dt, dt != "float32", rng)))
        for op in ("AVERAGE_POOL_2D", "MAX_POOL_2D"):
            makers.append((f"{op.lower()}_{dt}", lambda op=op, dt=dt: _pool(op, dt)))
        makers.append((f"softmax_{dt}", lambda dt=dt: _softmax(dt, dt)))
        for op in ("LOGISTIC", "TANH"):
            makers.append((f"{op.lower()}_{dt}", lambda op=op, dt=dt: _logistic_tanh(op, dt)))
        makers.append((f"concat_{dt}", lambda dt=dt: _concat(dt)))
        for op in ("PAD", "PADV2"):
            makers.append((f"{op.lower()}_{dt}", lambda op=op, dt=dt: _pad(op, dt)))
        makers.append((f"mean_{dt}", lambda dt=dt: _mean(dt, True)))
        makers.append((f"mean_{dt}_flat", lambda dt=dt: _mean(dt, False)))
        makers.append((f"strided_slice_{dt}", lambda dt=dt: _strided_slice(dt)))
        for op in ("RESHAPE", "SQUEEZE"):
            makers.append((f"{op.lower()}_{dt}", lambda op=op, dt=dt: _reshape(op, dt)))
        makers.append((f"transpose_conv_{dt}", lambda dt=dt: _transpose_conv(dt, rng)))
    makers += [("softmax_int8_int16", lambda: _softmax("int8", "int16")),
               ("svdf_float32", lambda: _svdf("float32", "float32", rng)),
               ("svdf_int8_int16", lambda: _svdf("int8", "int16", rng)),
               ("svdf_int8_int8", lambda: _svdf("int8", "int8", rng)),
               ("chain_int8", lambda: _chain(rng))]
    for src, dst in (("float32", "int8"), ("float32", "int16"), ("int8", "int8"), ("int16", "int8"),
                     ("int16", "int16"), ("int16", "int32"), ("int32", "int8"), ("int8", "float32"),
                     ("int16", "float32"), ("int8", "uint8"), ("uint8", "int8"), ("int8", "int16"),
                     ("int8", "int32"), ("uint8", "float32")):
        makers.append((f"quantize_{src}_{dst}", lambda src=src, dst=dst: _quantize(src, dst)))
    for name, make in makers:
        yield name, make()
    yield from _area_seeds()


def _area_seeds() -> Iterator[tuple[str, bytes]]:
    """Seeds of the other operator families: every ``fuzz/seeds_<area>.py`` defines
    ``seeds() -> Iterator[(name, model bytes)]`` (one file per family, so adding operators
    touches no shared list)."""
    import importlib
    import pkgutil

    pkg = Path(__file__).resolve().parent
    for info in sorted(pkgutil.iter_modules([str(pkg)]), key=lambda m: m.name):
        if info.name.startswith("seeds_"):
            module = importlib.import_module(f"fuzz.{info.name}")
            yield from module.seeds()


def file_seeds(include_shared: bool = True, max_bytes: int = 200_000) -> Iterator[tuple[str, bytes]]:
    """The bundled example models and, when present, the shared reference models."""
    roots = [EXAMPLE_MODELS] + ([SHARED_MODELS] if include_shared and SHARED_MODELS.is_dir() else [])
    for root in roots:
        for path in sorted(root.rglob("*.tflite")):
            if path.stat().st_size <= max_bytes:
                yield str(path.relative_to(root.parent)), path.read_bytes()


def all_seeds(include_shared: bool = True) -> list[tuple[str, bytes]]:
    return list(generated_seeds()) + list(file_seeds(include_shared))
