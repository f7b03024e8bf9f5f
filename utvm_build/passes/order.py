"""Operator order chosen for memory: a topological order of a branching graph with a lower peak.

Where a graph branches (residual skips, several inputs or outputs, concatenated branches), the
order in which independent operators run decides which tensors are alive together. The file's
order is one valid order; this pass looks for the one whose largest step (bytes of the tensors
alive while an operator runs, plus its kernels' scratch) is smallest.

The bytes alive *between* steps depend only on the set of operators that have run (a buffer is
alive from its first write to its last use), not on their order, so the best order is a shortest
path over these sets, with the cost of a path the largest step on it: a dynamic programme over
the sets reachable level by level (one more operator per level). When a level has more than
``beam_for(n)`` sets (256, fewer for long graphs), only that many best (smallest peak so far,
then fewest bytes alive) are kept: a beam search, greedy beyond that size, and exact below it
(the report says which). Ties keep the
file's order (sets and operators are visited in file order, a later path replaces an earlier one
only when strictly better), so the result is deterministic.

The new order is kept only when the real planner (placement included) gives a smaller
workspace, or the same workspace with a smaller peak; otherwise the file's order stays. Every
output element is computed by the same kernel from the same values: only the time at which an
operator runs moves. Models with state (variable tensors, resource variables, control flow) keep
their order: a stateful operator's effects are not all visible as tensors. docs/architecture.md
("Memory below the activation bound").
"""

from __future__ import annotations

from dataclasses import dataclass

from ..graph import Graph

#: Sets of executed operators kept per level (the search is exact while no level has more), and
#: the budget of sets over all levels that narrows it for long graphs (``beam_for``).
BEAM = 256
SET_BUDGET = 8192


def beam_for(n: int) -> int:
    """Sets kept per level for ``n`` operators: BEAM, fewer for long graphs (at least 16)."""
    return max(16, min(BEAM, SET_BUDGET // max(1, n)))
_STATEFUL = {"SVDF", "ASSIGN_VARIABLE", "READ_VARIABLE", "VAR_HANDLE", "UNIDIRECTIONAL_SEQUENCE_LSTM",
             "CALL_ONCE", "IF", "WHILE"}


@dataclass
class _Problem:
    n: int
    preds: list[int]          # per operator: bit mask of the operators it must follow
    sizes: list[int]          # per buffer (storage root in the workspace): bytes
    writes: list[list[int]]   # per operator: the buffers it writes
    touches: list[list[int]]  # per operator: the buffers it reads or writes
    touchers: list[int]       # per buffer: bit mask of the operators that read or write it
    writers: list[int]        # per buffer: bit mask of its writers
    preset: list[bool]        # per buffer: alive before the first step (an input in the workspace)
    kept: list[bool]          # per buffer: alive to the end (an output in the workspace)
    scratch: list[int]        # per operator: its kernels' scratch bytes


def _problem(g: Graph, scratch: dict[int, int], io_in_workspace: bool) -> _Problem:
    ops = g.operators
    roots: dict[int, int] = {}   # storage root -> buffer number (workspace buffers only)
    sizes: list[int] = []

    def buffer(t: int) -> int | None:
        root = g.storage_root(t)
        tensor = g.tensors[root]
        if tensor.is_const or tensor.is_variable:
            return None
        if not io_in_workspace and (root in g.inputs or root in g.outputs):
            return None
        if root not in roots:
            roots[root] = len(sizes)
            sizes.append(tensor.nbytes)
        return roots[root]

    # dependencies over every tensor that is not constant (the caller's buffers included): two
    # accesses to overlapping bytes of one storage, one of them a write, keep their file order
    accesses: dict[int, list[tuple[int, bool, int, int]]] = {}   # root -> (operator, writes, bytes)
    writes, touches = [], []
    for k, op in enumerate(ops):
        w = [b for b in (buffer(t) for t in op.outputs if t >= 0) if b is not None]
        r = [b for b in (buffer(t) for t in op.inputs if t >= 0) if b is not None]
        writes.append(sorted(set(w)))
        touches.append(sorted(set(w) | set(r)))
        for t, wr in [(i, False) for i in op.inputs if i >= 0] + [(o, True) for o in op.outputs if o >= 0]:
            if not g.tensors[t].is_const:
                lo = g.storage_offset(t)
                accesses.setdefault(g.storage_root(t), []).append((k, wr, lo, lo + g.tensors[t].nbytes))
    preds = [0] * len(ops)
    for seq in accesses.values():
        for i, (a, wa, lo_a, hi_a) in enumerate(seq):
            for b, wb, lo_b, hi_b in seq[i + 1:]:
                if a != b and (wa or wb) and lo_a < hi_b and lo_b < hi_a:
                    preds[b] |= 1 << a
    nb = len(sizes)
    touchers, writer_masks = [0] * nb, [0] * nb
    for k in range(len(ops)):
        for b in touches[k]:
            touchers[b] |= 1 << k
        for b in writes[k]:
            writer_masks[b] |= 1 << k
    preset, kept = [False] * nb, [False] * nb
    for root, b in roots.items():
        preset[b] = root in g.inputs
        kept[b] = root in g.outputs
    return _Problem(len(ops), preds, sizes, writes, touches, touchers, writer_masks, preset, kept,
                    [scratch.get(op.index, 0) for op in ops])


def _step(p: _Problem, done: int, resident: int, k: int) -> tuple[int, int]:
    """Running operator ``k`` after the set ``done``: (bytes alive during the step, bytes alive after)."""
    after = done | 1 << k
    new = sum(p.sizes[b] for b in p.writes[k] if not p.preset[b] and not p.writers[b] & done)
    freed = sum(p.sizes[b] for b in p.touches[k] if not p.kept[b] and not p.touchers[b] & ~after)
    return resident + new + p.scratch[k], resident + new - freed


def _initial(p: _Problem) -> int:
    return sum(size for b, size in enumerate(p.sizes) if p.preset[b] and p.touchers[b])


def peak_of(p: _Problem, order: list[int]) -> int:
    """The largest step of ``order`` (positions in the file's order)."""
    done, resident, peak = 0, _initial(p), 0
    for k in order:
        during, resident = _step(p, done, resident, k)
        peak = max(peak, during)
        done |= 1 << k
    return peak


def _bits(mask: int):  # noqa: ANN202
    """The set bits of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def best_order(p: _Problem, beam: int | None = None) -> tuple[list[int], bool]:
    """The order with the smallest peak (exact unless a level overflowed the beam) and whether
    it is exact."""
    beam = beam_for(p.n) if beam is None else beam
    succs = [0] * p.n
    for k, pred in enumerate(p.preds):
        for j in _bits(pred):
            succs[j] |= 1 << k
    start_ready = sum(1 << k for k in range(p.n) if not p.preds[k])
    # mask -> (peak so far, bytes alive, previous mask, last operator, operators ready to run)
    level: dict[int, tuple[int, int, int, int, int]] = {0: (0, _initial(p), -1, -1, start_ready)}
    history: list[dict[int, tuple[int, int, int, int, int]]] = [level]
    exact = True
    for _ in range(p.n):
        nxt: dict[int, tuple[int, int, int, int, int]] = {}
        for mask, (peak, resident, _, _, ready) in level.items():
            for k in _bits(ready):   # file order: ties keep it
                new = mask | 1 << k
                during, after = _step(p, mask, resident, k)
                cand = (max(peak, during), after)
                old = nxt.get(new)
                if old is None or cand < old[:2]:
                    unlocked = sum(1 << s for s in _bits(succs[k]) if not p.preds[s] & ~new)
                    nxt[new] = (*cand, mask, k, (ready & ~(1 << k)) | unlocked)
        if len(nxt) > beam:
            exact = False
            nxt = dict(sorted(nxt.items(), key=lambda item: item[1][:2])[:beam])
        level = nxt
        history.append(level)
    mask = (1 << p.n) - 1   # the last level holds one set: every operator
    order: list[int] = []
    for depth in range(p.n, 0, -1):
        prev, k = history[depth][mask][2:4]
        order.append(k)
        mask = prev
    return order[::-1], exact


def reorderable(g: Graph) -> bool:
    """A single-subgraph model without state: its operators' only effects are their outputs."""
    if len(g.all_graphs) > 1 or len(g.operators) < 3:
        return False
    if any(op.op in _STATEFUL for op in g.operators):
        return False
    return not any(g.tensors[t].is_variable or g.tensors[t].dtype == "resource"
                   for op in g.operators for t in op.inputs + op.outputs if t >= 0)


def choose_order(g: Graph, scratch: dict[int, int], alignment: int, io_in_workspace: bool) -> dict | None:
    """Reorder ``g.operators`` when it lowers the planned workspace (or its peak at an equal
    workspace); returns what was measured (metadata.json's ``order``), None when the model keeps
    its order by rule (state, control flow, fewer than 3 operators)."""
    from ..planner import plan_memory

    if not reorderable(g):
        return None
    p = _problem(g, scratch, io_in_workspace)
    file_order = list(range(p.n))
    order, exact = best_order(p)
    report = {"method": "exact" if exact else f"beam {beam_for(p.n)}", "peak_before": peak_of(p, file_order),
              "peak_after": peak_of(p, order), "moved": sum(a != b for a, b in zip(order, file_order))}

    def workspace(ops: list) -> int:
        trial = g.operators
        g.operators = ops
        try:
            return plan_memory(g, [scratch.get(op.index, 0) for op in ops], alignment,
                               io_in_workspace=io_in_workspace).workspace_bytes
        finally:
            g.operators = trial

    report["workspace_before"] = workspace(list(g.operators))
    new_ops = [g.operators[k] for k in order]
    after = workspace(new_ops) if order != file_order else report["workspace_before"]
    if (after, report["peak_after"]) < (report["workspace_before"], report["peak_before"]):
        g.operators = new_ops
        report["workspace_after"] = after
        report["operators"] = [op.index for op in new_ops]
    else:   # the file's order is as good: keep it
        report.update(peak_after=report["peak_before"], workspace_after=report["workspace_before"], moved=0)
    return report


def ordered_workspace(g: Graph, scratch: dict[int, int], alignment: int, io_in_workspace: bool) -> int:
    """The planned workspace of ``g`` in the order ``choose_order`` would choose (``g`` unchanged):
    how other rewrites (passes/concat_slices.py) judge themselves."""
    from ..planner import plan_memory

    kept = g.operators
    try:
        report = choose_order(g, scratch, alignment, io_in_workspace)
        if report is not None:
            return report["workspace_after"]
        return plan_memory(g, [scratch.get(op.index, 0) for op in g.operators], alignment,
                           io_in_workspace=io_in_workspace).workspace_bytes
    finally:
        g.operators = kept
