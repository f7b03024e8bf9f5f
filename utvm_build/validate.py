"""Model-wide checks run before anything trusts the graph: structure, quantization, sizes.

Operators' own checks (dtypes, shapes, options, per-operator multipliers) live in their handlers'
``validate()``; what holds for every operator is checked here once, so a corrupted or hostile model
is rejected with one line naming the operator and tensor instead of reaching the code generator:

- structure: no operator reads its own output or writes a constant, a variable or a model input;
  no tensor is written by two operators; every tensor an operator reads is a model input, a
  constant, a variable or the output of an earlier operator (so no cycles, nothing read before it
  is written);
- quantization: zero points inside the range of the tensor's type (scales are checked finite and
  positive by the reader), as TFLite's Prepare functions require;
- sizes: every tensor below 2 GiB (the reader), and all activations together too, so that every
  offset and element count fits the int32 arithmetic of the kernels.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

from .errors import UnsupportedError, UtvmError
from .graph import Graph, Operator, Tensor

#: Bytes of all non-constant tensors together (int32 offsets and counts in the generated C).
MAX_ACTIVATION_BYTES = (1 << 31) - 1

_ZP_RANGE = {"int8": (-128, 127), "uint8": (0, 255), "int16": (-32768, 32767),
             "int32": (-(1 << 31), (1 << 31) - 1)}

#: Inputs an operator accepts but never reads (static shapes): they may be anything.
_IGNORED_INPUTS = {("RESHAPE", 1)}


def _fail(op: Operator, message: str) -> UnsupportedError:
    return UnsupportedError(message, op_index=op.index, op_name=op.op)


def _name(t: Tensor) -> str:
    return f"tensor #{t.index} '{t.name}'"


def validate_graph(g: Graph) -> None:
    """Raise UnsupportedError (one line) when the graph is not well formed."""
    validate_quantization(g)
    validate_sizes(g)
    inputs = set(g.inputs)
    for t in g.inputs:
        tensor = g.tensors[t]
        if tensor.data is not None or tensor.is_variable:
            raise UnsupportedError(f"model input {_name(tensor)} is a constant or variable tensor")
    writer: dict[int, Operator] = {}
    for op in g.operators:
        if len(set(op.outputs)) != len(op.outputs):
            raise _fail(op, "lists the same output tensor twice")
        for t in op.outputs:
            tensor = g.tensors[t]
            if t in op.inputs:
                raise _fail(op, f"reads its own output {_name(tensor)}")
            if tensor.data is not None and not tensor.is_variable:
                raise _fail(op, f"writes {_name(tensor)}, which is a constant (it has data)")
            if tensor.is_variable:
                raise _fail(op, f"writes the variable {_name(tensor)} as an output")
            if t in inputs:
                raise _fail(op, f"writes the model input {_name(tensor)}")
            if t in writer:
                first = writer[t]
                raise _fail(op, f"writes {_name(tensor)}, which operator #{first.index} {first.op} "
                                "writes too")
            writer[t] = op
    available = inputs | {t.index for t in g.tensors if t.data is not None or t.is_variable}
    for op in g.operators:
        for k, t in enumerate(op.inputs):
            if t < 0 or t in available or (op.op, k) in _IGNORED_INPUTS:
                continue
            tensor = g.tensors[t]
            if t in writer:
                later = writer[t]
                raise _fail(op, f"reads {_name(tensor)} before operator #{later.index} {later.op} "
                                "computes it (a cycle, or operators out of order)")
            raise _fail(op, f"reads {_name(tensor)}, which is neither a model input, a constant nor the "
                            "output of an operator")
        available.update(op.outputs)


def validate_quantization(g: Graph) -> None:
    """Zero points inside the range of each integer tensor's type."""
    for t in g.tensors:
        if t.quant is None or t.dtype not in _ZP_RANGE:
            continue
        lo, hi = _ZP_RANGE[t.dtype]
        zps = t.quant.zero_point
        if len(zps) and (int(zps.min()) < lo or int(zps.max()) > hi):
            bad = int(zps.min()) if int(zps.min()) < lo else int(zps.max())
            where = _user(g, t)
            msg = f"{_name(t)} has zero point {bad}, outside the {t.dtype} range [{lo}, {hi}]"
            if where is not None:
                raise _fail(where, msg)
            raise UnsupportedError(msg)


def validate_sizes(g: Graph) -> None:
    total = sum(t.nbytes for t in g.tensors if t.data is None or t.is_variable)
    if total > MAX_ACTIVATION_BYTES:
        raise UnsupportedError(f"the model's activations need {total} bytes; at most {MAX_ACTIVATION_BYTES}")


def _user(g: Graph, t: Tensor) -> Operator | None:
    """The first operator that reads or writes ``t`` (to name it in errors)."""
    for op in g.operators:
        if t.index in op.inputs or t.index in op.outputs:
            return op
    return None


@contextmanager
def operator_context(op: Operator, g: Graph | None = None) -> Iterator[None]:
    """Name ``op`` in errors raised without an operator (e.g. by the quantization helpers); for an
    unrepresentable rescale factor, also name the operator's tensors and their scales.

    Inside, float overflow and underflow of numpy scalars is silent (no RuntimeWarning): it yields
    inf or 0, which the multiplier checks turn into an error or a zero multiplier as in TFLite.
    """
    from .quant import UnrepresentableMultiplier

    try:
        # Scale products and ratios of extreme (but finite, positive) scales overflow or underflow in
        # float32 as they do in TFLite; the multiplier checks reject what is not representable.
        with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
            yield
    except UtvmError as e:
        if e.op_index is not None:
            raise
        message = str(e)
        if isinstance(e, UnrepresentableMultiplier) and g is not None:
            scales = [f"'{_short(g.tensors[t].name)}' {g.tensors[t].quant.s:.6g}" for t in [*op.inputs, *op.outputs]
                      if t >= 0 and g.tensors[t].quant is not None and not g.tensors[t].quant.per_channel]
            if scales:
                message += f" (scales: {', '.join(scales[:6])})"
        raise type(e)(message, op_index=op.index, op_name=op.op) from None


def _short(name: str, limit: int = 60) -> str:
    return name if len(name) <= limit else name[:limit - 3] + "..."
