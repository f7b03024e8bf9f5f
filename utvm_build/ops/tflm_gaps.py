"""Type combinations TFLite Micro's interpreter runs and utvm-build refuses, each with its reason.

The unary, cast, quantize, elementwise, convolution, pooling, reduction, shape / movement and
softmax families are swept (tests/test_type_sweep.py): every
(operator, input types, output type) candidate is run through TFLM's interpreter, and each one it
runs must either compile here and match the reference, or be listed below. The test fails when
this list and the compiler disagree, so the list (printed in docs/operators.md) cannot go stale.
Keys are written as ``"OP in1,in2 -> out"``.
"""

from __future__ import annotations

_NOT_BOOL = ("float32", "int8", "uint8", "int16", "int32", "int64", "uint32")

_LOGICAL_WHY = ("TFLM's kernel does not check the input type and reads each element's first byte as a C++ "
                "bool (undefined for bytes other than 0 and 1); TFLite refuses it")

#: "OP in1,in2 -> out" -> why utvm-build refuses it although TFLM's interpreter runs it
REFUSED: dict[str, str] = {
    "GREATER int16,int16 -> bool": (
        "TFLM registers it, but its int16 comparison rescales with parameters Prepare never sets "
        "(uninitialised memory), so its result is not defined; TFLite refuses int16 comparisons"),
    "PRELU float32,int8 -> float32": (
        "TFLM's float32 PRELU does not check alpha's type and reads alpha's int8 bytes as float32 "
        "(past the end of the tensor); TFLite refuses it"),
    "DEPTHWISE_CONV_2D int16,int8,int32 -> int16": (
        "TFLM's 16x8 depthwise kernel reads the bias as int64 whatever its type (an int32 bias is read "
        "past its end); utvm-build takes int64 biases for it"),
    **{f"TRANSPOSE_CONV int16,int16,{b} -> int16": (
        "TFLM's Prepare accepts weights of the input's type, but its int16 kernel reads the weights as "
        "int8 (int16 weights are misread); TFLite refuses it") for b in ("int64", "int32")},
    **{f"{op} {t},{t} -> bool": _LOGICAL_WHY for op in ("LOGICAL_AND", "LOGICAL_OR") for t in _NOT_BOOL},
}


def refused_table_rows() -> list[tuple[str, str]]:
    """(combinations, reason) for the documentation: keys with one reason are listed together."""
    by_reason: dict[str, list[str]] = {}
    for key, why in REFUSED.items():
        by_reason.setdefault(why, []).append(key)
    return [("; ".join(keys), why) for why, keys in by_reason.items()]
