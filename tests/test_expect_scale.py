"""ops.base.expect_scale: the shared quantization check of the unary, reduce and broadcast
handlers (positive per-tensor scales; int16 operands with zero point 0)."""

import numpy as np
import pytest

from utvm_build.errors import UnsupportedError
from utvm_build.graph import Operator, Quant, Tensor
from utvm_build.ops.base import expect_scale

OP = Operator(index=3, op="RELU", inputs=[0], outputs=[1])


def _t(index: int, dtype: str, scale: float | None, zp: int = 0) -> Tensor:
    quant = None if scale is None else Quant(np.array([scale], np.float32), np.array([zp], np.int64))
    return Tensor(index=index, name=f"t{index}", dtype=dtype, shape=(4,), quant=quant)


def test_accepts_positive_scales():
    expect_scale(OP, ((_t(0, "int8", 0.5, 3), "input"), (_t(1, "int8", 0.25, -2), "output")))
    expect_scale(OP, ((_t(0, "int16", 0.5), "input"), (_t(1, "int16", 0.25), "output")))


@pytest.mark.parametrize("tensors, message", [
    (((_t(0, "int8", None), "input"), (_t(1, "int8", 1.0), "output")), "has no quantization parameters"),
    (((_t(0, "int8", 1.0), "input"), (_t(1, "int8", 0.0), "output")), "output scale must be positive"),
    (((_t(0, "int16", 1.0), "input"), (_t(1, "int16", 1.0, 5), "output")), "int16 tensors must have zero point 0"),
])
def test_rejects(tensors, message):
    with pytest.raises(UnsupportedError, match=message):
        expect_scale(OP, tensors)


def test_int16_zero_points_optional():
    expect_scale(OP, ((_t(0, "int16", 1.0, 5), "input"), (_t(1, "int16", 1.0), "output")), int16_zero_points=False)
