"""In-place elementwise operators: the output shares the storage of an input that dies there.

ADD, SUB and MUL of two tensors of the output's shape (no broadcast) and RELU / RELU6 read element
``i`` of their inputs before they write element ``i`` of the output, and nothing after it: every
kernel of these operators (generic, DSP) walks the elements in one pass and no kernel pointer is
``restrict``, so the output may be written over such an input. The output becomes an alias of the
input (``Graph.aliases``): the memory planner then gives both one buffer, alive from the input's
first write to the output's last read, which is what they really need. Run with --memory balanced
or min (passes/patches.py documents the modes); it never costs an instruction.
"""

from __future__ import annotations

from ..graph import Graph, Operator

#: Operators whose every kernel is elementwise in one pass, index for index.
IN_PLACE_OPS = ("ADD", "SUB", "MUL", "RELU", "RELU6")


def _dies_here(g: Graph, t: int, op: Operator, io_in_workspace: bool) -> bool:
    tensor = g.tensors[t]
    if tensor.is_const or tensor.is_variable or t in g.outputs:
        return False
    if t in g.inputs and not io_in_workspace:   # the caller's buffer: never written
        return False
    if g.storage_root(t) != t or t in g.aliases.values():   # shared storage: other users
        return False
    position = g.operators.index(op)   # read by nothing after it
    return all(t not in other.inputs for other in g.operators[position + 1:])


def alias_in_place(g: Graph, io_in_workspace: bool) -> list[dict]:
    """Alias the output of every eligible elementwise operator to a dying input; returns what was
    done (operator, output, input) for metadata.json."""
    done = []
    if len(g.all_graphs) > 1:
        return done
    for op in g.operators:
        if op.op not in IN_PLACE_OPS or len(op.outputs) != 1:
            continue
        out = op.outputs[0]
        tout = g.tensors[out]
        if out in g.outputs or out in g.inputs or tout.is_variable or g.storage_root(out) != out \
                or out in g.aliases.values():
            continue
        for t in [i for i in op.inputs if i >= 0]:
            tin = g.tensors[t]
            if (tin.shape == tout.shape and tin.dtype == tout.dtype and _dies_here(g, t, op, io_in_workspace)):
                g.aliases[out] = t
                done.append({"operator": op.index, "op": op.op, "output": tout.name, "over": tin.name})
                break
    return done
