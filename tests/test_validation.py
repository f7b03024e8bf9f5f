"""Model validation: every hostile model fails with one UtvmError line naming operator and tensor.

One test per defect class found by fuzzing (fuzz/, docs/fuzzing.md); each model is the smallest
that showed it.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from tflite_writer import ModelBuilder

from utvm_build.compiler import compile_bytes
from utvm_build.errors import UtvmError

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # fuzz/: the sanitized build

from fuzz.cbuild import build_and_run, compiler


def rejects(model: bytes, *needles: str) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UtvmError) as info:
            compile_bytes(model, "m")
    msg = str(info.value)
    assert "\n" not in msg and "\r" not in msg, msg
    for n in needles:
        assert n in msg, msg
    return msg


def accepts(model: bytes):  # noqa: ANN201 - Compiled
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return compile_bytes(model, "m")


def runs_clean(compiled) -> None:  # noqa: ANN001 - Compiled
    """-Werror build, then every extreme input pattern under ASan/UBSan."""
    if compiler() is None:
        pytest.skip("no C compiler")
    res = build_and_run(compiled)
    assert res.ok, f"{res.stage}\n{res.detail}"


def unary(op: str, dtype: str = "int8", s_in: float = 0.1, s_out: float = 0.1, zp_in: int = 0, zp_out: int = 0,
          options: dict | None = None, name_in: str = "x", name_out: str = "y") -> bytes:
    mb = ModelBuilder()
    x = mb.tensor([1, 8], dtype, scale=s_in, zero_point=zp_in, name=name_in)
    y = mb.tensor([1, 8], dtype, scale=s_out, zero_point=zp_out, name=name_out)
    mb.operator(op, [x], [y], options)
    return mb.build([x], [y])


# ---- quantization parameters ------------------------------------------------------------------

@pytest.mark.parametrize("s_in,s_out,alpha", [(3e38, 1e-45, 0.5), (1.0, 1e-10, 1e30), (1.0, 1.0, float("inf")),
                                               (1.0, 1.0, float("nan")), (1e30, 1e-30, 0.1)])
def test_leaky_relu_extreme_scales(s_in: float, s_out: float, alpha: float) -> None:
    """Was OverflowError (frexp of inf) or a numpy RuntimeWarning."""
    rejects(unary("LEAKY_RELU", s_in=s_in, s_out=s_out, options={"alpha": alpha}), "operator #0 LEAKY_RELU",
            "rescale factor")


@pytest.mark.parametrize("op", ["RELU", "RELU6", "LEAKY_RELU"])
def test_rescale_above_int32_shift_range(op: str) -> None:
    """A multiplier >= 2^30 would need a left shift of 31 or more (UB in the reference and in C)."""
    msg = rejects(unary(op, s_in=1e10, s_out=1e-10), f"operator #0 {op}")
    assert "'x'" in msg or "scale" in msg


def svdf_model(s_in: float, s_state: float, s_out: float) -> bytes:
    mb = ModelBuilder()
    wf = mb.tensor((4, 3), "int8", data=np.ones((4, 3), np.int8), scale=0.01, zero_point=0)
    wt = mb.tensor((4, 2), "int16", data=np.ones((4, 2), np.int16), scale=0.01, zero_point=0)
    st = mb.tensor((1, 8), "int16", scale=s_state, zero_point=0, is_variable=True, name="state")
    x = mb.tensor((1, 3), "int8", scale=s_in, zero_point=0, name="x")
    y = mb.tensor((1, 4), "int8", scale=s_out, zero_point=0, name="y")
    mb.operator("SVDF", [x, wf, wt, -1, st], [y], {"rank": 1, "fused_activation_function": "RELU"})
    return mb.build([x], [y])


@pytest.mark.parametrize("scales", [(3e38, 1e-45, 1.0), (1.0, 3e38, 1e-45), (1.0, 1e-45, 1.0)])
def test_svdf_extreme_scales(scales: tuple[float, float, float]) -> None:
    """Was OverflowError in quantize_multiplier."""
    rejects(svdf_model(*scales), "operator #0 SVDF")


@pytest.mark.parametrize("dtype,zp", [("int8", 128), ("int8", -129), ("int8", 1 << 40), ("int16", 40000),
                                      ("int16", -(1 << 63))])
def test_zero_point_outside_type_range(dtype: str, zp: int) -> None:
    """Was accepted: C failing -Werror (memset of a state) or overflowing in add_s8.h at run time."""
    rejects(unary("RELU", dtype, zp_in=zp), "operator #0 RELU", "tensor #0 'x'", "zero point")


def test_add_zero_point_outside_range() -> None:
    mb = ModelBuilder()
    a = mb.tensor([1, 4], "int8", scale=0.1, zero_point=-65405, name="a")
    b = mb.tensor([1, 4], "int8", scale=0.1, zero_point=0, name="b")
    y = mb.tensor([1, 4], "int8", scale=0.1, zero_point=0, name="y")
    mb.operator("ADD", [a, b], [y])
    rejects(mb.build([a, b], [y]), "operator #0 ADD", "'a'", "zero point")


def test_add_output_scale_too_small() -> None:
    """TFLite's QuantizeMultiplierSmallerThanOneExp CHECK-fails; was an AssertionError."""
    mb = ModelBuilder()
    a = mb.tensor([1, 4], "int8", scale=1.0, zero_point=0, name="a")
    b = mb.tensor([1, 4], "int8", scale=1.0, zero_point=0, name="b")
    y = mb.tensor([1, 4], "int8", scale=1e-9, zero_point=0, name="y")
    mb.operator("ADD", [a, b], [y])
    rejects(mb.build([a, b], [y]), "operator #0 ADD")


# ---- graph structure -----------------------------------------------------------------------------

def test_operator_reading_its_own_output() -> None:
    """Was accepted; the C passed a const pointer as the output (-Werror=discarded-qualifiers)."""
    mb = ModelBuilder()
    x = mb.tensor([1, 8], "int8", scale=0.1, zero_point=0, name="x")
    y = mb.tensor([1, 8], "int8", scale=0.1, zero_point=0, name="y")
    mb.operator("RELU", [x], [y])
    mb.operator("RELU", [y], [y])
    rejects(mb.build([x], [y]), "operator #1 RELU", "reads its own output tensor #1 'y'")


def test_constant_buffer_on_operator_output() -> None:
    """Was a KeyError in the planner."""
    mb = ModelBuilder()
    x = mb.tensor([1, 8], "int8", scale=0.1, zero_point=0, name="x")
    c = mb.tensor([1, 8], "int8", data=np.ones((1, 8), np.int8), scale=0.1, zero_point=0, name="c")
    y = mb.tensor([1, 8], "int8", scale=0.1, zero_point=0, name="y")
    mb.operator("RELU", [x], [c])
    mb.operator("RELU", [c], [y])
    rejects(mb.build([x], [y]), "operator #0 RELU", "tensor #1 'c'", "constant")


def test_tensor_written_twice() -> None:
    mb = ModelBuilder()
    x = mb.tensor([1, 8], "int8", scale=0.1, zero_point=0, name="x")
    t = mb.tensor([1, 8], "int8", scale=0.1, zero_point=0, name="t")
    y = mb.tensor([1, 8], "int8", scale=0.1, zero_point=0, name="y")
    mb.operator("RELU", [x], [t])
    mb.operator("RELU6", [x], [t])
    mb.operator("RELU", [t], [y])
    rejects(mb.build([x], [y]), "operator #1 RELU6", "tensor #1 't'", "operator #0 RELU writes too")


def test_cycle() -> None:
    mb = ModelBuilder()
    x = mb.tensor([1, 8], "int8", scale=0.1, zero_point=0, name="x")
    a = mb.tensor([1, 8], "int8", scale=0.1, zero_point=0, name="a")
    b = mb.tensor([1, 8], "int8", scale=0.1, zero_point=0, name="b")
    y = mb.tensor([1, 8], "int8", scale=0.1, zero_point=0, name="y")
    mb.operator("ADD", [x, b], [a])
    mb.operator("RELU", [a], [b])
    mb.operator("RELU", [b], [y])
    rejects(mb.build([x], [y]), "operator #0 ADD", "tensor #2 'b'", "before operator #1 RELU")


def test_reads_tensor_nothing_computes() -> None:
    mb = ModelBuilder()
    x = mb.tensor([1, 8], "int8", scale=0.1, zero_point=0, name="x")
    z = mb.tensor([1, 8], "int8", scale=0.1, zero_point=0, name="dangling")
    y = mb.tensor([1, 8], "int8", scale=0.1, zero_point=0, name="y")
    mb.operator("ADD", [x, z], [y])
    rejects(mb.build([x], [y]), "operator #0 ADD", "'dangling'")


def test_writes_model_input() -> None:
    mb = ModelBuilder()
    x = mb.tensor([1, 8], "int8", scale=0.1, zero_point=0, name="x")
    w = mb.tensor([1, 8], "int8", scale=0.1, zero_point=0, name="w")
    y = mb.tensor([1, 8], "int8", scale=0.1, zero_point=0, name="y")
    mb.operator("RELU", [x], [w])
    mb.operator("RELU", [w], [y])
    rejects(mb.build([x, w], [y]), "operator #0 RELU", "model input tensor #1 'w'")


# ---- untrusted strings --------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["a\nb", "x\r\n#include <evil>", "*/ int x; /*", "tab\there", "nul\x00byte",
                                  "esc\x1b[31m", "quote\"back\\slash"])
def test_names_never_raw_in_errors_or_c(name: str) -> None:
    # rejected (uint8 is not supported by RELU): the error is one line
    msg = rejects(unary("RELU", "uint8", name_in=name, zp_in=0), "operator #0 RELU")
    assert name not in msg or name.isprintable()
    # accepted: no raw name or control character in the generated C
    compiled = accepts(unary("RELU", "int8", name_in=name, name_out=name + "_out"))
    for path, raw in compiled.files.items():
        if path.endswith((".c", ".h")):
            text = raw.decode()
            assert all(32 <= ord(c) < 127 or c == "\n" for c in text), path
            if not name.isprintable() or "*/" in name:
                assert name not in text, path


def test_valid_model_still_compiles() -> None:
    accepts(unary("RELU", s_in=0.5, s_out=0.25, zp_in=-128, zp_out=127))
    accepts(unary("LEAKY_RELU", "int16", s_in=0.001, s_out=0.002, options={"alpha": -0.3}))


# ---- accumulator bounds (kernels/fully_connected_s8_rows.h, common.h) ------------------------------

def fc_model(dtype: str, bias_value: int, depth: int = 16, weight: int = 127, s_out: float = 1e3) -> bytes:
    mb = ModelBuilder()
    x = mb.tensor([2, depth], dtype, scale=0.5, zero_point=0, name="x")
    w = mb.tensor([4, depth], "int8", data=np.full((4, depth), weight, np.int8), scale=0.5, zero_point=0, name="w")
    bdt = "int32" if dtype == "int8" else "int64"
    b = mb.tensor([4], bdt, data=np.array([bias_value, 0, -5, 1], dtype=np.int64), scale=0.25, zero_point=0, name="b")
    y = mb.tensor([2, 4], dtype, scale=s_out, zero_point=0, name="y")
    mb.operator("FULLY_CONNECTED", [x, w, b], [y])
    return mb.build([x], [y])


@pytest.mark.parametrize("dtype,bias", [("int8", (1 << 31) - 100), ("int8", -(1 << 31)), ("int16", 1 << 62),
                                        ("int16", -(1 << 63))])
def test_bias_that_overflows_the_accumulator(dtype: str, bias: int) -> None:
    """Was accepted: signed overflow at run time in fully_connected_s8_rows.h / common.h (int64 rescale)."""
    rejects(fc_model(dtype, bias), "operator #0 FULLY_CONNECTED", "bias tensor #2 'b'", "weights tensor #1 'w'")


def test_output_scale_too_small_for_the_accumulator() -> None:
    """The rescaled accumulator plus the output zero point would overflow int32."""
    rejects(fc_model("int8", 0, s_out=1e-6), "operator #0 FULLY_CONNECTED", "'w'")


@pytest.mark.parametrize("dtype,bias", [("int8", (1 << 31) - 1 - 256 * 127 * 16),
                                        ("int16", (1 << 47) - 1 - 32768 * 127 * 16)])
def test_largest_accepted_bias_runs_clean(dtype: str, bias: int) -> None:
    """At the bound, extreme inputs (all min, all max, ...) run without UB under ASan/UBSan."""
    runs_clean(accepts(fc_model(dtype, bias)))


def test_transpose_conv_16x8_int32_bias_wraps_like_the_reference() -> None:
    """Was signed overflow in transpose_conv_s16.h (int32 bias added in int32 to an extreme sum)."""
    mb = ModelBuilder()
    s = mb.tensor((4,), "int32", data=np.array([1, 4, 4, 2]))
    w = mb.tensor((2, 2, 2, 2), "int8", data=np.full((2, 2, 2, 2), -128), scale=0.01, zero_point=0)
    x = mb.tensor((1, 3, 3, 2), "int16", name="x", scale=0.01, zero_point=0)
    b = mb.tensor((2,), "int32", data=np.array([(1 << 31) - 1, -(1 << 31)]), scale=1e-4, zero_point=0)
    y = mb.tensor((1, 4, 4, 2), "int16", name="y", scale=0.01, zero_point=0)
    mb.operator("TRANSPOSE_CONV", [s, w, x, b], [y], {"padding": "VALID", "stride_w": 1, "stride_h": 1})
    runs_clean(accepts(mb.build([x], [y])))


# ---- sizes and time -----------------------------------------------------------------------------

def chain(op: str, n: int) -> bytes:
    mb = ModelBuilder()
    t = first = mb.tensor([1, 4], "int8", scale=0.1, zero_point=0, name="x")
    for i in range(n):
        y = mb.tensor([1, 4] if i % 2 else [4], "int8", scale=0.1, zero_point=0)
        mb.operator(op, [t], [y], {"new_shape": [1, 4] if i % 2 else [4]} if op == "RESHAPE" else None)
        t = y
    z = mb.tensor([4], "int8", scale=0.1, zero_point=0, name="z")
    mb.operator("RELU", [t], [z])
    return mb.build([first], [z])


def test_long_reshape_chain_is_fast() -> None:
    """Was cubic in the alias pass: 2 000 chained reshapes (300 KB) took minutes."""
    import time

    model = chain("RESHAPE", 1500)
    start = time.monotonic()
    compiled = accepts(model)
    assert time.monotonic() - start < 20
    assert len(compiled.graph.operators) == 1


def test_operator_count_bounded() -> None:
    from utvm_build.frontend.tflite import MAX_OPERATORS

    rejects(chain("RELU", MAX_OPERATORS), "operators", str(MAX_OPERATORS))


@pytest.mark.parametrize("op", ["RELU6", "RELU"])
def test_activation_bound_beyond_int32(op: str) -> None:
    """6 / output scale overflowed to inf: was OverflowError in tflite_round (UB in the reference)."""
    rejects(unary(op, s_in=1.2e-8, s_out=1.4e-45), f"operator #0 {op}", "'y'")


def test_stride_beyond_int32() -> None:
    """Was accepted: ``ix * stride`` overflowed in the kernels (-Werror=aggressive-loop-optimizations)."""
    mb = ModelBuilder()
    s = mb.tensor((4,), "int32", data=np.array([1, 2, 82, 2]))
    w = mb.tensor((2, 4, 4, 2), "int8", data=np.ones((2, 4, 4, 2)), scale=0.01, zero_point=0)
    x = mb.tensor((1, 1, 40, 2), "int8", name="x", scale=0.01, zero_point=0)
    y = mb.tensor((1, 2, 82, 2), "int8", name="y", scale=0.01, zero_point=0)
    mb.operator("TRANSPOSE_CONV", [s, w, x], [y], {"padding": "VALID", "stride_w": 1 << 30, "stride_h": 2})
    rejects(mb.build([x], [y]), "operator #0 TRANSPOSE_CONV", "stride 1073741824")
    mb = ModelBuilder()
    x = mb.tensor((1, 5, 5, 1), "int8", name="x", scale=0.01, zero_point=0)
    y = mb.tensor((1, 1, 1, 1), "int8", name="y", scale=0.01, zero_point=0)
    mb.operator("MAX_POOL_2D", [x], [y], {"padding": "SAME", "stride_w": (1 << 31) - 1, "stride_h": (1 << 31) - 1,
                                          "filter_width": 2, "filter_height": 2})
    rejects(mb.build([x], [y]), "operator #0 MAX_POOL_2D", "beyond int32")
