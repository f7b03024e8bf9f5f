"""The type sweep of issue 23: every (builtin, input types, output type) of the unary, cast,
quantize and elementwise families, as single-operator models (tests/test_type_sweep.py); the
convolution, pooling, reduction, shape / movement and softmax families are in
tests/type_sweep_nn.py, whose candidates ``candidates()`` appends.

A candidate is every combination of the types below for each operator (binary operators: both
inputs of one type; PRELU: alpha of the input's type or int8; SELECT_V2: a bool condition). Which
candidates TFLite Micro's kernels accept is not written down here: the test asks TFLM's
interpreter (PyPI tflite-micro), one model per candidate, and a candidate it runs is "accepted".
Quantization parameters are fixed per type so that the question is about types: int8 / uint8
scale 0.05 with a non-zero zero point, int16 scale 0.002 zero point 0 (TFLM's int16 kernels want
0), int32 / int64 / uint32 none (scale 1.0 zero point 0 for QUANTIZE / DEQUANTIZE: TFLM's int32
ADD and SUB refuse quantized tensors), float32 and bool none; LOGISTIC and TANH get
the output parameters TFLM requires (int8: 1/256, -128 and 1/128, 0; int16: 1/32768, 0).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import type_sweep_nn
from tflite_writer import ModelBuilder

TYPES = ("float32", "int8", "uint8", "int16", "int32", "int64", "uint32", "bool")

UNARY = ("ABS", "NEG", "CEIL", "FLOOR", "ROUND", "SQRT", "RSQRT", "SQUARE", "EXP", "LOG", "SIN", "COS", "ELU",
         "HARD_SWISH", "LOGICAL_NOT", "ZEROS_LIKE", "RELU", "RELU6", "LEAKY_RELU", "LOGISTIC", "TANH",
         "CAST", "QUANTIZE", "DEQUANTIZE")
BINARY = ("ADD", "SUB", "MUL", "DIV", "MAXIMUM", "MINIMUM", "SQUARED_DIFFERENCE", "FLOOR_DIV", "FLOOR_MOD",
          "EQUAL", "NOT_EQUAL", "GREATER", "GREATER_EQUAL", "LESS", "LESS_EQUAL", "LOGICAL_AND", "LOGICAL_OR",
          "ADD_N", "PRELU")
COMPARISONS = ("EQUAL", "NOT_EQUAL", "GREATER", "GREATER_EQUAL", "LESS", "LESS_EQUAL")
FAMILIES = {"unary": UNARY[:21], "cast": ("CAST",), "quantize": ("QUANTIZE", "DEQUANTIZE"),
            "elementwise": BINARY + ("SELECT_V2",), **type_sweep_nn.FAMILIES}

_QUANT = {"int8": (0.05, 3), "uint8": (0.05, 131), "int16": (0.002, 0), "int32": (1.0, 0),
          "int64": (1.0, 0), "uint32": (1.0, 0)}
_OUT_QUANT = {("LOGISTIC", "int8"): (1 / 256, -128), ("LOGISTIC", "int16"): (1 / 32768, 0),
              ("TANH", "int8"): (1 / 128, 0), ("TANH", "int16"): (1 / 32768, 0),
              # QUANTIZE: another scale and zero point, so that the requantization is not the identity
              ("QUANTIZE", "int8"): (0.07, -5), ("QUANTIZE", "uint8"): (0.07, 120),
              ("QUANTIZE", "int16"): (0.0015, 0), ("QUANTIZE", "int32"): (0.5, 0)}
_OPTIONS = {"ADD": {"fused_activation_function": "NONE"}, "SUB": {"fused_activation_function": "NONE"},
            "MUL": {"fused_activation_function": "NONE"}, "DIV": {"fused_activation_function": "NONE"},
            "LEAKY_RELU": {"alpha": 0.2}}
SHAPE = (2, 3, 4)


@dataclass(frozen=True)
class Combo:
    """One candidate: the operator, its input types in order, its output type."""

    op: str
    inputs: tuple[str, ...]
    output: str

    @property
    def key(self) -> str:
        return f"{self.op} {','.join(self.inputs)} -> {self.output}"


def family_of(op: str) -> str:
    return next(f for f, ops in FAMILIES.items() if op in ops)


def output_types(op: str, in_type: str) -> tuple[str, ...]:
    """The output types a candidate may have: free for the conversions (CAST, QUANTIZE,
    DEQUANTIZE), bool for comparisons and logical operators, else the input's type (TFLite's
    schema; TFLM's kernels mostly do not check the output type, so running a model with another
    one says nothing)."""
    if op in ("CAST", "QUANTIZE", "DEQUANTIZE"):
        return TYPES
    if op in COMPARISONS or op in ("LOGICAL_AND", "LOGICAL_OR", "LOGICAL_NOT"):
        return ("bool",)
    return (in_type,)


def candidates() -> list[Combo]:
    out: list[Combo] = []
    for op in UNARY:
        out += [Combo(op, (a,), b) for a in TYPES for b in output_types(op, a)]
    for op in BINARY:
        for a in TYPES:
            alphas = sorted({a, "int8"}) if op == "PRELU" else [a]
            out += [Combo(op, (a, alpha), b) for alpha in alphas for b in output_types(op, a)]
    out += [Combo("SELECT_V2", ("bool", a, a), a) for a in TYPES]
    return out + type_sweep_nn.candidates()


def _quant(op: str, dtype: str, override: tuple[float, int] | None = None) -> dict:
    if dtype in ("float32", "bool") or (dtype in ("int32", "int64", "uint32") and op not in ("QUANTIZE", "DEQUANTIZE")):
        return {}
    s, z = override or _QUANT[dtype]
    return {"scale": float(np.float32(s)), "zero_point": int(z)}


def model(c: Combo) -> bytes:
    if c.op in type_sweep_nn.BUILT:
        return type_sweep_nn.model(c)
    mb = ModelBuilder(f"type sweep {c.key}")
    ins = [mb.tensor(SHAPE, t, name=f"x{k}", **_quant(c.op, t)) for k, t in enumerate(c.inputs)]
    y = mb.tensor(SHAPE, c.output, name="y", **_quant(c.op, c.output, _OUT_QUANT.get((c.op, c.output))))
    mb.operator(c.op, ins, [y], _OPTIONS.get(c.op))
    return mb.build(ins, [y])


def inputs(c: Combo, seed: int) -> list[np.ndarray]:
    """Seeded inputs that keep every operator inside its defined domain (no NaN from LOG / SQRT of
    negatives, no division by zero, RSQRT int8 not below its zero point, float32 -> integer CAST
    in range: there TFLite and TFLM differ and neither is defined by C)."""
    if c.op in type_sweep_nn.BUILT:
        return type_sweep_nn.inputs(c, model(c), seed)
    rng = np.random.default_rng(seed)
    out = []
    for k, t in enumerate(c.inputs):
        if t == "bool":
            x = rng.integers(0, 2, SHAPE).astype(bool)
        elif t == "float32":
            x = rng.uniform(-4, 4, SHAPE).astype(np.float32)
            if c.op in ("SQRT", "RSQRT", "LOG"):
                x = np.abs(x) + np.float32(0.01)
            if c.op == "CAST" and c.output not in ("float32", "bool"):
                hi = 100.0 if c.output in ("int8", "uint8") else 3.0e4
                lo = 0.0 if c.output in ("uint8", "uint32") else -hi
                x = rng.uniform(lo, hi, SHAPE).astype(np.float32)
            if k == 1 and c.op in ("DIV", "FLOOR_DIV", "FLOOR_MOD"):
                x = np.where(np.abs(x) < 0.25, np.float32(0.5), x).astype(np.float32)
        else:
            info = np.iinfo(t)
            x = rng.integers(info.min, info.max, SHAPE, endpoint=True, dtype=np.int64).astype(t)
            if c.op == "RSQRT":
                x = np.maximum(x, _QUANT[t][1]).astype(t)
            if k == 1 and c.op in ("DIV", "FLOOR_DIV", "FLOOR_MOD"):
                x = np.where(x == 0, np.array(1, dtype=t), x).astype(t)
            if c.op in ("ADD", "SUB", "MUL", "SQUARED_DIFFERENCE", "ADD_N") and t in ("int32", "int64"):
                x = (x // 65536).astype(t)   # wrap-around is undefined in the reference kernels
        out.append(x)
    return out
