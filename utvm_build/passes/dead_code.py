"""Remove operators whose results nobody reads."""

from __future__ import annotations

from ..graph import Graph

# Operators with effects beyond their outputs (they update a variable tensor).
_STATEFUL = {"SVDF", "ASSIGN_VARIABLE", "UNIDIRECTIONAL_SEQUENCE_LSTM"}


def remove_dead_operators(g: Graph) -> None:
    changed = True
    while changed:
        used = set(g.outputs)
        for op in g.operators:
            used.update(i for i in op.inputs if i >= 0)
        keep = [op for op in g.operators
                if op.op in _STATEFUL or any(o in used for o in op.outputs)]
        changed = len(keep) != len(g.operators)
        g.operators = keep
