"""The operator handler interface and the registry from TFLite builtin names to handlers."""

from __future__ import annotations

import numpy as np

from ..errors import UnsupportedError
from ..graph import Graph, Operator, Tensor
from .call import Prepared

_REGISTRY: dict[str, OpHandler] = {}


class OpHandler:
    """Prepares one kind of TFLite operator: validates it and describes the kernel calls to run.

    ``prepare`` does TFLM's "prepare" work in Python at compile time, once per operator, and
    returns data (``Prepared``: kernel calls with typed operands, MACs); ``emit/`` writes the C.
    The C keeps only the loop and constants.
    """

    #: Human-readable summary of the supported dtypes, shown by `utvm-build info` and in errors.
    supported = ""

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        """Validate (raise UnsupportedError when the operator cannot be compiled) and describe
        the kernel calls; ``target`` lets a handler pick a call shape that a target's kernels
        want (most handlers ignore it: the kernel table picks the target's variant)."""
        raise NotImplementedError


def register(*names: str):
    """Class decorator: register a handler instance for the given TFLite builtin names."""

    def wrap(cls: type[OpHandler]) -> type[OpHandler]:
        for name in names:
            if name in _REGISTRY:
                raise RuntimeError(f"two handlers for {name}")
            _REGISTRY[name] = cls()
        return cls

    return wrap


def handler_for(op_name: str) -> OpHandler | None:
    return _REGISTRY.get(op_name)


def supported_operators() -> list[str]:
    return sorted(_REGISTRY)


# ---- helpers shared by handlers -------------------------------------------------------------

_SUFFIX = {"int8": "s8", "uint8": "u8", "int16": "s16", "int32": "s32", "int64": "s64", "float32": "f32",
           "bool": "b8"}


def dtype_suffix(dtype: str) -> str:
    """Kernel file/function suffix of a dtype, CMSIS-NN style: int8 -> s8, float32 -> f32."""
    return _SUFFIX[dtype]


def fail(op: Operator, message: str) -> UnsupportedError:
    """An UnsupportedError naming the operator; use as ``raise fail(op, "...")``."""
    return UnsupportedError(message, op_index=op.index, op_name=op.op)


def tensor(g: Graph, op: Operator, k: int, what: str = "input") -> Tensor:
    """The k-th input tensor of op (raise if absent)."""
    t = g.input_tensor(op, k)
    if t is None:
        raise fail(op, f"{what} {k} is missing")
    return t


def out_tensor(g: Graph, op: Operator, k: int = 0) -> Tensor:
    if k >= len(op.outputs):
        raise fail(op, f"output {k} is missing")
    return g.tensors[op.outputs[k]]


def expect_counts(op: Operator, n_in: int | tuple[int, int], n_out: int = 1) -> None:
    lo, hi = (n_in, n_in) if isinstance(n_in, int) else n_in
    if not lo <= len(op.inputs) <= hi or len(op.outputs) != n_out:
        raise fail(op, f"expected {lo if lo == hi else f'{lo} to {hi}'} inputs and {n_out} outputs, "
                       f"got {len(op.inputs)} and {len(op.outputs)}")


def expect_dtype(op: Operator, t: Tensor, allowed: tuple[str, ...], role: str) -> None:
    if t.dtype not in allowed:
        raise fail(op, f"{role} tensor #{t.index} '{t.name}' is {t.dtype}; supported: {', '.join(allowed)}")


def expect_const(op: Operator, t: Tensor, role: str) -> np.ndarray:
    if t.data is None or t.is_variable:
        raise fail(op, f"{role} tensor #{t.index} '{t.name}' must be a constant")
    return t.data


def expect_quant(op: Operator, t: Tensor, role: str, per_channel_ok: bool = False) -> None:
    if t.quant is None:
        raise fail(op, f"{role} tensor #{t.index} '{t.name}' ({t.dtype}) has no quantization parameters")
    if t.quant.per_channel and not per_channel_ok:
        raise fail(op, f"{role} tensor #{t.index} '{t.name}' is per-channel quantized; only per-tensor "
                       "is supported here")


def expect_scale(op: Operator, tensors: tuple[tuple[Tensor, str], ...], int16_zero_points: bool = True) -> None:
    """Per-tensor quantization with a positive scale on every (tensor, role); with int16_zero_points,
    int16 operands (the first tensor's type) must have zero point 0, as the int16 kernels assume."""
    for t, role in tensors:
        expect_quant(op, t, role)
        if not t.quant.s > 0:
            raise fail(op, f"{role} scale must be positive")
    if int16_zero_points and tensors[0][0].dtype == "int16" and any(t.quant.zp for t, _ in tensors):
        raise fail(op, "int16 tensors must have zero point 0")
