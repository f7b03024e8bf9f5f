"""PAD / PADV2, CONCATENATION, STRIDED_SLICE, RESHAPE / SQUEEZE conformance against TFLite's
reference kernels (byte movement: every dtype, float32 included, must be bit-exact)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from conftest import SHARED_MODELS
from harness import Case, check_against_oracle
from oracle import random_inputs
from tflite_writer import ModelBuilder

from utvm_build.compiler import compile_bytes
from utvm_build.errors import UnsupportedError
from utvm_build.ops.strided_slice import resolve

DTYPES = ("int8", "int16", "float32")


def _q(rng: np.random.Generator, dtype: str) -> dict:
    if dtype == "int8":
        return {"scale": float(np.float32(rng.uniform(0.005, 0.1))), "zero_point": int(rng.integers(-128, 128))}
    if dtype == "int16":
        return {"scale": float(np.float32(rng.uniform(1e-5, 1e-3))), "zero_point": 0}
    return {}


def _shape(rng: np.random.Generator, rank: int, hi: int = 5) -> list[int]:
    return [int(v) for v in rng.integers(1, hi + 1, size=rank)]


def _run(cases: list[Case]) -> None:
    res = check_against_oracle(cases)
    print(f"{res['cases']} cases, {res['bit_exact']} bit-exact")
    assert res["bit_exact"] == res["cases"]


# ---- PAD / PADV2 -------------------------------------------------------------------------------
def pad_case(dtype: str, k: int, seed: int, v2: bool = False) -> Case:
    rng = np.random.default_rng(seed)
    rank = 1 + k % 5
    shape = _shape(rng, rank, 4)
    pads = rng.integers(0, 4, size=(rank, 2))
    if k % 6 == 1 and rank == 4:   # image-style (kImageStyle category): no batch/channel padding
        pads[0] = pads[3] = 0
    qin = _q(rng, dtype)
    # PAD does not requantize: the output may have other quantization; its zero point is the pad value.
    qout = dict(qin)
    if dtype == "int8" and k % 3 == 0:
        qout = _q(rng, dtype)
    if dtype == "int8" and k % 11 == 5:   # unquantized int8: pad value 0
        qin = qout = {}
    mb = ModelBuilder()
    x = mb.tensor(shape, dtype, **qin)
    pdt = "int64" if k % 4 == 3 else "int32"
    p = mb.tensor([rank, 2], pdt, data=pads)
    out_shape = [int(d + a + b) for d, (a, b) in zip(shape, pads)]
    y = mb.tensor(out_shape, dtype, **qout)
    ins = [x, p]
    if v2:
        if dtype == "float32":
            cv = mb.tensor([1], dtype, data=np.array([rng.uniform(-3, 3)], dtype=np.float32))
        else:
            info = np.iinfo(np.dtype(dtype))
            cv = mb.tensor([1], dtype, data=np.array([rng.integers(info.min, info.max)]), **qout)
        ins.append(cv)
    mb.operator("PADV2" if v2 else "PAD", ins, [y])
    model = mb.build([x], [y])
    return Case(model, random_inputs(model, seed), f"PAD{'V2' if v2 else ''} {dtype} {shape} {pads.tolist()} "
                                                     f"{qin}->{qout} seed={seed}")


def test_pad():
    cases = []
    for i, dtype in enumerate(DTYPES):
        cases += [pad_case(dtype, k, 100 * i + k) for k in range(32)]
        cases += [pad_case(dtype, k, 5000 + 100 * i + k, v2=True) for k in range(10)]
    cases += [pad_case("int32", k, 9000 + k, v2=k % 2 == 1) for k in range(8)]
    _run(cases)


# ---- CONCATENATION -----------------------------------------------------------------------------
def concat_case(dtype: str, k: int, seed: int) -> Case:
    rng = np.random.default_rng(seed)
    rank = 1 + k % 4
    n_in = 2 + k % 4
    axis = int(rng.integers(-rank, rank))
    base = _shape(rng, rank, 4)
    shapes = []
    for _ in range(n_in):
        s = list(base)
        s[axis] = int(rng.integers(1, 5))
        shapes.append(s)
    out_shape = list(base)
    out_shape[axis] = sum(s[axis] for s in shapes)
    q = _q(rng, dtype)
    mb = ModelBuilder()
    ts = []
    for j, s in enumerate(shapes):
        qi = dict(q)
        if dtype == "int16" and j % 2:   # int16: other scales are copied unchanged (no rescaling)
            qi["scale"] = float(np.float32(q["scale"] * 3.0))
        if k % 5 == 4 and j == 1:   # a constant input
            info_data = random_inputs_like(rng, s, dtype)
            ts.append(mb.tensor(s, dtype, data=info_data, **qi))
        else:
            ts.append(mb.tensor(s, dtype, **qi))
    y = mb.tensor(out_shape, dtype, **q)
    mb.operator("CONCATENATION", ts, [y], {"axis": axis})
    acts = [t for t in ts if mb.tensors[t].data is None]
    if k % 7 == 6:   # the same tensor twice
        mb.operators[-1].inputs[-1] = acts[0] if shapes[-1] == shapes[0] else mb.operators[-1].inputs[-1]
    model = mb.build(acts, [y])
    return Case(model, random_inputs(model, seed), f"CONCAT {dtype} {shapes} axis={axis} seed={seed}")


def random_inputs_like(rng: np.random.Generator, shape: list[int], dtype: str) -> np.ndarray:
    if dtype == "float32":
        return rng.uniform(-1, 1, size=shape).astype(np.float32)
    info = np.iinfo(np.dtype(dtype))
    return rng.integers(info.min, info.max, size=shape, endpoint=True).astype(np.dtype(dtype))


def test_concatenation():
    cases = []
    for i, dtype in enumerate(DTYPES):
        cases += [concat_case(dtype, k, 20000 + 100 * i + k) for k in range(32)]
    cases += [concat_case("int32", k, 29000 + k) for k in range(8)]
    _run(cases)


def test_concatenation_rejections():
    mb = ModelBuilder()
    a = mb.tensor([1, 2], "int8", scale=0.1, zero_point=1)
    b = mb.tensor([1, 2], "int8", scale=0.2, zero_point=1)
    y = mb.tensor([1, 4], "int8", scale=0.1, zero_point=1)
    mb.operator("CONCATENATION", [a, b], [y], {"axis": 1})
    with pytest.raises(UnsupportedError, match="scale and zero point"):
        compile_bytes(mb.build([a, b], [y]), "m")
    mb = ModelBuilder()
    a, b, y = mb.tensor([2], "float32"), mb.tensor([2], "float32"), mb.tensor([4], "float32")
    mb.operator("CONCATENATION", [a, b], [y], {"axis": 0, "fused_activation_function": "RELU"})
    with pytest.raises(UnsupportedError, match="fused activation"):
        compile_bytes(mb.build([a, b], [y]), "m")


# ---- STRIDED_SLICE -----------------------------------------------------------------------------
def _slice_spec(rng: np.random.Generator, k: int, shape: list[int]):
    rank = len(shape)
    while True:
        n = rank
        opts: dict = {}
        if k % 9 == 7 and rank >= 2:   # fewer indices than dimensions
            n = rank - 1
        begin = [int(rng.integers(-d - 2, d + 2)) for d in shape[:n]]
        end = [int(rng.integers(-d - 2, d + 3)) for d in shape[:n]]
        strides = [int(rng.choice([1, 1, 2, 3, -1, -2])) for _ in range(n)]
        bits = (1 << n) - 1
        opts["begin_mask"] = int(rng.integers(0, bits + 1)) & int(rng.integers(0, bits + 1))
        opts["end_mask"] = int(rng.integers(0, bits + 1)) & int(rng.integers(0, bits + 1))
        if k % 3 == 1:
            opts["shrink_axis_mask"] = int(rng.integers(0, bits + 1)) & int(rng.integers(0, bits + 1))
        if k % 10 == 2 and n == rank:
            opts = {"offset": True}
            begin = [int(rng.integers(0, d)) for d in shape]
            end = [int(rng.integers(1, d - b + 1)) for d, b in zip(shape, begin)]
            strides = [int(rng.choice([1, 2])) for _ in range(n)]
        if k % 10 == 5 and rank <= 4:   # ellipsis (expands to full dims) / new axis
            opts["ellipsis_mask"] = 1 << int(rng.integers(0, n))
        if k % 10 == 8 and rank <= 4:
            opts["new_axis_mask"] = 1 << int(rng.integers(0, n))
        op = SimpleNamespace(options=opts, index=0, op="STRIDED_SLICE")
        try:
            _, _, _, counts, out_shape = resolve(op, tuple(shape), begin, end, strides)
        except UnsupportedError:
            continue
        if int(np.prod(counts)) == int(np.prod(out_shape)) and int(np.prod(out_shape)) > 0:
            return begin, end, strides, opts, out_shape


def slice_case(dtype: str, k: int, seed: int) -> Case:
    rng = np.random.default_rng(seed)
    shape = _shape(rng, 1 + k % 5, 6)
    begin, end, strides, opts, out_shape = _slice_spec(rng, k, shape)
    q = _q(rng, dtype)
    mb = ModelBuilder()
    x = mb.tensor(shape, dtype, **q)
    n = len(begin)
    tb = mb.tensor([n], "int32", data=np.array(begin))
    te = mb.tensor([n], "int32", data=np.array(end))
    ts = mb.tensor([n], "int32", data=np.array(strides))
    y = mb.tensor(out_shape, dtype, **q)
    mb.operator("STRIDED_SLICE", [x, tb, te, ts], [y], opts)
    model = mb.build([x], [y])
    return Case(model, random_inputs(model, seed),
                f"STRIDED_SLICE {dtype} {shape} b={begin} e={end} s={strides} {opts} -> {out_shape} seed={seed}")


def test_strided_slice():
    cases = []
    for i, dtype in enumerate(DTYPES):
        cases += [slice_case(dtype, k, 30000 + 1000 * i + k) for k in range(40)]
    cases += [slice_case("int32", k, 39000 + k) for k in range(10)]
    _run(cases)


def _slice_model(shape, begin, end, strides, out_shape, dtype: str) -> bytes:
    mb = ModelBuilder()
    q = {"scale": 0.5, "zero_point": 1} if dtype == "int8" else {}
    x = mb.tensor(shape, dtype, **q)
    ts = [mb.tensor([len(v)], "int32", data=np.array(v, dtype=np.int32)) for v in (begin, end, strides)]
    y = mb.tensor(out_shape, dtype, **q)
    mb.operator("STRIDED_SLICE", [x, *ts], [y], {})
    return mb.build([x], [y])


def test_strided_slice_strides_beyond_c_int() -> None:
    """Fuzz finding (issue 22): a stride of INT32_MAX / INT32_MIN on a dimension that selects one
    element gave a step literal beyond int (C failing -Werror). Such a step is never used: it is 0
    now, and the result is the reference's. A stride that takes the reference's int index past
    int32 (undefined there) is refused in one line. The fuzz inputs: tests/data/fuzz_regressions/."""
    cases = [Case(m, random_inputs(m, 5 + k), f"STRIDED_SLICE extreme stride {k}") for k, m in enumerate([
        _slice_model([2, 3], [0, 0], [2, 3], [2147483647, 1], [1, 3], "int8"),
        _slice_model([2, 3], [-1, 0], [-3, 3], [-2147483648, 1], [1, 3], "float32"),
        _slice_model([3, 2, 4], [0, 0, -1], [3, 2, -5], [2, 2147483647, -2147483648], [2, 1, 1], "int8"),
    ])]
    _run(cases)
    with pytest.raises(UnsupportedError, match="overflows the reference's int32 index arithmetic"):
        compile_bytes(_slice_model([3, 3], [1, 0], [3, 3], [2147483647, 1], [1, 3], "int8"), "m")


# ---- RESHAPE / SQUEEZE (input -> output: stays a copy) -----------------------------------------
def reshape_case(dtype: str, k: int, seed: int) -> Case:
    rng = np.random.default_rng(seed)
    shape = _shape(rng, 1 + k % 4, 4)
    q = _q(rng, dtype)
    mb = ModelBuilder()
    op = "SQUEEZE" if k % 5 == 4 else "RESHAPE"
    if op == "SQUEEZE":
        shape = [1] + shape + [1]
        out_shape = [d for d in shape if d != 1] or [1]
        if out_shape == [1] and 1 not in [d for d in shape if d != 1]:
            out_shape = []
        x = mb.tensor(shape, dtype, **q)
        y = mb.tensor(out_shape, dtype, **q)
        mb.operator("SQUEEZE", [x], [y])
        model = mb.build([x], [y])
    else:
        size = int(np.prod(shape))
        out_shape = [size] if k % 3 == 0 else list(reversed(shape)) + [1]
        x = mb.tensor(shape, dtype, **q)
        y = mb.tensor(out_shape, dtype, **q)
        if k % 4 == 1:    # the shape operand is a model input (fed the real shape)
            s = mb.tensor([len(out_shape)], "int32")
            mb.operator("RESHAPE", [x, s], [y], {"new_shape": out_shape})
            model = mb.build([x, s], [y])
        elif k % 4 == 2:  # no shape operand
            mb.operator("RESHAPE", [x], [y], {"new_shape": out_shape})
            model = mb.build([x], [y])
        else:
            wanted = list(out_shape)
            if k % 8 == 3:
                wanted[0] = -1
            s = mb.tensor([len(out_shape)], "int32", data=np.array(wanted))
            mb.operator("RESHAPE", [x, s], [y])
            model = mb.build([x], [y])
    return Case(model, random_inputs(model, seed), f"{op} {dtype} {shape} -> {out_shape} seed={seed}")


def test_reshape_copy():
    cases = []
    for i, dtype in enumerate(DTYPES):
        cases += [reshape_case(dtype, k, 40000 + 100 * i + k) for k in range(30)]
    _run(cases)


# ---- shared reference models (16x8, from TFLM's integration tests) -----------------------------
@pytest.mark.skipif(not (SHARED_MODELS / "ops").is_dir(), reason="../shared/models is not present")
@pytest.mark.parametrize("family", ["pad", "strided_slice"])
def test_shared_models(family):
    folder = SHARED_MODELS / "ops" / family
    cases = []
    for p in sorted(folder.glob("*.tflite")):
        model = p.read_bytes()
        for seed in (1, 2):
            cases.append(Case(model, random_inputs(model, seed), f"{p.name} seed {seed}"))
    assert cases
    _run(cases)
