"""The operator translation unit: one C function per operator, kernels included once."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..graph import Graph, Operator, Tensor
from .cnames import c_comment, float_literal, int_literal
from .constants import ConstantPool


@dataclass
class OpContext:
    """What an operator handler uses to write its C function (see docs/architecture.md)."""

    g: Graph
    op: Operator
    position: int
    prefix: str
    pool: ConstantPool
    kernels: set[str]
    has_scratch: bool = False
    body: list[str] = field(default_factory=list)
    statics: list[str] = field(default_factory=list)
    params: list[tuple[str, str]] = field(default_factory=list)   # (C declaration, tensor index)
    _param_for: dict[int, str] = field(default_factory=dict)

    # ---- operands --------------------------------------------------------------------------
    def input(self, k: int) -> str:
        """C expression of input k: a parameter for activations, a const array for constants."""
        t = self.g.input_tensor(self.op, k)
        if t is None:
            return "NULL"
        if t.is_const:
            return self.const_tensor(t)
        return self._param(t, writable=t.is_variable)

    def output(self, k: int = 0) -> str:
        return self._param(self.g.tensors[self.op.outputs[k]], writable=True)

    @property
    def scratch(self) -> str:
        assert self.has_scratch, "the handler's scratch_bytes() returned 0"
        return "scratch"

    def const_tensor(self, t: Tensor) -> str:
        """The const array holding a constant tensor of the model."""
        assert t.data is not None
        return self.pool.add(t.name, t.data, t.ctype, f"tensor #{t.index} '{t.name}' {t.dtype} {list(t.shape)}")

    def const(self, hint: str, values: np.ndarray, ctype: str) -> str:
        """A derived constant array (multipliers, folded biases ...), stored in flash."""
        return self.pool.add(f"op{self.op.index}_{hint}", values, ctype,
                             f"{self.op.op} #{self.op.index}: {hint}")

    def _param(self, t: Tensor, writable: bool) -> str:
        name = self._param_for.get(t.index)
        if name is None:
            role = "out" if t.index in self.op.outputs else "in"
            name = f"{role}{sum(1 for _, n in self._param_for.items() if n.startswith(role))}"
            qual = "" if writable else "const "
            self.params.append((f"{qual}{t.ctype}* {name}", str(t.index)))
            self._param_for[t.index] = name
        return name

    # ---- code ------------------------------------------------------------------------------
    def kernel(self, name: str) -> None:
        """Include utvm_build/kernels/<name>.h in the operator file."""
        self.kernels.add(name)

    def line(self, text: str) -> None:
        self.body.append(text)

    def param_struct(self, ctype: str, fields: dict[str, int | float | str], hint: str = "params") -> str:
        """Emit ``static const <ctype> op<i>_<hint> = {.field = value, ...};`` (at block scope in the
        operator's function); returns its name."""
        name = f"op{self.op.index}_{hint}"
        items = []
        for key, value in fields.items():
            if isinstance(value, str):
                text = value
            elif isinstance(value, float):
                text = float_literal(value)
            else:
                text = int_literal(int(value))
            items.append(f"  .{key} = {text}")
        self.statics.append(f"static const {ctype} {name} = {{\n" + ",\n".join(items) + "\n};")
        return name


def op_function_name(prefix: str, op: Operator) -> str:
    """``<prefix>_op<k>_<name>``: k is the operator's number in the model, as `utvm-build info`,
    errors and metadata.json number it (operators removed by passes leave gaps)."""
    return f"{prefix}_op{op.index}_{op.op.lower()}"


def describe(g: Graph, op: Operator) -> str:
    ins = [g.tensors[i] for i in op.inputs if i >= 0 and not g.tensors[i].is_const]
    outs = [g.tensors[i] for i in op.outputs]
    shape = " ".join(f"{list(t.shape)}" for t in ins) + " -> " + " ".join(f"{list(t.shape)}" for t in outs)
    return c_comment(f"{op.op} (model operator #{op.index}) {shape}", 160)
