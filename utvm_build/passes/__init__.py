"""Graph passes, run in order between import and memory planning."""

from __future__ import annotations

from ..graph import Graph
from .aliases import alias_reshapes, fold_constant_reshapes
from .dead_code import remove_dead_operators
from .shapes import check_resolved, fold_shape_arithmetic, resolve_op_shapes


def resolve_shapes(g: Graph) -> None:
    """Dynamic shapes from the static inputs, in execution order, with integer shape arithmetic
    on constants folded on the way (passes/shapes.py)."""
    keep = []
    for op in g.operators:
        resolve_op_shapes(op, g)
        if not fold_shape_arithmetic(op, g):
            keep.append(op)
    g.operators = keep
    check_resolved(g)


def run_passes(g: Graph) -> Graph:
    """Apply every pass; the graph is modified in place and returned."""
    resolve_shapes(g)
    fold_constant_reshapes(g)
    remove_dead_operators(g)
    alias_reshapes(g)
    return g


__all__ = ["run_passes"]
