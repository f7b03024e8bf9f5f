"""Graph passes, run in order between import and memory planning."""

from __future__ import annotations

from ..graph import Graph
from .aliases import alias_reshapes, fold_constant_reshapes
from .dead_code import remove_dead_operators
from .fold import alias_unused_outputs, fold_constants
from .shapes import check_resolved


def run_passes(g: Graph) -> Graph:
    """Apply every pass; the graph is modified in place and returned."""
    fold_constants(g)          # with dynamic shapes resolved on the way, in execution order
    check_resolved(g)
    fold_constant_reshapes(g)
    remove_dead_operators(g)
    alias_reshapes(g)
    alias_unused_outputs(g)
    return g


__all__ = ["run_passes"]
