"""Remove operators whose results nobody reads."""

from __future__ import annotations

from ..graph import Graph

# Operators with effects beyond their outputs (they update a variable tensor, or call subgraphs that may).
_STATEFUL = {"SVDF", "ASSIGN_VARIABLE", "UNIDIRECTIONAL_SEQUENCE_LSTM", "CALL_ONCE", "IF", "WHILE"}


def remove_dead_operators(g: Graph) -> None:
    """One backward sweep: operators come in execution order (validate.validate_graph), so every
    reader of an operator's outputs comes after it."""
    used = set(g.outputs)
    keep = []
    for op in reversed(g.operators):
        if op.op in _STATEFUL or any(o in used for o in op.outputs):
            keep.append(op)
            used.update(i for i in op.inputs if i >= 0)
    keep.reverse()
    g.operators = keep
