"""RESHAPE, SQUEEZE and EXPAND_DIMS change only the shape: their output shares the input's storage."""

from __future__ import annotations

from ..graph import Graph

RESHAPES = ("RESHAPE", "SQUEEZE", "EXPAND_DIMS")


def fold_constant_reshapes(g: Graph) -> None:
    """A reshape of a constant becomes a constant of the new shape (no code, no copy)."""
    keep = []
    for op in g.operators:
        src = g.input_tensor(op, 0) if op.op in RESHAPES else None
        dst = g.tensors[op.outputs[0]] if op.outputs else None
        if (src is not None and dst is not None and src.is_const and src.size == dst.size
                and src.dtype == dst.dtype and op.outputs[0] not in g.outputs):
            dst.data = src.data.reshape(dst.shape)
            dst.quant = dst.quant or src.quant
            continue
        keep.append(op)
    g.operators = keep


def alias_reshapes(g: Graph) -> None:
    """Drop reshapes whose output can live in the input's storage.

    A storage group may hold at most one model input or output (those are the caller's buffers);
    when aliasing would join two of them, or touch a variable tensor, the reshape stays as a copy.
    Groups are kept as member lists (linear in the number of reshapes, also for long chains); every
    alias points at its group's root.
    """
    external = set(g.inputs) | set(g.outputs)
    members: dict[int, list[int]] = {}   # root -> the tensors sharing its storage (root included)
    keep = []
    for op in g.operators:
        if op.op not in RESHAPES or len(op.inputs) < 1 or len(op.outputs) != 1 or op.inputs[0] < 0:
            keep.append(op)
            continue
        src, dst = op.inputs[0], op.outputs[0]
        ts, td = g.tensors[src], g.tensors[dst]
        if (ts.is_const or ts.is_variable or td.is_variable or ts.dtype != td.dtype
                or ts.size != td.size):
            keep.append(op)
            continue
        root = g.storage_root(src)
        group = members.pop(root, [root])
        if dst in external and any(t in external for t in group):
            members[root] = group
            keep.append(op)
            continue
        if dst in external:
            # The producer of the input writes straight into the caller's output buffer.
            for t in group:
                g.aliases[t] = dst
            g.aliases.pop(dst, None)
            group.append(dst)
            members[dst] = group
        else:
            g.aliases[dst] = root
            group.append(dst)
            members[root] = group
    g.operators = keep
