"""Seeds of the elementwise math operators (ops/math_unary.py, ops/math_binary.py, int32
ADD/SUB/MUL): one small model per (operator, type), made with the test suite's model writer."""

from __future__ import annotations

from collections.abc import Iterator

from fuzz.seeds import _writer

_Q = {"int8": {"scale": 0.05, "zero_point": -3}, "int16": {"scale": 0.002, "zero_point": 0}}


def _unary(op: str, dt: str, odt: str | None = None) -> bytes:
    mb = _writer().ModelBuilder()
    odt = odt or dt
    x = mb.tensor((1, 2, 3), dt, name="x", **_Q.get(dt, {}) if op != "CAST" else {})
    y = mb.tensor((1, 2, 3), odt, name="y", **_Q.get(odt, {}) if op != "CAST" else {})
    mb.operator(op, [x], [y])
    return mb.build([x], [y])


def _binary(op: str, dt: str, odt: str | None = None, alpha: str | None = None, options: dict | None = None) -> bytes:
    mb = _writer().ModelBuilder()
    odt = odt or dt
    a = mb.tensor((1, 2, 3), dt, name="a", **_Q.get(dt, {}))
    b = mb.tensor((1, 3) if op != "ADD_N" else (1, 2, 3), alpha or dt, name="b", **_Q.get(alpha or dt, {}))
    y = mb.tensor((1, 2, 3), odt, name="y", **(_Q.get(odt, {}) if odt != "bool" else {}))
    mb.operator(op, [a, b], [y], options)
    return mb.build([a, b], [y])


def _select(dt: str) -> bytes:
    mb = _writer().ModelBuilder()
    c = mb.tensor((2, 1), "bool", name="c")
    x = mb.tensor((1, 3), dt, name="x", **_Q.get(dt, {}))
    y = mb.tensor((2, 3), dt, name="y", **_Q.get(dt, {}))
    o = mb.tensor((2, 3), dt, name="o", **_Q.get(dt, {}))
    mb.operator("SELECT_V2", [c, x, y], [o])
    return mb.build([c, x, y], [o])


def seeds() -> Iterator[tuple[str, bytes]]:
    for op in ("ABS", "NEG", "CEIL", "FLOOR", "ROUND", "SQRT", "RSQRT", "SQUARE", "EXP", "LOG", "SIN", "COS", "ELU",
               "HARD_SWISH"):
        yield f"math_{op.lower()}_float32", _unary(op, "float32")
    for op in ("ABS", "RSQRT", "ELU", "HARD_SWISH"):
        yield f"math_{op.lower()}_int8", _unary(op, "int8")
    yield "math_abs_int16", _unary("ABS", "int16")
    yield "math_rsqrt_int16", _unary("RSQRT", "int16")
    yield "math_logical_not_bool", _unary("LOGICAL_NOT", "bool")
    for dt in ("int8", "int32", "int64", "float32"):
        yield f"math_zeros_like_{dt}", _unary("ZEROS_LIKE", dt)
    for a in ("int8", "int16", "int32", "float32", "bool"):
        for b in ("int8", "int16", "int32", "float32", "bool"):
            yield f"math_cast_{a}_{b}", _unary("CAST", a, b)
    for op in ("EQUAL", "NOT_EQUAL", "GREATER", "GREATER_EQUAL", "LESS", "LESS_EQUAL"):
        for dt in ("float32", "int8", "int32", "int64") + (("bool",) if op in ("EQUAL", "NOT_EQUAL") else ()):
            yield f"math_{op.lower()}_{dt}", _binary(op, dt, "bool")
    for op in ("LOGICAL_AND", "LOGICAL_OR"):
        yield f"math_{op.lower()}_bool", _binary(op, "bool")
    for op in ("MAXIMUM", "MINIMUM"):
        for dt in ("float32", "int8", "int16", "int32", "int64"):
            yield f"math_{op.lower()}_{dt}", _binary(op, dt)
    for dt in ("float32", "int32", "int8", "int16"):
        yield f"math_squared_difference_{dt}", _binary("SQUARED_DIFFERENCE", dt)
    for dt in ("float32", "int32", "int8"):
        yield f"math_div_{dt}", _binary("DIV", dt, options={"fused_activation_function": "RELU"})
    for op in ("FLOOR_DIV", "FLOOR_MOD"):
        yield f"math_{op.lower()}_float32", _binary(op, "float32")
    yield "math_prelu_float32", _binary("PRELU", "float32")
    yield "math_prelu_int8", _binary("PRELU", "int8")
    yield "math_prelu_int16", _binary("PRELU", "int16", alpha="int8")
    for dt in ("float32", "int8", "int16"):
        yield f"math_select_v2_{dt}", _select(dt)
    for dt in ("float32", "int8"):
        yield f"math_add_n_{dt}", _binary("ADD_N", dt)
    for op in ("ADD", "SUB", "MUL"):
        yield f"math_{op.lower()}_int32", _binary(op, "int32", options={"fused_activation_function": "RELU6"})
