"""Static memory planning: where every tensor lives, and one workspace for the intermediates.

Model inputs and outputs are the caller's buffers (or, with ``io_in_workspace``, workspace buffers
too: an input lives from the start to its last read, an output from its first write to the end),
constants live in flash. What lives across calls (variable tensors such as SVDF state, resource
variables, CALL_ONCE flags) has its own persistent region, the state (``plan_state``), planned
once for the whole model. Every other tensor (after aliasing) gets an offset in one workspace:
liveness runs from the step of its first write to its last read, in execution order, and buffers
whose lifetimes overlap never overlap in memory. Scratch buffers of kernels live for their
operator's step only.

Several subgraphs (``plan_model``): each subgraph is planned as a frame of its own (its inputs
and outputs inside it), callees first; an operator that calls subgraphs (IF, WHILE, CALL_ONCE)
gets, as its scratch, room for the largest frame it calls, so a callee's frame never overlaps a
buffer of its caller that is alive during the call, however deep the nesting.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .errors import UnsupportedError
from .graph import Graph


@dataclass(frozen=True)
class Location:
    kind: str   # "input" | "output" | "workspace" | "const" | "state"
    index: int  # input/output position, workspace offset, state offset (0 for const)
    #: bytes into the caller's input/output buffer (a view of an input or output: passes/patches.py);
    #: a workspace view has its offset in ``index``
    offset: int = 0


@dataclass
class StateEntry:
    """One item of the state region."""

    kind: str              # "tensor" (a variable tensor), "variable" (resource variable), "once" (CALL_ONCE)
    key: object            # tensor index, variable key (container, shared_name), or operator index
    name: str
    offset: int
    size: int
    fill: int = 0          # initial byte (int8 variable tensors start at their zero point)
    dtype: str = "uint8"
    shape: tuple[int, ...] = ()
    #: whose state it is: "operator #k NAME input i" for a variable tensor (its first user), the
    #: VAR_HANDLE operators of a resource variable, the CALL_ONCE operator
    owner: str = ""


@dataclass
class StateLayout:
    entries: list[StateEntry] = field(default_factory=list)
    bytes: int = 0
    #: tensor index -> offset: variable tensors and resource handles (VAR_HANDLE outputs)
    tensors: dict[int, int] = field(default_factory=dict)
    #: CALL_ONCE operator index -> offset of its "has run" flag
    once: dict[int, int] = field(default_factory=dict)

    def as_list(self) -> list[dict]:
        return [{"kind": e.kind, "name": e.name, "offset": e.offset, "bytes": e.size, "dtype": e.dtype,
                 "shape": list(e.shape), "initial_byte": e.fill, "owner": e.owner} for e in self.entries]


@dataclass
class Buffer:
    key: tuple[str, int]   # ("tensor", root index) or ("scratch", operator position)
    size: int
    first: int
    last: int
    offset: int = -1
    #: a buffer whose bytes do not all live as long (views: passes/patches.py): (offset in the
    #: buffer, bytes, first step, last step) per part; None: all ``size`` bytes live first..last
    parts: list[tuple[int, int, int, int]] | None = None

    def pieces(self) -> list[tuple[int, int, int, int]]:
        return self.parts if self.parts is not None else [(0, self.size, self.first, self.last)]


@dataclass
class MemoryPlan:
    locations: dict[int, Location]
    scratch: dict[int, int]             # operator position -> workspace offset
    workspace_bytes: int
    lower_bound_bytes: int              # largest sum of intermediates alive at one step
    buffers: list[Buffer] = field(default_factory=list)
    #: the persistent region (shared by all subgraphs of a model)
    state: StateLayout = field(default_factory=StateLayout)
    #: plans of the other subgraphs (TFLite number -> plan, offsets relative to the subgraph's
    #: frame), in the order their functions are emitted (callees first)
    subplans: dict[int, MemoryPlan] = field(default_factory=dict)
    #: what --memory / --ram-limit did (passes/patches.PatchReport), None with --memory fast
    patches: object = None
    #: what the other --memory rewrites did (passes/order.py, concat_slices.py, fuse_pad.py), by name
    rewrites: dict = field(default_factory=dict)

    @property
    def state_bytes(self) -> int:
        return self.state.bytes


def align_up(n: int, a: int) -> int:
    return (n + a - 1) // a * a


#: (operator, input position) -> what the variable tensor there holds (for metadata's "owner")
_STATE_INPUTS = {("UNIDIRECTIONAL_SEQUENCE_LSTM", 18): "output state",
                 ("UNIDIRECTIONAL_SEQUENCE_LSTM", 19): "cell state", ("SVDF", 4): "activation state"}


def plan_state(g: Graph) -> StateLayout:
    """The state region: variable tensors, then resource variables, then CALL_ONCE flags; each
    item aligned to its element size (at most 8)."""
    layout = StateLayout()
    offset = 0

    def add(kind: str, key: object, name: str, size: int, item: int, fill: int = 0, dtype: str = "uint8",
            shape: tuple[int, ...] = (), owner: str = "") -> int:
        nonlocal offset
        offset = align_up(offset, max(1, min(item, 8)))
        layout.entries.append(StateEntry(kind, key, name, offset, size, fill, dtype, tuple(shape), owner))
        at, offset = offset, offset + size
        return at

    from .graph import ITEM_SIZE

    seen: set[int] = set()
    for sg in g.all_graphs:
        for op in sg.operators:
            for t in [i for i in op.inputs + op.outputs if i >= 0]:
                root = g.storage_root(t)
                tensor = g.tensors[root]
                if not tensor.is_variable or root in seen:
                    continue
                seen.add(root)
                # As TFLite's ResetVariableTensors: int8 state starts at its zero point, the rest at 0.
                fill = tensor.quant.zp & 0xFF if tensor.dtype == "int8" and tensor.quant is not None else 0
                where = f"input {op.inputs.index(t)}" if t in op.inputs else f"output {op.outputs.index(t)}"
                what = _STATE_INPUTS.get((op.op, op.inputs.index(t))) if t in op.inputs else None
                where += f" ({what})" if what else ""
                layout.tensors[root] = add("tensor", root, tensor.name, tensor.nbytes, ITEM_SIZE[tensor.dtype],
                                           fill, tensor.dtype, tensor.shape, f"operator #{op.index} {op.op} {where}")
    var_offsets = {}
    handles: dict[object, list[str]] = {}
    for sg in g.all_graphs:
        for op in sg.operators:
            key = sg.resource_handles.get(op.outputs[0]) if op.op == "VAR_HANDLE" and op.outputs else None
            if key is not None:
                handles.setdefault(key, []).append(f"#{op.index}")
    for key, var in g.subgraph(0).variables.items():   # zero-initialised, as TFLM allocates them
        owner = f"VAR_HANDLE {', '.join(handles[key])}" if key in handles else ""
        var_offsets[key] = add("variable", key, var.name, var.nbytes, ITEM_SIZE[var.dtype], 0, var.dtype,
                               var.shape, owner)
    for t, key in g.subgraph(0).resource_handles.items():
        layout.tensors[t] = var_offsets[key]
    for sg in g.all_graphs:
        for op in sg.operators:
            if op.op == "CALL_ONCE":
                layout.once[op.index] = add("once", op.index, f"CALL_ONCE #{op.index}", 1, 1,
                                            owner=f"operator #{op.index} CALL_ONCE (subgraph "
                                                  f"{op.options.get('init_subgraph_index', '?')} has run)")
    layout.bytes = offset
    return layout


def subgraph_order(g: Graph) -> list[int]:
    """The subgraphs reachable from subgraph 0, callees before callers; a subgraph that calls
    itself, directly or indirectly, is an UnsupportedError naming the operator (no recursion)."""
    from .ops.control import called_subgraphs

    order: list[int] = []
    state: dict[int, int] = {}   # 1: on the current path, 2: done

    def visit(k: int) -> None:   # depth bounded by the number of subgraphs (MAX_SUBGRAPHS)
        state[k] = 1
        for op in g.subgraph(k).operators:
            for c in called_subgraphs(op):
                if not 0 <= c < len(g.all_graphs):
                    continue   # the handler reports it
                if state.get(c) == 1:
                    raise UnsupportedError(f"calls subgraph {c}, which is running already (recursion is not "
                                           "supported: the generated C calls subgraphs directly)",
                                           op_index=op.index, op_name=op.op)
                if c not in state:
                    visit(c)
        state[k] = 2
        order.append(k)

    visit(0)
    return order


def plan_model(g: Graph, scratch: dict[int, int], alignment: int = 16,
               io_in_workspace: bool = False) -> MemoryPlan:
    """Plan every subgraph of the model (``scratch``: operator index -> its kernels' scratch bytes)
    and its state; the returned plan is subgraph 0's, with the others in ``subplans``."""
    from .ops.control import called_subgraphs

    state = plan_state(g)
    frames: dict[int, int] = {}
    plans: dict[int, MemoryPlan] = {}
    for k in subgraph_order(g):
        sg = g.subgraph(k)
        sizes = []
        for op in sg.operators:
            callees = [frames[c] for c in called_subgraphs(op) if c in frames]
            sizes.append(max([scratch.get(op.index, 0)] + callees))
        plans[k] = plan_memory(sg, sizes, alignment, io_in_workspace=io_in_workspace or k != 0, state=state)
        frames[k] = plans[k].workspace_bytes
    main = plans.pop(0)
    main.subplans = plans
    return main


def plan_memory(g: Graph, scratch_sizes: list[int], alignment: int = 16,
                io_in_workspace: bool = False, state: StateLayout | None = None) -> MemoryPlan:
    """Place every tensor of one subgraph; ``scratch_sizes[i]`` is operator i's scratch need in
    bytes; ``state``: the model's state region (default: planned here)."""
    if alignment < 1 or alignment & (alignment - 1):
        raise ValueError("alignment must be a power of two")
    if state is None:
        state = plan_state(g)
    locations: dict[int, Location] = {}
    roots: dict[int, Buffer] = {}

    def place_root(root: int) -> Location | None:
        if root in g.inputs and not io_in_workspace:
            return Location("input", g.inputs.index(root))
        if root in g.outputs and not io_in_workspace:
            return Location("output", g.outputs.index(root))
        t = g.tensors[root]
        if t.is_variable or t.dtype == "resource":
            return Location("state", state.tensors[root])
        if t.is_const:
            return Location("const", 0)
        return None

    used = set(g.inputs) | set(g.outputs)
    for op in g.operators:
        used.update(i for i in op.inputs + op.outputs if i >= 0)
    uses: dict[int, list[int]] = {}   # tensor -> steps that read or write it directly
    for step, op in enumerate(g.operators):
        for t in [i for i in op.inputs if i >= 0] + op.outputs:
            if place_root(g.storage_root(t)) is None:
                uses.setdefault(t, []).append(step)
    if io_in_workspace:   # the caller writes inputs before the run and reads outputs after it
        for t in g.inputs + g.outputs:   # even one that no operator reads keeps its place
            if place_root(g.storage_root(t)) is None:
                uses.setdefault(t, []).append(0 if t in g.inputs else max(0, len(g.operators) - 1))
    for t in list(uses):   # the root of every used tensor has a buffer
        root = g.storage_root(t)
        buf = roots.get(root)
        if buf is None:
            buf = roots[root] = Buffer(("tensor", root), g.tensors[root].nbytes, uses[t][0], uses[t][0])
        buf.first, buf.last = min([buf.first] + uses[t]), max([buf.last] + uses[t])
    for root, buf in roots.items():
        parts = _view_parts(g, root, uses)
        if parts is not None:
            buf.parts = parts
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
        view = g.storage_offset(t)
        if view and loc.kind == "workspace":
            loc = Location("workspace", loc.index + view)
        elif view:
            loc = Location(loc.kind, loc.index, view)
        locations[t] = loc
    scratch = {b.key[1]: b.offset for b in buffers if b.key[0] == "scratch"}
    return MemoryPlan(locations=locations, scratch=scratch, workspace_bytes=total,
                      lower_bound_bytes=lower_bound(buffers, len(g.operators)), buffers=buffers, state=state)


def _view_parts(g: Graph, root: int, uses: dict[int, list[int]]) -> list[tuple[int, int, int, int]] | None:
    """The parts of a buffer holding views (``Graph.view_offsets``), or None when every tensor in
    it is the whole buffer (RESHAPE aliases). The buffer is cut at every tensor's boundaries; each
    piece is alive from the first to the last use of any tensor that covers it (a view is written
    by its own producer or its parent's, and read by its own readers, its parent's or an
    overlapping sibling's: in-place stripes, checked by the pass that made them)."""
    size = g.tensors[root].nbytes
    spans = [(g.storage_offset(t), g.storage_offset(t) + g.tensors[t].nbytes, min(steps), max(steps))
             for t, steps in uses.items() if g.storage_root(t) == root]
    if all(lo == 0 and hi == size for lo, hi, _, _ in spans):
        return None
    cuts = sorted({0, size} | {x for lo, hi, _, _ in spans for x in (lo, hi)})
    parts: list[tuple[int, int, int, int]] = []
    for lo, hi in zip(cuts, cuts[1:]):
        cover = [(f, last) for a, b, f, last in spans if a < hi and lo < b]
        if not cover:
            continue
        first, last = min(f for f, _ in cover), max(x for _, x in cover)
        if parts and parts[-1][0] + parts[-1][1] == lo and parts[-1][2:] == (first, last):
            parts[-1] = (parts[-1][0], parts[-1][1] + hi - lo, first, last)
        else:
            parts.append((lo, hi - lo, first, last))
    return parts


def live_bytes(buffers: list[Buffer], steps: int, kinds: tuple[str, ...] = ("tensor",)) -> list[int]:
    """Bytes alive at each step (the union of a buffer's live parts: views overlap their parent)."""
    live = [0] * steps
    for b in buffers:
        if b.key[0] not in kinds:
            continue
        if b.parts is None:
            for s in range(b.first, min(b.last, steps - 1) + 1):
                live[s] += b.size
            continue
        for s in range(b.first, min(b.last, steps - 1) + 1):
            spans = sorted((rel, rel + size) for rel, size, first, last in b.parts if first <= s <= last)
            end = 0
            for lo, hi in spans:
                if hi > end:
                    live[s] += hi - max(lo, end)
                    end = hi
    return live


def lower_bound(buffers: list[Buffer], steps: int) -> int:
    """The largest sum of tensor sizes alive at one step (scratch excluded, no alignment)."""
    return max(live_bytes(buffers, steps) + [0])


def _fit_parts(parts: list[tuple[int, int, int, int]], placed: list[tuple[int, int, int, int]],
               alignment: int) -> int:
    """The lowest aligned offset where no part of a buffer meets a placed part alive at the same time."""
    candidates = {0} | {align_up(max(0, end - rel), alignment) for _, end, _, _ in placed for rel, *_ in parts}
    for x in sorted(candidates):
        if all(not (f <= pl and pf <= last and x + rel < pe and ps < x + rel + size)
               for rel, size, f, last in parts for ps, pe, pf, pl in placed):
            return x
    raise AssertionError("unreachable: past every placed part a buffer always fits")


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
        placed: list[tuple[int, int, int, int]] = []   # (start, end, first step, last step)
        total = 0
        offsets: dict[tuple[str, int], int] = {}
        for b in sorted(buffers, key=order):
            if b.parts is None:
                conflicts = sorted((off, end) for off, end, f, last in placed if f <= b.last and b.first <= last)
                offset = 0
                for off, end in conflicts:
                    if offset + b.size <= off:
                        break
                    offset = max(offset, align_up(end, alignment))
            else:
                offset = _fit_parts(b.parts, placed, alignment)
            placed += [(offset + rel, offset + rel + size, first, last) for rel, size, first, last in b.pieces()]
            offsets[b.key] = offset
            total = max(total, align_up(offset + b.size, alignment))
        if best_total is None or total < best_total:
            best_total, best_offsets = total, offsets
    for b in buffers:
        b.offset = best_offsets[b.key] if best_offsets else 0
    return best_total or 0
