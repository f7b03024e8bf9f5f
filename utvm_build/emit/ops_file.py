"""The operator functions: one C function per operator, rendered from its kernel calls.

A handler's ``prepare`` returns data (``ops/call.py``); this module is where that data becomes C:
operands become pointer parameters (activations), const arrays (constants, derived tables),
block-scope ``static const`` parameter structs, literals and the scratch pointer. Every call is
checked against its kernel's declared signature (``kernel_table.check_call``) before it is
written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from ..graph import Graph, Operator, Tensor
from ..kernel_table import check_call
from ..ops.call import Const, FieldValue, In, KernelCall, Lit, Null, Operand, Out, Params, Prepared, PtrArray, Scratch
from .cnames import c_comment, float_literal, int_literal
from .constants import ConstantPool

_UNSIGNED = ("uint8_t", "uint16_t", "uint32_t", "size_t")


@dataclass
class OpFunction:
    """The C function of one operator, as the entry point and the ops file need it."""

    op: Operator
    position: int
    prefix: str
    has_scratch: bool
    params: list[tuple[str, str]] = field(default_factory=list)   # (C declaration, tensor index)
    statics: list[str] = field(default_factory=list)
    body: list[str] = field(default_factory=list)
    #: Kernel headers (``kernels/<name>.h``) and their variants for this target.
    kernels: dict[str, str] = field(default_factory=dict)
    #: Per macro of ``Params.selects``, the values this function's calls use.
    selects: dict[str, set[int]] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return op_function_name(self.prefix, self.op)


class _Renderer:
    def __init__(self, g: Graph, op: Operator, fn: OpFunction, pool: ConstantPool, target: str) -> None:
        self.g, self.op, self.fn, self.pool, self.target = g, op, fn, pool, target
        self._param_for: dict[int, str] = {}
        self._names: set[str] = set()

    # ---- operands ------------------------------------------------------------------------------
    def operand(self, arg: Operand) -> str:
        if isinstance(arg, In):
            t = self.g.input_tensor(self.op, arg.k)
            if t is None:
                return "NULL"
            if t.is_const:
                return self.const_tensor(t)
            return self._param(t, writable=t.is_variable or t.dtype == "resource")   # state: written in place
        if isinstance(arg, Out):
            return self._param(self.g.tensors[self.op.outputs[arg.k]], writable=True)
        if isinstance(arg, Const):
            return self.pool.add(f"op{self.op.index}_{arg.hint}", arg.values, arg.ctype,
                                 f"{self.op.op} #{self.op.index}: {arg.hint}")
        if isinstance(arg, Params):
            return "&" + self._params(arg)
        if isinstance(arg, Lit):
            return _literal(arg)
        if isinstance(arg, Null):
            return "NULL"
        if isinstance(arg, Scratch):
            assert self.fn.has_scratch, f"{self.op.op} uses scratch but its kernels' scratch rules gave 0 bytes"
            base = "scratch" if arg.offset == 0 else f"&((uint8_t*)scratch)[{int(arg.offset)}]"
            return base if arg.ctype == "void" else f"({arg.ctype}*){base}"
        if isinstance(arg, PtrArray):
            name = self._unique(arg.hint)
            ptrs = ", ".join(f"(const void*){self.operand(item)}" for item in arg.items)
            self.fn.body.append(f"const void* const {name}[{len(arg.items)}] = {{{ptrs}}};")
            return name
        raise TypeError(f"not an operand: {arg!r}")

    def const_tensor(self, t: Tensor) -> str:
        """The const array holding a constant tensor of the model."""
        assert t.data is not None
        return self.pool.add(t.name, t.data, t.ctype, f"tensor #{t.index} '{t.name}' {t.dtype} {list(t.shape)}")

    def _param(self, t: Tensor, writable: bool) -> str:
        name = self._param_for.get(t.index)
        if name is None:
            role = "out" if t.index in self.op.outputs else "in"
            name = f"{role}{sum(1 for n in self._param_for.values() if n.startswith(role))}"
            qual = "" if writable else "const "
            self.fn.params.append((f"{qual}{t.ctype}* {name}", str(t.index)))
            self._param_for[t.index] = name
        return name

    def _unique(self, hint: str) -> str:
        name, k = hint, 1
        while name in self._names:
            k += 1
            name = f"{hint}{k}"
        self._names.add(name)
        return name

    def _params(self, p: Params) -> str:
        """``static const <ctype> op<i>_<hint> = {.field = value, ...};`` at block scope."""
        name = self._unique(f"op{self.op.index}_{p.hint}")
        if p.selects is not None:
            key, macro = p.selects
            self.fn.selects.setdefault(macro, set()).add(int(p.fields[key]))
        for macro, value in p.selects_values:
            self.fn.selects.setdefault(macro, set()).add(value)
        items = [f"  .{key} = {_field(value, 1)}" for key, value in p.fields.items()]
        self.fn.statics.append(f"static const {p.ctype} {name} = {{\n" + ",\n".join(items) + "\n};")
        return name

    # ---- calls -----------------------------------------------------------------------------------
    def render_call(self, kc: KernelCall) -> None:
        spec = check_call(kc, self.op, self.g, self.target)
        self.fn.kernels[spec.header] = spec.variant
        args = [self.operand(a) for a in kc.args]
        self.fn.body.append(f"{kc.function}({', '.join(args)});")


def _literal(arg: Lit) -> str:
    if isinstance(arg.value, float):
        return float_literal(arg.value)
    text = int_literal(int(arg.value), arg.ctype)
    return text + "u" if arg.ctype in _UNSIGNED and not text.endswith("u") else text


def _field(value: FieldValue, depth: int) -> str:
    """A designated-initializer value: number, array of numbers or nested struct."""
    if isinstance(value, dict):
        items = [f".{k} = {_field(v, depth + 1)}" for k, v in value.items()]
        rows = [", ".join(items[i:i + 6]) for i in range(0, len(items), 6)]
        pad = "  " * depth
        return "{\n" + pad + "  " + (",\n" + pad + "  ").join(rows) + "\n" + pad + "}"
    if isinstance(value, (list, tuple, np.ndarray)):
        return "{" + ", ".join(_field(v, depth) for v in value) + "}"
    if isinstance(value, (float, np.floating)):
        return float_literal(float(value))
    return int_literal(int(value))


def render_op(g: Graph, op: Operator, prepared: Prepared, position: int, prefix: str, pool: ConstantPool,
              target: str, has_scratch: bool) -> OpFunction:
    """The C function of one operator from its prepared kernel calls."""
    fn = OpFunction(op=op, position=position, prefix=prefix, has_scratch=has_scratch)
    r = _Renderer(g, op, fn, pool, target)
    for kc in prepared.calls:
        r.render_call(kc)
    return fn


def op_function_name(prefix: str, op: Operator) -> str:
    """``<prefix>_op<k>_<name>``: k is the operator's number in the model, as `utvm-build info`,
    errors and metadata.json number it (operators removed by passes leave gaps). A custom
    operator's name ``CUSTOM(<code>)`` keeps only letters, digits and underscores."""
    return f"{prefix}_op{op.index}_{re.sub(r'[^A-Za-z0-9_]+', '_', op.op).strip('_').lower()}"


def describe(g: Graph, op: Operator) -> str:
    ins = [g.tensors[i] for i in op.inputs if i >= 0 and not g.tensors[i].is_const]
    outs = [g.tensors[i] for i in op.outputs]
    shape = " ".join(f"{list(t.shape)}" for t in ins) + " -> " + " ".join(f"{list(t.shape)}" for t in outs)
    return c_comment(f"{op.op} (model operator #{op.index}) {shape}", 160)
