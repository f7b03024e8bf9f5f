"""Dynamic shapes resolved at compile time (utvm_build/passes/shapes.py).

Keras models converted with a dynamic batch store placeholder shapes (1 for each unknown
dimension) for tensors whose shape depends on it, e.g. a Tensordot's ``[batch * seq, features]``
reshape. With static inputs these are recomputed in execution order; the reference interpreter
recomputes them in Prepare, so it is the oracle here too.
"""

from __future__ import annotations

import numpy as np
import pytest
from harness import Case, check_against_oracle
from oracle import random_inputs
from tflite_writer import ModelBuilder

from utvm_build.compiler import compile_bytes
from utvm_build.errors import UnsupportedError


def _tensordot_model(dtype: str, keep_arith: bool = True) -> bytes:
    """x [1,16,32] -> RESHAPE [-1, 32] -> FULLY_CONNECTED 8 -> RESHAPE [1, 16, 8]; the two middle
    tensors are stored as [1, 32] and [1, 8] with signatures [-1, 32] and [-1, 8]; the last
    reshape's target is computed as 16 * 1 by a MUL on int32 constants."""
    q = {"scale": 0.05, "zero_point": 3} if dtype == "int8" else {}
    rng = np.random.default_rng(7)
    mb = ModelBuilder()
    x = mb.tensor([1, 16, 32], dtype, name="x", shape_signature=[-1, 16, 32], **q)
    s1 = mb.tensor([2], "int32", data=np.array([-1, 32], np.int32))
    flat = mb.tensor([1, 32], dtype, name="flat", shape_signature=[-1, 32], **q)
    mb.operator("RESHAPE", [x, s1], [flat])
    if dtype == "int8":
        w = mb.tensor([8, 32], "int8", data=rng.integers(-127, 128, (8, 32)), scale=0.02, zero_point=0)
        b = mb.tensor([8], "int32", data=rng.integers(-500, 500, 8))
        qo = {"scale": 0.4, "zero_point": -5}
    else:
        w = mb.tensor([8, 32], "float32", data=rng.normal(size=(8, 32)).astype(np.float32))
        b = mb.tensor([8], "float32", data=rng.normal(size=8).astype(np.float32))
        qo = {}
    h = mb.tensor([1, 8], dtype, name="h", shape_signature=[-1, 8], **qo)
    mb.operator("FULLY_CONNECTED", [flat, w, b], [h])
    a = mb.tensor([3], "int32", data=np.array([1, 16, 8], np.int32))
    one = mb.tensor([3], "int32", data=np.array([1, 1, 1], np.int32))
    s2 = mb.tensor([3], "int32", name="target_shape")
    mb.operator("MUL", [a, one], [s2])
    y = mb.tensor([1, 16, 8], dtype, name="y", shape_signature=[-1, 16, 8], **qo)
    mb.operator("RESHAPE", [h, s2], [y])
    return mb.build([x], [y])


@pytest.mark.parametrize("dtype", ["int8", "float32"])
def test_placeholder_shapes_are_recomputed(dtype: str) -> None:
    model = _tensordot_model(dtype)
    meta = compile_bytes(model, "m").metadata
    assert meta["outputs"][0]["shape"] == [1, 16, 8]
    mul = [op for op in meta["operators"] if op["op"] == "MUL"]
    assert not mul, "the int32 shape arithmetic must be folded"
    assert [op["op"] for op in meta["operators"]] == ["FULLY_CONNECTED"]
    counts = check_against_oracle([Case(model, random_inputs(model, s), f"tensordot {dtype} seed {s}")
                                   for s in range(3)])
    assert counts["cases"] == 3


def test_unresolvable_dynamic_shape_names_tensor_and_operator() -> None:
    mb = ModelBuilder()
    x = mb.tensor([1, 4], "float32", name="x")
    n = mb.tensor([2], "int32", name="n")   # the target shape is a model input: unknowable
    y = mb.tensor([1, 1], "float32", name="y", shape_signature=[-1, -1])
    mb.operator("RESHAPE", [x, n], [y])
    model = mb.build([x, n], [y])
    with pytest.raises(UnsupportedError) as e:
        compile_bytes(model, "m")
    text = str(e.value)
    assert "operator #0 RESHAPE" in text and "'y'" in text and "cannot be resolved at compile time" in text
    assert "\n" not in text
