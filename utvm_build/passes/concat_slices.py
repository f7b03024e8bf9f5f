"""CONCATENATION without a copy: each input's producer writes straight into its slice of the output.

CONCATENATION copies raw values (int8 inputs have the output's scale and zero point, other types
are copied unchanged: ops/concatenation.py), so the bytes of the output are the inputs' bytes in
order. When the slices are contiguous (every dimension before the axis is 1: the output is the
inputs one after the other), each input can be a *view* of the output (``Graph.view_offsets``) at
its slice's offset: its producer writes there, the CONCATENATION disappears, and the planner
keeps each slice alive from its producer's write (``planner._view_parts``).

An input qualifies when it is written by one operator (not a model input, constant or state) and
read by nothing but this CONCATENATION, once; a RESHAPE between producer and CONCATENATION is
fine (its output already shares the producer's storage: the whole storage moves into the slice).
All inputs must qualify, or the CONCATENATION stays. Slices start at multiples of 4 bytes (the
alignment the kernels get for any view: passes/patches.py). Runs with --memory balanced|min;
docs/architecture.md ("Memory below the activation bound").
"""

from __future__ import annotations

from collections.abc import Callable

from ..graph import Graph, Operator

#: A slice's offset in the output is a multiple of this (bytes).
SLICE_ALIGN = 4


def _axis(op: Operator, rank: int) -> int:
    axis = int(op.options.get("axis", 0))
    return axis + rank if axis < 0 else axis


def _movable(g: Graph, t: int, concat: Operator, members: dict[int, list[int]]) -> bool:
    """``t``'s storage is written by one operator and read only by ``concat`` (once), and is a
    buffer of its own that can become a slice."""
    root = g.storage_root(t)
    tensor = g.tensors[root]
    if tensor.is_const or tensor.is_variable or tensor.dtype == "resource" or root in g.view_offsets:
        return False
    group = members.get(root, [root])
    if any(m in g.inputs or m in g.outputs or g.tensors[m].is_variable for m in group):
        return False
    reads = [op for op in g.operators for i in op.inputs if i in group]
    writers = {id(op) for op in g.operators if any(o in group for o in op.outputs)}
    return len(reads) == 1 and reads[0] is concat and len(writers) == 1 and id(concat) not in writers


def _slice(g: Graph, op: Operator) -> dict | None:
    """Make ``op``'s inputs slices of its output and drop it, when they all qualify."""
    if op.op != "CONCATENATION" or len(op.outputs) != 1 or not op.inputs or any(t < 0 for t in op.inputs):
        return None
    members: dict[int, list[int]] = {}
    for t in g.aliases:
        members.setdefault(g.storage_root(t), [g.storage_root(t)]).append(t)
    out = g.tensors[op.outputs[0]]
    axis = _axis(op, len(out.shape))
    outer = 1
    for d in out.shape[:axis]:
        outer *= d
    roots = [g.storage_root(t) for t in op.inputs]
    offsets, at = [], 0
    for t in op.inputs:
        offsets.append(at)
        at += g.tensors[t].nbytes
    if (outer != 1 or out.is_variable or len(set(roots)) != len(roots) or g.storage_root(op.outputs[0]) in roots
            or any(off % SLICE_ALIGN for off in offsets)
            or not all(_movable(g, t, op, members) for t in op.inputs)):
        return None
    for t, root, off in zip(op.inputs, roots, offsets):
        # the input's storage (its producer's output, any RESHAPE of it included) moves into the
        # slice: its root becomes a view of the output, at the input's offset there
        g.aliases[root] = op.outputs[0]
        g.view_offsets[root] = off - g.storage_offset(t)
    g.operators = [o for o in g.operators if o is not op]
    return {"operator": op.index, "output": out.name, "inputs": [g.tensors[t].name for t in op.inputs],
            "offsets": offsets}


def write_into_slices(g: Graph, workspace: Callable[[Graph], int] | None = None) -> list[dict]:
    """Drop every CONCATENATION whose inputs can be planned as slices of its output; returns what
    was done (operator, output, inputs, offsets) for metadata.json. ``workspace``: the planned
    workspace of a graph (the compiler's: in the order passes/order.py would choose); a rewrite
    that would grow it is undone (a slice keeps its place in the output from its producer on,
    which in some orders costs more than the copy)."""
    done: list[dict] = []
    if len(g.all_graphs) > 1:
        return done
    current = workspace(g) if workspace else 0
    for op in [o for o in g.operators if o.op == "CONCATENATION"]:
        saved = (list(g.operators), dict(g.aliases), dict(g.view_offsets))
        record = _slice(g, op)
        if record is None:
            continue
        after = workspace(g) if workspace else 0
        if after > current:
            g.operators = saved[0]
            g.aliases.clear()
            g.aliases.update(saved[1])
            g.view_offsets.clear()
            g.view_offsets.update(saved[2])
            continue
        current = after
        done.append(record)
    return done
