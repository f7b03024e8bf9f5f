"""Static memory planning: where every tensor lives, and one workspace for the intermediates.

Model inputs and outputs are the caller's buffers (or, with ``io_in_workspace``, workspace buffers
too: an input lives from the start to its last read, an output from its first write to the end),
constants live in flash, variable tensors (e.g. SVDF state) in their own zero-initialized RAM.
Every other tensor (after aliasing) gets an offset in one workspace: liveness runs from the step of
its first write to its last read, in execution order, and buffers whose lifetimes overlap never
overlap in memory. Scratch buffers of kernels live for their operator's step only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .graph import Graph


@dataclass(frozen=True)
class Location:
    kind: str   # "input" | "output" | "workspace" | "const" | "state"
    index: int  # input/output position, workspace offset, or state index (0 for const)


@dataclass
class Buffer:
    key: tuple[str, int]   # ("tensor", root index) or ("scratch", operator position)
    size: int
    first: int
    last: int
    offset: int = -1


@dataclass
class MemoryPlan:
    locations: dict[int, Location]
    scratch: dict[int, int]             # operator position -> workspace offset
    workspace_bytes: int
    lower_bound_bytes: int              # largest sum of intermediates alive at one step
    buffers: list[Buffer] = field(default_factory=list)


def align_up(n: int, a: int) -> int:
    return (n + a - 1) // a * a


def plan_memory(g: Graph, scratch_sizes: list[int], alignment: int = 16,
                io_in_workspace: bool = False) -> MemoryPlan:
    """Place every tensor; ``scratch_sizes[i]`` is operator i's scratch need in bytes."""
    if alignment < 1 or alignment & (alignment - 1):
        raise ValueError("alignment must be a power of two")
    locations: dict[int, Location] = {}
    roots: dict[int, Buffer] = {}
    states: dict[int, int] = {}

    def place_root(root: int) -> Location | None:
        if root in g.inputs and not io_in_workspace:
            return Location("input", g.inputs.index(root))
        if root in g.outputs and not io_in_workspace:
            return Location("output", g.outputs.index(root))
        t = g.tensors[root]
        if t.is_variable:
            return Location("state", states.setdefault(root, len(states)))
        if t.is_const:
            return Location("const", 0)
        return None

    used = set(g.inputs) | set(g.outputs)
    for op in g.operators:
        used.update(i for i in op.inputs + op.outputs if i >= 0)
    for step, op in enumerate(g.operators):
        for t in [i for i in op.inputs if i >= 0] + op.outputs:
            root = g.storage_root(t)
            loc = place_root(root)
            if loc is not None:
                continue
            buf = roots.get(root)
            if buf is None:
                buf = roots[root] = Buffer(("tensor", root), g.tensors[root].nbytes, step, step)
            buf.first, buf.last = min(buf.first, step), max(buf.last, step)
    if io_in_workspace:   # the caller writes inputs before the run and reads outputs after it
        for t in g.inputs + g.outputs:   # even one that no operator reads keeps its place
            root = g.storage_root(t)
            if place_root(root) is None and root not in roots:
                roots[root] = Buffer(("tensor", root), g.tensors[root].nbytes, 0, 0)
        for t in g.inputs:
            if g.storage_root(t) in roots:
                roots[g.storage_root(t)].first = 0
        for t in g.outputs:
            if g.storage_root(t) in roots:
                roots[g.storage_root(t)].last = len(g.operators) - 1
    buffers = list(roots.values())
    buffers += [Buffer(("scratch", step), size, step, step)
                for step, size in enumerate(scratch_sizes) if size > 0]
    total = _place(buffers, alignment)
    for t in sorted(used):
        root = g.storage_root(t)
        loc = place_root(root)
        if loc is None:
            buf = roots.get(root)
            if buf is None:   # never touched by an operator (e.g. an output aliasing an input)
                continue
            loc = Location("workspace", buf.offset)
        locations[t] = loc
    scratch = {b.key[1]: b.offset for b in buffers if b.key[0] == "scratch"}
    return MemoryPlan(locations=locations, scratch=scratch, workspace_bytes=total,
                      lower_bound_bytes=lower_bound(buffers, len(g.operators)), buffers=buffers)


def lower_bound(buffers: list[Buffer], steps: int) -> int:
    """The largest sum of tensor sizes alive at one step (scratch excluded, no alignment)."""
    best = 0
    for s in range(steps):
        best = max(best, sum(b.size for b in buffers if b.key[0] == "tensor" and b.first <= s <= b.last))
    return best


def _place(buffers: list[Buffer], alignment: int) -> int:
    """First-fit placement, trying several orders and keeping the smallest total."""
    orders = [
        lambda b: (-b.size, b.first, b.key),
        lambda b: (b.first, -b.size, b.key),
        lambda b: (-(b.last - b.first), -b.size, b.key),
        lambda b: (-b.size * (b.last - b.first + 1), b.key),
    ]
    best_total, best_offsets = None, None
    for order in orders:
        placed: list[tuple[int, int, Buffer]] = []
        total = 0
        offsets: dict[tuple[str, int], int] = {}
        for b in sorted(buffers, key=order):
            conflicts = sorted((off, end) for off, end, o in placed if o.first <= b.last and b.first <= o.last)
            offset = 0
            for off, end in conflicts:
                if offset + b.size <= off:
                    break
                offset = max(offset, align_up(end, alignment))
            placed.append((offset, offset + b.size, b))
            offsets[b.key] = offset
            total = max(total, align_up(offset + b.size, alignment))
        if best_total is None or total < best_total:
            best_total, best_offsets = total, offsets
    for b in buffers:
        b.offset = best_offsets[b.key] if best_offsets else 0
    return best_total or 0
