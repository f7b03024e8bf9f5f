"""Compile-time evaluation: operators whose result is known before the model runs become
constants, and outputs nobody reads get no memory.

``fold_constants``: an operator whose inputs are all constants (or SHAPE, whose result depends
only on the static shape) is prepared by its own handler, which validates it exactly as for
code generation, and its kernel calls are then executed here, in Python, when every call is one
of the pure data-movement kernels below: ``utvm_copy``, ``utvm_gather_dims`` and
``utvm_concatenation`` move bytes exactly as the C does (the same offset tables), so the folded
constant is the value the C would compute, which is the reference's. This covers SHAPE,
BROADCAST_ARGS and FILL of constants (their handlers describe a copy of the computed constant),
EXPAND_DIMS, RESHAPE, SQUEEZE, TRANSPOSE, SLICE, SPLIT, SPLIT_V, UNPACK, PACK, CONCATENATION,
REVERSE_V2, BROADCAST_TO, MIRROR_PAD, STRIDED_SLICE, DEPTH_TO_SPACE, SPACE_TO_DEPTH, BATCH_TO_SPACE_ND,
RESIZE_NEAREST_NEIGHBOR, GATHER and EMBEDDING_LOOKUP with constant operands. Operators that
compute values (arithmetic) are left to their kernels. Model outputs and variable tensors are
never folded (the caller's output buffer must be written by the run).

``alias_unused_outputs``: SPLIT, SPLIT_V and UNPACK write only the outputs that are read (their
handlers skip the others); an unread output shares the storage of a read one, so it takes no
workspace either.
"""

from __future__ import annotations

import numpy as np

from ..graph import Graph, Operator
from ..ops import handler_for
from ..ops.call import Const, In, KernelCall, Lit, Out, Params, PtrArray
from ..ops.movement import UNUSED_OUTPUTS
from ..validate import operator_context
from .shapes import fold_shape_arithmetic, resolve_op_shapes

_STATEFUL = {"SVDF", "ASSIGN_VARIABLE", "READ_VARIABLE", "VAR_HANDLE", "UNIDIRECTIONAL_SEQUENCE_LSTM",
             "CALL_ONCE", "IF", "WHILE"}
_MULTI_OUTPUT = ("SPLIT", "SPLIT_V", "UNPACK")


def _bytes(arr: np.ndarray) -> np.ndarray:
    return np.frombuffer(np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<")).tobytes(), np.uint8)


class _Memory:
    def __init__(self, g: Graph, op: Operator) -> None:
        self.g, self.op = g, op
        self.out: dict[int, np.ndarray] = {}

    def read(self, a) -> np.ndarray:
        if isinstance(a, In):
            t = self.g.input_tensor(self.op, a.k)
            assert t is not None and t.is_const
            return _bytes(np.asarray(t.data, dtype=t.data.dtype))
        if isinstance(a, Const):
            return _bytes(np.asarray(a.values))
        raise TypeError(a)

    def target(self, a: Out) -> np.ndarray:
        if a.k not in self.out:
            self.out[a.k] = np.zeros(self.g.tensors[self.op.outputs[a.k]].nbytes, np.uint8)
        return self.out[a.k]


def _copy(mem: _Memory, kc: KernelCall) -> None:
    src, dst, n = kc.args
    assert isinstance(n, Lit) and isinstance(dst, Out)
    mem.target(dst)[:int(n.value)] = mem.read(src)[:int(n.value)]


def _gather_dims(mem: _Memory, kc: KernelCall) -> None:
    p, offs, src, dst = kc.args
    assert isinstance(p, Params) and isinstance(offs, Const) and isinstance(dst, Out)
    table = np.asarray(offs.values, np.int64)
    total = np.zeros((), np.int64)
    for count, first in zip(p.fields["count"], p.fields["first"]):
        total = np.add.outer(total, table[first:first + count])
    run = int(p.fields["run_bytes"])
    idx = (total.reshape(-1, 1) + np.arange(run)).ravel()
    out = mem.target(dst)
    out[:idx.size] = mem.read(src)[idx]


def _concatenation(mem: _Memory, kc: KernelCall) -> None:
    p, ptrs, blocks, dst = kc.args
    assert isinstance(p, Params) and isinstance(ptrs, PtrArray) and isinstance(blocks, Const)
    ins = [mem.read(a) for a in ptrs.items]
    sizes = [int(b) for b in np.asarray(blocks.values)]
    parts = [ins[i][o * n:(o + 1) * n] for o in range(int(p.fields["outer"])) for i, n in enumerate(sizes)]
    data = np.concatenate(parts) if parts else np.zeros(0, np.uint8)
    mem.target(dst)[:data.size] = data


def _strided_slice(mem: _Memory, kc: KernelCall) -> None:
    """kernels/strided_slice.h: element (a..e) is input[base + a*step[0] + ... + e*step[4]]."""
    p, src, dst = kc.args
    assert isinstance(p, Params) and isinstance(dst, Out)
    index = np.full((), int(p.fields["base"]), np.int64)
    for count, step in zip(p.fields["count"], p.fields["step"]):
        index = np.add.outer(index, np.arange(int(count), dtype=np.int64) * int(step))
    es = int(p.fields["elem_size"])
    idx = (index.reshape(-1, 1) * es + np.arange(es)).ravel()
    out = mem.target(dst)
    out[:idx.size] = mem.read(src)[idx]


_SIMULATORS = {"utvm_copy": _copy, "utvm_strided_slice": _strided_slice, "utvm_gather_dims": _gather_dims,
               "utvm_concatenation": _concatenation}


def _reads_only_constants(g: Graph, op: Operator, calls: list[KernelCall]) -> bool:
    for kc in calls:
        if kc.function not in _SIMULATORS:
            return False
        args = list(kc.args)
        for a in list(args):
            if isinstance(a, PtrArray):
                args += list(a.items)
        for a in args:
            if isinstance(a, In):
                t = g.input_tensor(op, a.k)
                if t is None or not t.is_const:
                    return False
    return True


def fold_constants(g: Graph) -> None:
    """Replace operators with known results by constants (see the module docstring)."""
    keep = []
    for op in g.operators:
        resolve_op_shapes(op, g)          # dynamic shapes from the (now static) inputs
        if fold_shape_arithmetic(op, g):  # integer shape arithmetic (REDUCE_PROD, MUL, ...) on constants
            continue
        ins = [g.tensors[i] for i in op.inputs if i >= 0]
        outs = [g.tensors[o] for o in op.outputs]
        handler = handler_for(op.op)
        if (handler is None or op.op in _STATEFUL or not outs or any(t.dynamic for t in ins + outs)
                or any(o in g.outputs or o in g.inputs for o in op.outputs) or any(t.is_variable for t in outs)
                or not (op.op == "SHAPE" or (ins and all(t.is_const for t in ins)))):
            keep.append(op)
            continue
        with operator_context(op, g):
            prepared = handler.prepare(op, g)
        if not _reads_only_constants(g, op, prepared.calls):
            keep.append(op)
            continue
        mem = _Memory(g, op)
        for kc in prepared.calls:
            _SIMULATORS[kc.function](mem, kc)
        for k, o in enumerate(outs):
            if o.size == 0:
                o.data = np.zeros(o.shape, np.dtype(o.dtype))
            elif k in mem.out:
                o.data = np.frombuffer(mem.out[k].tobytes(), np.dtype(o.dtype).newbyteorder("<")) \
                    .astype(np.dtype(o.dtype)).reshape(o.shape)
    g.operators = keep


def alias_unused_outputs(g: Graph) -> None:
    read = set(g.outputs) | {i for op in g.operators for i in op.inputs if i >= 0}
    for op in g.operators:
        if op.op not in _MULTI_OUTPUT:
            continue
        used = [t for t in op.outputs if t in read]
        if not used:
            continue
        root = g.storage_root(used[0])
        unused = []
        for k, t in enumerate(op.outputs):
            if (t not in read and t not in g.aliases and t not in g.inputs and not g.tensors[t].is_variable
                    and t not in g.aliases.values()):
                g.aliases[t] = root
                unused.append(k)
        op.options[UNUSED_OUTPUTS] = tuple(unused)
