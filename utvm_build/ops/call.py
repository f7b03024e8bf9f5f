"""What an operator handler returns: kernel calls as data (emit/ turns them into C).

A handler's ``prepare`` does TFLM's "prepare" work once, in Python, and describes the C to run
as a list of :class:`KernelCall` values: which kernel function, and its arguments as typed
references (an operator input or output, a constant computed at compile time, a parameter
struct, a literal, the operator's scratch). Nothing here is C text: ``emit/ops_file.py`` renders
the calls, ``kernel_table.py`` knows each kernel's header, C signature and scratch rule, and
checks every call against that signature before it is written.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

import numpy as np

#: A parameter struct field: a number, an array of numbers, or a nested struct.
FieldValue = Union[int, float, bool, "list[int] | list[float]", "tuple[int, ...]", "dict[str, FieldValue]"]


@dataclass(frozen=True)
class In:
    """Input ``k`` of the operator: a pointer parameter for an activation, the const array of a
    constant tensor, ``NULL`` for an absent optional input."""

    k: int


@dataclass(frozen=True)
class Out:
    """Output ``k`` of the operator (a writable pointer parameter)."""

    k: int = 0


@dataclass(frozen=True, eq=False)
class Const:
    """A constant derived at compile time (multipliers, folded biases, tables): a ``const``
    array in flash, deduplicated by content. ``hint`` names it (``op<i>_<hint>``)."""

    hint: str
    values: np.ndarray
    ctype: str


@dataclass(frozen=True, eq=False)
class Params:
    """A parameter struct: ``static const <ctype> op<i>_<hint> = {...}`` at block scope in the
    operator's function; the argument is its address. Fields: numbers, arrays of numbers or
    nested structs (dicts), in the struct's declaration order."""

    ctype: str
    fields: dict[str, FieldValue]
    hint: str = "params"
    #: (field, macro): the kernel compiles one copy of a loop per value of this field and picks one
    #: at run time; the generated file defines ``macro`` as the set of values its calls use (bit
    #: ``1 << value``) before the kernel headers, so that only those copies are compiled.
    selects: tuple[str, str] | None = None
    #: (macro, value) pairs: as ``selects``, for kernel paths chosen from several fields (the kernel
    #: checks the fields themselves; each macro only leaves out the paths no call takes).
    selects_values: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class Lit:
    """A scalar argument: an integer or float literal of C type ``ctype``."""

    value: int | float
    ctype: str = "int32_t"


@dataclass(frozen=True)
class Null:
    """A NULL pointer argument (an absent optional array)."""


@dataclass(frozen=True)
class Scratch:
    """The operator's scratch memory (planned in the workspace) at byte ``offset``, as
    ``<ctype>*``; the kernel table's scratch rule of the called kernel says how many bytes."""

    ctype: str = "void"
    offset: int = 0


@dataclass(frozen=True)
class PtrArray:
    """A local ``const void* const name[n] = {...}`` of operand pointers (e.g. the inputs of a
    CONCATENATION); the argument is the array."""

    items: tuple[In | Out | Const | Null, ...]
    hint: str = "ptrs"


Operand = Union[In, Out, Const, Params, Lit, Null, Scratch, PtrArray]


@dataclass(frozen=True)
class KernelCall:
    """One call of a kernel function (``utvm_<name>``) with its arguments in order."""

    function: str
    args: tuple[Operand, ...]

    def field(self, name: str) -> FieldValue:
        """A field of the call's first parameter struct (for scratch rules)."""
        for a in self.args:
            if isinstance(a, Params) and name in a.fields:
                return a.fields[name]
        raise KeyError(f"{self.function}: no parameter field {name}")


def call(function: str, *args: Operand) -> KernelCall:
    return KernelCall(function, tuple(args))


@dataclass
class Prepared:
    """The result of a handler's prepare step, computed once per operator and used for
    validation (it raised otherwise), MAC counting, scratch planning, `info` and emission."""

    calls: list[KernelCall] = field(default_factory=list)
    macs: int = 0
    #: Extra scratch bytes beyond what the called kernels' scratch rules ask for (rarely needed:
    #: a handler that chains calls through a temporary buffer).
    scratch_bytes: int = 0
