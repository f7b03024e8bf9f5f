"""SUM, REDUCE_MAX, REDUCE_MIN, REDUCE_ALL, ARG_MAX, ARG_MIN against TFLite's reference kernels.

Oracle: tflite-runtime 2.14 BUILTIN_REF (reduce.cc kReference, arg_min_max.cc). Exception: int8
and int16 SUM run on TFLite Micro's interpreter (the reference for what this compiler implements
there): tflite-runtime 2.14 runs its int8 SUM as QuantizedMeanOrSum<uint8_t> over the int8 bytes
(every result with a negative input is wrong) and sums int16 without saturation, refusing
different scales (docs/operators/nn.md).
Every type is byte-identical, float32 too (the same additions / comparisons in the same order).
Seeded; ``UTVM_TEST_FULL=1`` runs 24 cases per (operator, type), CI the first 3 of them.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from harness import Case, assert_matches, check_against_oracle, record, run_cases
from tflite_writer import ModelBuilder

from utvm_build.compiler import compile_bytes
from utvm_build.errors import UtvmError

F32 = np.float32
FULL = os.environ.get("UTVM_TEST_FULL") == "1"
# (input shape, axes)
GEOMETRY = [
    ((1, 5, 7, 3), [1, 2]), ((2, 4, 4, 8), [2, 1]), ((3, 6, 5, 2), [1, 2]), ((1, 10), [1]), ((4, 9), [0]),
    ((2, 3, 4), [-1]), ((2, 3, 4), [0, 2]), ((5,), [0]), ((2, 3, 4, 5), [3]), ((2, 3, 4, 5), [0, 3]),
    ((2, 3, 4, 5), [1, -2]), ((1, 3, 4, 5), [-3, -2]), ((2, 2, 3, 2, 3), [1, 3]), ((6, 7), [0, 1]),
    ((2, 3, 4), [1, 1]), ((3, 1, 2, 7), [3, 0, 1]), ((1, 25, 20, 8), [1, 2]), ((1, 700), [-1]),
    ((2, 3, 4), [0, 1, 2]), ((4, 1, 3), [1]), ((1, 1, 1, 6), [-1, 0]), ((7,), [-1]),
]


def _sample(n_full: int = 24, n_ci: int = 3) -> int:
    return n_full if FULL else n_ci


def _out_shape(shape, axes, keep):
    res = {a % len(shape) for a in axes}
    if keep:
        return tuple(1 if d in res else n for d, n in enumerate(shape))
    return tuple(n for d, n in enumerate(shape) if d not in res)


def _data(rng: np.random.Generator, dtype: str, shape, k: int) -> np.ndarray:
    if dtype == "bool":
        p = [0.5, 0.9, 0.99][k % 3]
        return rng.random(shape) < p
    if dtype == "float32":
        x = (rng.standard_normal(shape) * 3).astype(F32)
        if k % 4 == 3:
            x = np.round(x).astype(F32)  # ties
        return x
    info = np.iinfo(dtype)
    if k % 4 == 3:  # ties and the ends of the range
        return rng.choice(np.array([info.min, info.min + 1, 0, info.max - 1, info.max]), shape).astype(dtype)
    return rng.integers(info.min, info.max, shape, endpoint=True).astype(dtype)


def reduce_case(op: str, dtype: str, k: int, seed: int, requant: bool = False) -> Case:
    rng = np.random.default_rng(seed)
    shape, axes = GEOMETRY[k % len(GEOMETRY)]
    keep = (k // len(GEOMETRY)) % 2 == 1 or k % 5 == 0
    mb = ModelBuilder()
    q_in: dict = {}
    q_out: dict = {}
    if dtype in ("int8", "int16"):
        s = float(F32(np.exp(rng.uniform(np.log(1e-3), np.log(0.5)))))
        zp = int(rng.choice([-128, 127, int(rng.integers(-128, 128))])) if dtype == "int8" else 0
        q_in = {"scale": s, "zero_point": zp}
        q_out = dict(q_in)
        if requant:
            q_out = {"scale": float(F32(s * np.exp(rng.uniform(np.log(0.5), np.log(40.0))))),
                     "zero_point": int(rng.integers(-128, 128)) if dtype == "int8" else 0}
            if k % 7 == 1:
                q_out["scale"] = s  # only the zero point differs
    x = mb.tensor(shape, dtype, **q_in)
    ax = mb.tensor((len(axes),), "int32", data=np.array(axes, dtype=np.int32))
    y = mb.tensor(_out_shape(shape, axes, keep), dtype, **q_out)
    mb.operator(op, [x, ax], [y], {"keep_dims": keep})
    return Case(mb.build([x], [y]), [_data(rng, dtype, shape, k)],
                f"{op} {dtype} {shape} axes={axes} keep={keep} {q_in}->{q_out}")


def _run(cases: list[Case], micro: bool = False) -> None:
    if micro:
        res = check_against_micro(cases)
    else:
        res = check_against_oracle(cases)
    print(f"{len(cases)} cases, {res['bit_exact']} bit-exact")
    assert res["bit_exact"] == len(cases)


def check_against_micro(cases: list[Case]) -> dict:
    """As harness.check_against_oracle, with TFLite Micro's interpreter as the reference."""
    from oracle import micro_reference_outputs_many

    refs = micro_reference_outputs_many([(c.model, c.inputs) for c in cases])
    ours = run_cases(cases)
    for case, mine, ref in zip(cases, ours, refs):
        assert not isinstance(ref, Exception), f"{case.label}: TFLM failed: {ref}"
        for i, (o, r) in enumerate(zip(mine, ref)):
            assert_matches(o, np.asarray(r), f"{case.label} output {i}")
    record(len(cases), len(cases))
    return {"cases": len(cases), "bit_exact": len(cases)}


ARG_SHAPES = [((2, 3, 4), 1), ((5,), 0), ((1, 10), -1), ((4, 7), 0), ((2, 3, 4, 5), 3), ((2, 3, 4, 5), -4),
              ((3, 1, 6), 1), ((1, 1, 1), 2), ((2, 2, 2, 2, 3), 2), ((1, 64), 1), ((6, 5, 4), -2)]


def arg_case(op: str, dtype: str, out_dtype: str, k: int, seed: int) -> Case:
    rng = np.random.default_rng(seed)
    shape, axis = ARG_SHAPES[k % len(ARG_SHAPES)]
    mb = ModelBuilder()
    q = {"scale": 0.05, "zero_point": -7} if dtype == "int8" else {}
    x = mb.tensor(shape, dtype, **q)
    axis_dtype = "int64" if k % 3 == 2 else "int32"
    ax = mb.tensor((1,), axis_dtype, data=np.array([axis], dtype=axis_dtype))
    y = mb.tensor(shape[:axis % len(shape)] + shape[axis % len(shape) + 1:], out_dtype)
    mb.operator(op, [x, ax], [y], {"output_type": out_dtype.upper()})
    return Case(mb.build([x], [y]), [_data(rng, dtype, shape, k)], f"{op} {dtype}->{out_dtype} {shape} axis={axis}")


def _family() -> list[tuple[str, Case, bool]]:
    """(operator/type key, case, run on TFLM) for every (operator, type), seeded."""
    n = _sample()
    out = []
    for op in ("REDUCE_MAX", "REDUCE_MIN"):
        for d in ("float32", "int8", "int16", "int32"):
            out += [(f"{op} {d}", reduce_case(op, d, k, 1000 + 37 * k + len(d)), False) for k in range(n)]
    for d, requant in (("float32", False), ("int32", False), ("int8", True), ("int8", False), ("int16", False),
                       ("int16", True)):
        out += [(f"SUM {d}", reduce_case("SUM", d, k, 2000 + 41 * k + len(d) + requant, requant), d != "float32"
                 and d != "int32") for k in range(n)]
    out += [("REDUCE_ALL bool", reduce_case("REDUCE_ALL", "bool", k, 3000 + k), False) for k in range(n)]
    for op in ("ARG_MAX", "ARG_MIN"):
        for d in ("float32", "int8", "int32", "uint8", "bool"):
            out += [(f"{op} {d}", arg_case(op, d, "int32" if k % 2 == 0 else "int64", k,
                                           4000 + 13 * k + len(d) + len(op)), False) for k in range(n)]
    return out


def test_reduce_family():
    """All (operator, type) cases in two batches (one executable each: the CI budget)."""
    fam = _family()
    counts: dict[str, int] = {}
    for key, _, _ in fam:
        counts[key] = counts.get(key, 0) + 1
    _run([c for _, c, micro in fam if not micro])
    _run([c for _, c, micro in fam if micro], micro=True)
    print(" ".join(f"{k}:{v}" for k, v in counts.items()))


def _rejects(build, pattern: str) -> None:
    mb = ModelBuilder()
    ins, outs = build(mb)
    with pytest.raises(UtvmError, match=pattern) as e:
        compile_bytes(mb.build(ins, outs), "bad")
    assert "\n" not in str(e.value)


def test_reduce_rejections():
    def minmax_requant(mb):
        x = mb.tensor((2, 3), "int8", scale=0.1, zero_point=0)
        ax = mb.tensor((1,), "int32", data=np.array([1], np.int32))
        y = mb.tensor((2,), "int8", scale=0.2, zero_point=0)
        mb.operator("REDUCE_MAX", [x, ax], [y], {"keep_dims": False})
        return [x], [y]

    def sum_int64(mb):
        x = mb.tensor((2, 3), "int64")
        ax = mb.tensor((1,), "int32", data=np.array([1], np.int32))
        y = mb.tensor((2,), "int64")
        mb.operator("SUM", [x, ax], [y], {"keep_dims": False})
        return [x], [y]

    def all_float(mb):
        x = mb.tensor((2, 3), "float32")
        ax = mb.tensor((1,), "int32", data=np.array([1], np.int32))
        y = mb.tensor((2,), "float32")
        mb.operator("REDUCE_ALL", [x, ax], [y], {"keep_dims": False})
        return [x], [y]

    def bad_axis(mb):
        x = mb.tensor((2, 3), "float32")
        ax = mb.tensor((1,), "int32", data=np.array([2], np.int32))
        y = mb.tensor((2,), "float32")
        mb.operator("REDUCE_MIN", [x, ax], [y], {"keep_dims": False})
        return [x], [y]

    def arg_int16(mb):
        x = mb.tensor((2, 3), "int16", scale=0.1, zero_point=0)
        ax = mb.tensor((1,), "int32", data=np.array([1], np.int32))
        y = mb.tensor((2,), "int32")
        mb.operator("ARG_MAX", [x, ax], [y], {"output_type": "INT32"})
        return [x], [y]

    def arg_two_axes(mb):
        x = mb.tensor((2, 3), "float32")
        ax = mb.tensor((2,), "int32", data=np.array([0, 1], np.int32))
        y = mb.tensor((2,), "int32")
        mb.operator("ARG_MIN", [x, ax], [y], {"output_type": "INT32"})
        return [x], [y]

    _rejects(minmax_requant, "quantization must be equal")
    _rejects(sum_int64, "is int64; supported")
    _rejects(all_float, "supported: bool")
    _rejects(bad_axis, "axis 2 is out of range")
    _rejects(arg_int16, "is int16; supported")
    _rejects(arg_two_axes, "must hold one value")
