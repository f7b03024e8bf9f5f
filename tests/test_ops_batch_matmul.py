"""BATCH_MATMUL against tflite-runtime 2.14 BUILTIN_REF (batch_matmul.cc kReference): float32 (bit-exact:
the same sums in the same order), int8, int16 (byte-identical), hybrid float32 x constant int8 (float
tolerance; the printed count says how many were bit-exact). Broadcast batch dimensions, adj_x /
adj_y, constant and non-constant RHS (a constant non-adjoint RHS is stored transposed).
``UTVM_TEST_FULL=1``: 24 cases per type, CI 4.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from harness import Case, check_against_oracle
from tflite_writer import ModelBuilder

from utvm_build.compiler import compile_bytes
from utvm_build.errors import UtvmError

F32 = np.float32
N = 24 if os.environ.get("UTVM_TEST_FULL") == "1" else 4
# (lhs batch dims, rhs batch dims, M, K, N)
SHAPES = [((), (), 3, 4, 5), ((2,), (2,), 2, 3, 4), ((2, 3), (1, 3), 4, 5, 2), ((3,), (), 2, 8, 3),
          ((), (4,), 5, 2, 3), ((2, 1, 2), (1, 3, 2), 3, 3, 3), ((1,), (1,), 1, 16, 1), ((2, 2), (2, 1), 7, 1, 6),
          ((2, 1, 2), (1, 3, 1), 2, 4, 3), ((4, 1), (1, 1), 3, 6, 2)]


def _q(rng, dtype: str) -> dict:
    if dtype == "int8":
        return {"scale": float(F32(rng.uniform(0.005, 0.1))), "zero_point": int(rng.integers(-128, 128))}
    if dtype == "int16":
        return {"scale": float(F32(rng.uniform(1e-4, 1e-3))), "zero_point": 0}
    return {}


def _data(rng, dtype: str, shape) -> np.ndarray:
    if dtype == "float32":
        return rng.standard_normal(shape).astype(F32)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, shape, endpoint=True).astype(dtype)


def bmm_case(dtype: str, k: int, seed: int, hybrid: bool = False) -> Case:
    rng = np.random.default_rng(seed)
    lb, rb, m, kk, n = SHAPES[k % len(SHAPES)]
    if hybrid and (sum(d != 1 for d in lb) > 1 or sum(d != 1 for d in rb) > 1):
        lb, rb = lb[-1:], rb[-1:]  # the reference's hybrid kernel handles one batch dimension per operand
    adj_x = (k // 2) % 2 == 1 and not hybrid
    if adj_x and len(lb) and len(rb) and rb[-1] == 1:
        adj_x = False  # refused: the reference merges lhs dimensions ignoring adj_x (see ops/batch_matmul.py)
    adj_y = k % 2 == 1
    const_rhs = hybrid or k % 3 != 0
    lshape = (*lb, kk, m) if adj_x else (*lb, m, kk)
    rshape = (*rb, n, kk) if adj_y else (*rb, kk, n)
    nb = max(len(lb), len(rb))
    lbe, rbe = (1,) * (nb - len(lb)) + lb, (1,) * (nb - len(rb)) + rb
    oshape = tuple(max(a, b) for a, b in zip(lbe, rbe)) + (m, n)
    rdtype = "int8" if hybrid else dtype
    mb = ModelBuilder()
    x = mb.tensor(lshape, dtype, **_q(rng, dtype))
    rq = _q(rng, rdtype)
    if hybrid:
        rq = {"scale": float(F32(rng.uniform(0.005, 0.05))), "zero_point": 0}
    rdata = _data(rng, rdtype, rshape)
    if hybrid:
        rdata = np.clip(rdata, -127, 127).astype(np.int8)
    y = mb.tensor(rshape, rdtype, data=rdata if const_rhs else None, **rq)
    o = mb.tensor(oshape, dtype, **_q(rng, dtype))
    opts = {"adj_x": adj_x, "adj_y": adj_y}
    if hybrid:
        opts["asymmetric_quantize_inputs"] = k % 2 == 0
    mb.operator("BATCH_MATMUL", [x, y], [o], opts)
    inputs = [_data(rng, dtype, lshape)] + ([] if const_rhs else [rdata])
    return Case(mb.build([x] if const_rhs else [x, y], [o]), inputs,
                f"BATCH_MATMUL {dtype}{' hybrid' if hybrid else ''} {lshape} x {rshape} adj {adj_x},{adj_y} "
                f"const_rhs={const_rhs}")


def test_batch_matmul():
    groups = {d: [bmm_case(d, k, 700 + 11 * k + len(d)) for k in range(N)] for d in ("float32", "int8", "int16")}
    groups["hybrid"] = [bmm_case("float32", k, 900 + k, hybrid=True) for k in range(N)]
    cases = [c for cs in groups.values() for c in cs]
    res = check_against_oracle(cases)
    print(f"{len(cases)} cases ({', '.join(f'{k}: {len(v)}' for k, v in groups.items())}), "
          f"{res['bit_exact']} bit-exact")


def test_batch_matmul_rejections():
    def build(lshape, rshape, oshape, dtype="float32", **opts):
        mb = ModelBuilder()
        q = {"scale": 0.1, "zero_point": 3} if dtype != "float32" else {}
        x = mb.tensor(lshape, dtype, **q)
        y = mb.tensor(rshape, dtype, **q)
        o = mb.tensor(oshape, dtype, **q)
        mb.operator("BATCH_MATMUL", [x, y], [o], opts)
        with pytest.raises(UtvmError) as e:
            compile_bytes(mb.build([x, y], [o]), "m")
        assert "\n" not in str(e.value)
        return str(e.value)

    assert "accumulation dimension" in build((2, 3), (4, 5), (2, 5))
    assert "do not broadcast" in build((2, 2, 3), (3, 3, 4), (3, 2, 4))
    assert "zero point 0" in build((2, 3), (3, 4), (2, 4), dtype="int16")
    assert "ranks 2 to 5" in build((3,), (3, 4), (4,))
    assert "third-to-last dimension is 1" in build((2, 3, 2), (1, 3, 4), (2, 2, 4), adj_x=True)
