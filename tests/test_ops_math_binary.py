"""Elementwise binary / n-ary math operators (ops/math_binary.py, int32 ADD/SUB/MUL in
ops/elementwise.py) against the reference kernels.

Oracle: TFLite 2.14 BUILTIN_REF; TFLite Micro's interpreter for the types only TFLM has
(SQUARED_DIFFERENCE int16, PRELU int16 with int8 alpha, ADD_N int8, DIV int8: 2.14's DIV kernels take
float32, int32 and uint8 only). Integer outputs and bool
outputs byte-identical; float32 DIV, FLOOR_DIV, FLOOR_MOD, SQUARED_DIFFERENCE, PRELU, MAXIMUM /
MINIMUM, ADD_N are single IEEE operations in the reference's order (bit-exact).
Shapes: random ranks 1-5, every input broadcast pattern (size-1 dims on either side, scalars).
CI runs a seeded sample per (operator, type); UTVM_TEST_FULL=1 runs all 24.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from harness import Case
from math_common import check, report, sample
from tflite_writer import ModelBuilder

from utvm_build.compiler import compile_bytes
from utvm_build.errors import UnsupportedError

N = 24
CI = 1
CMP = ("EQUAL", "NOT_EQUAL", "GREATER", "GREATER_EQUAL", "LESS", "LESS_EQUAL")
ACTS = ("NONE", "RELU", "RELU6", "RELU_N1_TO_1")


def _shapes(rng: np.random.Generator, k: int):
    rank = int(rng.integers(1, 6))
    out = [int(rng.integers(1, 5)) for _ in range(rank)]
    if k % 4 == 0:
        return out, list(out), out
    a = [d if rng.random() < 0.6 else 1 for d in out]
    b = [d if (rng.random() < 0.6 or a[i] == 1) else 1 for i, d in enumerate(out)]
    b = b[int(rng.integers(0, rank)):] if k % 3 == 0 else b
    if k % 7 == 1:
        b = [1]
    out = [max(x, y) for x, y in zip(a, [1] * (len(a) - len(b)) + b)]
    return a, b, out


def _q(dt: str, rng: np.random.Generator, zp0: bool = False) -> dict:
    if dt == "int8":
        return {"scale": float(np.float32(rng.uniform(0.005, 0.5))),
                "zero_point": 0 if zp0 else int(rng.choice([-128, 127, int(rng.integers(-128, 128))]))}
    if dt == "int16":
        return {"scale": float(np.float32(rng.uniform(1e-4, 1e-2))), "zero_point": 0}
    return {}


def _values(dt: str, shape, rng: np.random.Generator, lo: float = -10, hi: float = 10) -> np.ndarray:
    if dt == "float32":
        return rng.uniform(lo, hi, size=shape).astype(np.float32)
    if dt == "bool":
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    info = np.iinfo(dt)
    return rng.integers(info.min, info.max, size=shape, endpoint=True).astype(dt)


#: The highest rank the reference broadcasts (it aborts beyond; same-shape operands have no limit).
REF_BROADCAST_RANK = {"SUB": 5, "MAXIMUM": 5, "MINIMUM": 5, "DIV": 5, "SELECT_V2": 5}


def _within_reference_rank(op: str, dt: str, shapes: list[list[int]]) -> list[list[int]]:
    limit = 6 if op == "SQUARED_DIFFERENCE" and dt == "int8" else REF_BROADCAST_RANK.get(op, 4)
    if len({tuple(s) for s in shapes}) <= 1:
        return shapes
    return [s[-limit:] for s in shapes]


def binary_case(op: str, dt: str, k: int, out_dt: str | None = None, opts: dict | None = None) -> tuple:
    rng = np.random.default_rng(zlib.crc32(f"{op} {dt}".encode()) % 100000 * 100 + k)
    sa, sb, so = _within_reference_rank(op, dt, list(_shapes(rng, k)))
    mb = ModelBuilder()
    qa, qb = _q(dt, rng), _q(dt, rng)
    if op in ("MAXIMUM", "MINIMUM") and dt in ("int8", "int16"):
        qb = qa
    qo = qa if op in ("MAXIMUM", "MINIMUM") else _q(out_dt or dt, rng)
    if out_dt == "bool":
        qo = {}
    a = mb.tensor(sa, dt, **qa)
    b = mb.tensor(sb, dt, **qb)
    y = mb.tensor(so, out_dt or dt, **qo)
    mb.operator(op, [a, b], [y], opts)
    model = mb.build([a, b], [y])
    xa, xb = _values(dt, sa, rng), _values(dt, sb, rng)
    if dt in ("int32", "int64") and op in CMP + ("MAXIMUM", "MINIMUM") and k % 2:
        xa, xb = rng.integers(-3, 4, size=sa).astype(dt), rng.integers(-3, 4, size=sb).astype(dt)
    if dt == "float32" and op in CMP + ("MAXIMUM", "MINIMUM") and k % 2:
        xa, xb = rng.integers(-3, 4, size=sa).astype(dt), rng.integers(-3, 4, size=sb).astype(dt)
    if op == "DIV" and dt == "int32":
        xb = rng.integers(-1000, 1000, size=sb).astype(np.int32)
        xb[xb == 0] = 7
    if op in ("DIV", "FLOOR_DIV", "FLOOR_MOD") and dt == "float32":
        xb = (np.where(rng.random(sb) < 0.5, -1, 1) * rng.uniform(0.1, 5, size=sb)).astype(np.float32)
    if op == "SQUARED_DIFFERENCE" and dt == "int32":
        xa, xb = rng.integers(-40000, 40000, size=sa).astype(dt), rng.integers(-40000, 40000, size=sb).astype(dt)
    label = dt if out_dt != "bool" else dt
    return op, label, Case(model, [xa, xb], f"{op} {dt} {sa} {sb} -> {so} {qa} {qb} {qo} {opts} seed={k}")


def prelu_case(dt: str, k: int) -> tuple:
    rng = np.random.default_rng(300000 + 100 * len(dt) + k)
    sa, sb, so = _shapes(rng, k)
    sa, sb = sa[-4:], sb[-4:]    # the reference kernels broadcast through 4-D (rank 5 is refused)
    sb = sb[-min(len(sb), 3):]   # alpha: trailing dims (channels), as converters emit it
    so = [max(x, y) for x, y in zip(sa, [1] * (len(sa) - len(sb)) + sb)]
    sa = so   # PRELU's output has the input's shape (the reference checks it); alpha broadcasts to it
    mb = ModelBuilder()
    adt = "int8" if dt == "int16" else dt
    qx, qa, qo = _q(dt, rng), _q(adt, rng), _q(dt, rng)
    x = mb.tensor(sa, dt, **qx)
    al = mb.tensor(sb, adt, **qa)
    y = mb.tensor(so, dt, **qo)
    mb.operator("PRELU", [x, al], [y])
    model = mb.build([x, al], [y])
    label = "int16 (int8 alpha)" if dt == "int16" else dt
    return "PRELU", label, Case(model, [_values(dt, sa, rng), _values(adt, sb, rng, -1, 1)],
                                f"PRELU {dt} {sa} {sb} {qx} {qa} {qo} seed={k}")


def select_case(dt: str, k: int) -> tuple:
    rng = np.random.default_rng(400000 + 100 * len(dt) + k)
    rank = int(rng.integers(1, 6))
    out = [int(rng.integers(1, 5)) for _ in range(rank)]
    shapes = [[d if rng.random() < 0.6 else 1 for d in out] for _ in range(3)]
    if k % 4 == 0:
        shapes = [list(out)] * 3
    shapes = [list(s) for s in shapes]
    if k % 5 == 2:
        shapes[0] = shapes[0][-1:]   # a condition of lower rank
    for d in range(rank):   # every output dim comes from some input of full rank
        full = [s for s in shapes if len(s) == rank]
        if out[d] > 1 and all(s[d] == 1 for s in full):
            full[int(rng.integers(0, len(full)))][d] = out[d]
    mb = ModelBuilder()
    q = _q(dt, rng)
    shapes = _within_reference_rank("SELECT_V2", dt, shapes)
    c = mb.tensor(shapes[0], "bool")
    x = mb.tensor(shapes[1], dt, **q)
    y = mb.tensor(shapes[2], dt, **q)
    out = out[-max(len(s) for s in shapes):]
    o = mb.tensor(out, dt, **q)
    mb.operator("SELECT_V2", [c, x, y], [o])
    model = mb.build([c, x, y], [o])
    ins = [_values("bool", shapes[0], rng), _values(dt, shapes[1], rng), _values(dt, shapes[2], rng)]
    return "SELECT_V2", dt, Case(model, ins, f"SELECT_V2 {dt} {shapes} -> {out} seed={k}")


def add_n_case(dt: str, k: int) -> tuple:
    rng = np.random.default_rng(500000 + 100 * len(dt) + k)
    shape = [int(rng.integers(1, 5)) for _ in range(int(rng.integers(1, 5)))]
    n = int(rng.integers(2, 6))
    q = _q(dt, rng)
    qo = _q(dt, rng)
    if dt == "int8":
        qo["scale"] = max(qo["scale"], q["scale"] * 0.6)
    mb = ModelBuilder()
    xs = [mb.tensor(shape, dt, **q) for _ in range(n)]
    y = mb.tensor(shape, dt, **qo)
    mb.operator("ADD_N", xs, [y])
    model = mb.build(xs, [y])
    return "ADD_N", dt, Case(model, [_values(dt, shape, rng) for _ in range(n)], f"ADD_N {dt} x{n} {shape} {q} {qo}")


#: DIV int8: cases per full run (random) and in CI, plus the exhaustive 256 x 256 grids (all of them
#: in both modes: one grid is 65536 divisions).
DIV_S8_N = 24
DIV_S8_CI = 3
#: (s1, zp1, s2, zp2, s_out, zp_out, activation): ordinary scales, zero points at the ends, output
#: shifts from -29 (TFLM's rounding shift then exceeds 31 bits) to 20, a fused RELU6.
DIV_S8_GRIDS = [(0.1, 0, 0.1, 0, 0.1, 0, "NONE"), (0.05, -128, 0.02, 127, 0.3, 5, "NONE"),
                (1e-5, 5, 100.0, -3, 100.0, 0, "NONE"), (1.0, 0, 0.001, 0, 0.001, -128, "RELU6")]


def div_s8_case(k: int) -> tuple:
    """DIV int8 against TFLite Micro, the oracle: TFLite 2.14's DIV kernels take float32, int32 and
    uint8 only; TFLM's take int8. Shapes up to 6-D broadcasts (TFLM's limit), the scale ratio
    s1 / (s2 s_out) spread from 2^-36 (multiplier 0) to 2^21.9 (output shift 22, the highest accepted),
    zero points at the range ends, every fused activation, and divisors equal to input2's zero point
    (a zero divisor: TFLM's arithmetic then yields a defined value, reproduced) or next to it."""
    rng = np.random.default_rng(600000 + k)
    sa, sb, so = _shapes(rng, k)
    if k % 6 == 5:   # 6-D broadcast
        sa, sb = [2, 1, 3, 1, 2, 1], [1, 2, 1, 2, 1, 3]
        so = [max(x, y) for x, y in zip(sa, sb)]
    q1, q2 = _q("int8", rng), _q("int8", rng)
    log_ratio = -36.0 if k % 12 == 7 else float(rng.uniform(-29, 21.9))
    s_out = float(np.float32(q1["scale"] / (q2["scale"] * 2.0 ** log_ratio)))
    qo = {"scale": s_out, "zero_point": int(rng.choice([-128, 127, int(rng.integers(-128, 128))]))}
    act = ACTS[k % 4]
    mb = ModelBuilder()
    a, b, y = mb.tensor(sa, "int8", **q1), mb.tensor(sb, "int8", **q2), mb.tensor(so, "int8", **qo)
    mb.operator("DIV", [a, b], [y], {"fused_activation_function": act})
    model = mb.build([a, b], [y])
    xa, xb = _values("int8", sa, rng), _values("int8", sb, rng)
    near = np.clip(q2["zero_point"] + rng.integers(-1, 2, size=sb), -128, 127).astype(np.int8)
    xb = np.where(rng.random(sb) < 0.3, near, xb).astype(np.int8)
    label = f"DIV int8 {sa} {sb} -> {so} {q1} {q2} {qo} {act} seed={k}"
    return "DIV", "int8", Case(model, [xa, xb], label)


def div_s8_grid(params: tuple) -> tuple:
    """Every (input1, input2) byte pair once: [256, 1] / [1, 256]."""
    s1, z1, s2, z2, so, zo, act = params
    mb = ModelBuilder()
    a = mb.tensor([256, 1], "int8", scale=s1, zero_point=z1)
    b = mb.tensor([1, 256], "int8", scale=s2, zero_point=z2)
    y = mb.tensor([256, 256], "int8", scale=so, zero_point=zo)
    mb.operator("DIV", [a, b], [y], {"fused_activation_function": act})
    grid = np.arange(-128, 128, dtype=np.int8)
    return "DIV", "int8", Case(mb.build([a, b], [y]), [grid.reshape(256, 1), grid.reshape(1, 256)],
                               f"DIV int8 grid {params}")


def div_s8_cases() -> list:
    return sample([div_s8_case(k) for k in range(DIV_S8_N)], DIV_S8_CI) + [div_s8_grid(p) for p in DIV_S8_GRIDS]


def _keys():
    ref, tflm = [], []
    for op in CMP:
        for dt in ("float32", "int8", "int32", "int64") + (("bool",) if op in ("EQUAL", "NOT_EQUAL") else ()):
            ref.append(lambda k, op=op, dt=dt: binary_case(op, dt, k, "bool"))
    for op in ("LOGICAL_AND", "LOGICAL_OR"):
        ref.append(lambda k, op=op: binary_case(op, "bool", k))
    for op in ("MAXIMUM", "MINIMUM"):
        for dt in ("float32", "int8", "int16", "int32", "int64"):
            ref.append(lambda k, op=op, dt=dt: binary_case(op, dt, k))
    for dt in ("float32", "int32", "int8"):
        ref.append(lambda k, dt=dt: binary_case("SQUARED_DIFFERENCE", dt, k))
    tflm.append(lambda k: binary_case("SQUARED_DIFFERENCE", "int16", k))
    for dt in ("float32", "int32"):
        ref.append(lambda k, dt=dt: binary_case("DIV", dt, k, None, {"fused_activation_function": ACTS[k % 4]}))
    for op in ("FLOOR_DIV", "FLOOR_MOD"):
        ref.append(lambda k, op=op: binary_case(op, "float32", k))
    for dt in ("float32", "int8"):
        ref.append(lambda k, dt=dt: prelu_case(dt, k))
    tflm.append(lambda k: prelu_case("int16", k))
    for dt in ("float32", "int8", "int16"):
        ref.append(lambda k, dt=dt: select_case(dt, k))
    ref.append(lambda k: add_n_case("float32", k))
    tflm.append(lambda k: add_n_case("int8", k))
    for op in ("ADD", "SUB", "MUL"):
        ref.append(lambda k, op=op: binary_case(op, "int32", k, None, {"fused_activation_function": ACTS[k % 4]}))
    return ref, tflm


@pytest.mark.parametrize("engine", ["ref", "tflm"])
def test_binary(engine):
    ref, tflm = _keys()
    cases = []
    for make in (ref if engine == "ref" else tflm):
        cases += sample([make(k) for k in range(N)], CI)
    if engine == "tflm":
        cases += div_s8_cases()
    check(cases, engine=engine)
    print(report(""))


@pytest.mark.parametrize("op,dt,out_dt,match", [
    ("GREATER", "bool", "bool", "supported: float32, int8, int32, int64$"),
    ("EQUAL", "int16", "bool", "input1 tensor .* is int16"),
    ("DIV", "int16", "int16", "supported: float32, int32, int8$"),
    ("FLOOR_DIV", "int32", "int32", "supported: float32"),
    ("MAXIMUM", "bool", "bool", "supported: float32, int8"),
    ("LOGICAL_AND", "int8", "int8", "supported: bool"),
])
def test_binary_rejections(op, dt, out_dt, match):
    mb = ModelBuilder()
    q = {"scale": 0.1, "zero_point": 0} if dt in ("int8", "int16") else {}
    a, b = mb.tensor([2, 3], dt, **q), mb.tensor([2, 3], dt, **q)
    y = mb.tensor([2, 3], out_dt, **(q if out_dt == dt else {}))
    mb.operator(op, [a, b], [y])
    with pytest.raises(UnsupportedError, match=match):
        compile_bytes(mb.build([a, b], [y]), "m")


def test_broadcast_rejection():
    mb = ModelBuilder()
    a, b, y = mb.tensor([2, 3], "float32"), mb.tensor([4, 3], "float32"), mb.tensor([2, 3], "float32")
    mb.operator("MAXIMUM", [a, b], [y])
    with pytest.raises(UnsupportedError, match="do not broadcast"):
        compile_bytes(mb.build([a, b], [y]), "m")


def test_prelu_rank_5_rejected():
    """The reference PRELU kernels broadcast through 4-D shapes and abort on rank 5: refused."""
    mb = ModelBuilder()
    x, al = mb.tensor([2, 1, 2, 3, 2], "float32"), mb.tensor([3, 2], "float32")
    y = mb.tensor([2, 1, 2, 3, 2], "float32")
    mb.operator("PRELU", [x, al], [y])
    with pytest.raises(UnsupportedError, match="operator #0 PRELU: rank 5 is not supported"):
        compile_bytes(mb.build([x, al], [y]), "m")


@pytest.mark.parametrize("op,dt,rank", [("EQUAL", "float32", 5), ("MUL", "int8", 5), ("MAXIMUM", "int8", 6),
                                        ("SUB", "float32", 6), ("SQUARED_DIFFERENCE", "float32", 5)])
def test_broadcast_beyond_the_reference_rank_rejected(op, dt, rank):
    """The reference kernels broadcast through 4-, 5- or 6-D shapes and abort beyond: refused."""
    sa, sb = [2, 1, 3, 1, 2, 1][:rank], [1, 2, 1, 2, 1, 2][:rank]
    so = [max(x, y) for x, y in zip(sa, sb)]
    q = {"scale": 0.1, "zero_point": 0} if dt == "int8" else {}
    mb = ModelBuilder()
    a, b = mb.tensor(sa, dt, **q), mb.tensor(sb, dt, **q)
    y = mb.tensor(so, "bool" if op == "EQUAL" else dt, **(q if op != "EQUAL" else {}))
    mb.operator(op, [a, b], [y])
    with pytest.raises(UnsupportedError, match=f"broadcasting {rank}-D operands is not supported"):
        compile_bytes(mb.build([a, b], [y]), "m")


def test_prelu_output_must_have_the_input_shape():
    mb = ModelBuilder()
    x, al, y = mb.tensor([1, 1, 3], "float32"), mb.tensor([2, 1], "float32"), mb.tensor([1, 2, 3], "float32")
    mb.operator("PRELU", [x, al], [y])
    with pytest.raises(UnsupportedError, match="the input's shape"):
        compile_bytes(mb.build([x, al], [y]), "m")


def _div_s8_model(sa, sb, s1=0.1, s2=0.1, so=0.1) -> bytes:
    so_shape = [max(x, y) for x, y in zip([1] * (len(sb) - len(sa)) + list(sa), [1] * (len(sa) - len(sb)) + list(sb))]
    mb = ModelBuilder()
    a = mb.tensor(sa, "int8", scale=s1, zero_point=0)
    b = mb.tensor(sb, "int8", scale=s2, zero_point=0)
    y = mb.tensor(so_shape, "int8", scale=so, zero_point=0)
    mb.operator("DIV", [a, b], [y])
    return mb.build([a, b], [y])


def test_div_s8_scale_ratio_beyond_tflm_rejected():
    """s1 / (s2 s_out) >= 2^22 would make TFLM's rounding shift negative (undefined): refused."""
    compile_bytes(_div_s8_model([2, 3], [2, 3], 1.0, 1e-3, 2.5e-4), "m")   # ratio 4e6 < 2^22: accepted
    with pytest.raises(UnsupportedError, match=r"operator #0 DIV: input1 scale / \(input2 scale \* output scale\) = "
                                               r"4\.2e\+06 is not supported"):
        compile_bytes(_div_s8_model([2, 3], [2, 3], 1.0, 1e-3, 1 / 4.2e6 * 1e3), "m")


def test_div_s8_broadcast_rank_7_rejected():
    """TFLM's RuntimeShape holds 6 dims: a 7-D int8 DIV broadcast is refused (float32 stops at 5-D:
    2.14). Beyond 6 dims TFLM writes past that array (only DCHECKed); its outputs were measured right
    for one 7-D broadcast and wrong for an 8-D one, so nothing beyond 6-D is taken as the reference."""
    with pytest.raises(UnsupportedError, match="broadcasting 7-D operands is not supported .* up to 6-D"):
        compile_bytes(_div_s8_model([2, 1, 3, 1, 2, 1, 2], [1, 2, 1, 2, 1, 2, 1]), "m")
