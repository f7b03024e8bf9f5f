"""Patch-based execution (MCUNetV2, arXiv 2110.15352) of chains of windowed operators, in stripes.

A *segment* is a run of consecutive operators (CONV_2D, DEPTHWISE_CONV_2D) where each one's output
is read only by the next. Run layer by layer, every intermediate of the segment is alive whole; run
in ``n`` stripes of output rows, each stripe computes the rows it needs of every intermediate (the
receptive field, propagated backwards through stride, dilation, filter and padding), so only one
stripe's intermediates are alive at a time. Rows that two stripes both need (the halo) are computed
twice: that is the cost, counted as extra MACs.

The rewrite is a graph rewrite, no new C: the segment's operators are replaced by one copy per
stripe, whose input and output are *views* (``Graph.view_offsets``: a run of whole rows of a
NHWC tensor with batch 1 is contiguous) of the segment's input and output, and whose intermediates
are tensors of the stripe's rows. Each copy has its own top padding (``ops/conv.PATCH_OPTION``),
so a stripe's border rows are padded exactly where the whole tensor's are and interior rows see
their real neighbours: every output element is computed by the same kernel with the same
arithmetic on the same values, hence byte-identical. The memory planner then plans the stripes'
tensors as any others.

When the segment's input dies with the segment and its output is not larger, the output may be
placed over the input (``in place``): stripe ``k`` writes output bytes that no later stripe (nor
its own first operator, for a one-operator segment) still reads; checked byte by byte here.

The choice (``choose``): candidate segments (every run of at most ``MAX_SEGMENT`` operators inside
a chain), stripe counts, in place or not; each candidate is planned with the real planner and the
one with the smallest workspace within the extra-MAC budget of the mode is taken, repeatedly
(several segments, e.g. one per residual block), while the workspace shrinks; some runs first put
every chain's first operator in place (a line buffer), and of the runs reaching the smallest
workspace (or the --ram-limit) the one with the fewest extra MACs is kept. docs/architecture.md
("Memory below the activation bound").
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from ..errors import UtvmError
from ..graph import Graph, Operator, Tensor
from ..ops.conv import PATCH_OPTION

PATCHABLE = ("CONV_2D", "DEPTHWISE_CONV_2D")
#: Extra MACs allowed, as a fraction of the model's MACs, per --memory mode (--ram-limit: MIN's).
EXTRA_MACS = {"balanced": 0.02, "min": 0.10}
#: Longest segment tried (operators) and stripe counts tried.
MAX_SEGMENT = 12
STRIPES = (2, 3, 4, 6, 8, 12, 16)
#: Segments applied one after another at most.
MAX_ROUNDS = 16


@dataclass
class _Geo:
    in_h: int
    out_h: int
    stride: int
    dilation: int
    filt: int
    pad: int
    macs_per_row: int


@dataclass
class Candidate:
    start: int                 # position of the segment's first operator in g.operators
    ops: list[Operator]
    stripes: int
    in_place: bool
    rows: list[list[tuple[int, int, int, int, int]]]   # per stripe, per op: (i0, i1, o0, o1, pad_h)
    extra_macs: int
    workspace: int = 0
    #: in place: the output's start relative to the input's in their shared buffer, and whether the
    #: stripes run bottom-up
    delta: int = 0
    reverse: bool = False


@dataclass
class _Size:
    peak: int
    count: int
    workspace: int
    at_peak: set[int]
    local: int


@dataclass
class PatchReport:
    """What the planner chose (``info``, metadata.json, the report)."""

    mode: str
    workspace_before: int = 0
    workspace_after: int = 0
    extra_macs: int = 0
    model_macs: int = 0
    segments: list[dict] = field(default_factory=list)
    #: elementwise operators written over a dying input (passes/inplace.py)
    in_place: list[dict] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"mode": self.mode, "workspace_before": self.workspace_before,
                "workspace_after": self.workspace_after, "extra_macs": self.extra_macs,
                "model_macs": self.model_macs, "segments": self.segments, "in_place": self.in_place}


def _geo(op: Operator, g: Graph) -> _Geo | None:
    """The operator's height geometry, or None when it cannot be cut into stripes."""
    from ..ops import handler_for
    from ..ops.hybrid import is_hybrid

    if op.op not in PATCHABLE or PATCH_OPTION in op.options or len(op.outputs) != 1 or not op.inputs:
        return None
    x, out = g.input_tensor(op, 0), g.tensors[op.outputs[0]]
    if x is None or x.is_const or x.is_variable or out.is_variable or is_hybrid(op, g):
        return None
    if len(x.shape) != 4 or x.shape[0] != 1:
        return None
    try:
        geo = handler_for(op.op).geometry(op, g)
    except UtvmError:
        return None
    return _Geo(geo.in_h, geo.out_h, geo.stride_h, geo.dilation_h, geo.filter_h, geo.pad_h,
                geo.out_w * geo.out_c * geo.filter_h * geo.filter_w * geo.filter_in_c)


def _consumers(g: Graph) -> dict[int, int]:
    count: dict[int, int] = {}
    for op in g.operators:
        for t in op.inputs:
            if t >= 0:
                count[t] = count.get(t, 0) + 1
    return count


def _plain(g: Graph, t: int) -> bool:
    """A tensor with storage of its own that nothing else shares (no alias either way)."""
    return g.storage_root(t) == t and t not in g.aliases.values()


def chains(g: Graph) -> list[list[int]]:
    """Maximal runs of positions in g.operators of patchable operators, each reading the previous
    one's output, which nothing else reads."""
    uses = _consumers(g)
    runs: list[list[int]] = []
    current: list[int] = []
    for pos, op in enumerate(g.operators):
        if _geo(op, g) is None:
            current = []
            continue
        prev = g.operators[pos - 1] if current else None
        if prev is not None:
            link = prev.outputs[0]
            if not (op.inputs[0] == link and uses.get(link, 0) == 1 and link not in g.outputs
                    and _plain(g, link)):
                current = []
        if not current:
            current = [pos]
            runs.append(current)
        else:
            current.append(pos)
    return runs


def stripe_rows(geos: list[_Geo], n: int) -> list[list[tuple[int, int, int, int, int]]] | None:
    """Per stripe, per operator: (first input row, end input row, first output row, end output row,
    top padding of the stripe); None when a stripe would be empty."""
    out_h = geos[-1].out_h
    if n < 2 or n > out_h:
        return None
    bounds = [out_h * k // n for k in range(n + 1)]
    result = []
    for k in range(n):
        a, b = bounds[k], bounds[k + 1]
        rows: list[tuple[int, int, int, int, int]] = []
        for geo in reversed(geos):
            lo = a * geo.stride - geo.pad
            hi = (b - 1) * geo.stride - geo.pad + (geo.filt - 1) * geo.dilation + 1
            i0, i1 = max(0, lo), min(geo.in_h, hi)
            if i1 <= i0 or b <= a:
                return None
            rows.insert(0, (i0, i1, a, b, i0 - lo))
            a, b = i0, i1
        result.append(rows)
    return result


def _storage_dies(g: Graph, t_in: int, start: int, io_in_workspace: bool) -> bool:
    """Every tensor sharing ``t_in``'s storage is dead once the operator at ``start`` has read
    ``t_in``: nothing after it reads them, none is a model output or the caller's input."""
    root = g.storage_root(t_in)
    members = [t for t in range(len(g.tensors)) if g.storage_root(t) == root]
    for t in members:
        tensor = g.tensors[t]
        if t in g.outputs or tensor.is_const or tensor.is_variable:
            return False
        if t in g.inputs and not io_in_workspace:   # the caller's buffer: never written
            return False
        readers = [pos for pos, op in enumerate(g.operators) if t in op.inputs]
        if any(pos > start for pos in readers) or (t == t_in and readers != [start]):
            return False
    return True


@dataclass
class _Anchor:
    keep: int         # the tensor whose storage keeps its layout
    join: int         # the tensor whose storage (root) is placed relative to it
    base: int         # offset of ``keep`` in its storage
    size: int         # bytes of that storage
    join_offset: int  # offset of ``join`` in its own storage
    joining: int      # bytes of that storage
    sign: int         # 1: the output joins (at base + delta), -1: the input joins (at base - delta)


def _anchor(g: Graph, t_in: int, t_out: int, end: int) -> _Anchor | None:
    """How the input's and the output's storage become one: the output (a tensor of its own)
    joins the input's storage; or the input's storage joins the output's, when the output's
    already holds tensors of a later in-place segment (used only after position ``end``)."""
    def storage(t: int) -> tuple[int, int]:
        return g.storage_offset(t), g.tensors[g.storage_root(t)].nbytes

    if _plain(g, t_out):
        return _Anchor(t_in, t_out, *storage(t_in), 0, g.tensors[t_out].nbytes, 1)
    if g.storage_root(t_in) != g.storage_root(t_out) and _joins_later(g, t_out, end):
        return _Anchor(t_out, t_in, *storage(t_out), *storage(t_in), -1)
    return None


def _joins_later(g: Graph, t_out: int, end: int) -> bool:
    """The other tensors of ``t_out``'s storage are all used only after position ``end`` (they
    belong to a later in-place segment): the segment's input may join that storage."""
    root = g.storage_root(t_out)
    members = {t for t in range(len(g.tensors)) if g.storage_root(t) == root} - {t_out}
    return all(not (members & set(op.inputs + op.outputs)) for op in g.operators[:end + 1])


def _in_place_layout(g: Graph, start: int, ops: list[Operator], rows: list,
                     io_in_workspace: bool) -> tuple[int, bool, int] | None:
    """Where the segment's output can overwrite its input: (bytes the shared buffer grows by,
    stripes bottom-up?, output start relative to the input's), the cheapest; None when it cannot.
    Top-down stripes write output bytes that no later stripe (nor, for one operator, the same
    stripe) still reads when the output starts early enough; bottom-up, late enough."""
    t_in, t_out = ops[0].inputs[0], ops[-1].outputs[0]
    tin, tout = g.tensors[t_in], g.tensors[t_out]
    if t_out in g.outputs or t_out in g.inputs or tout.is_variable:
        return None
    if not _storage_dies(g, t_in, start, io_in_workspace):
        return None
    anchor = _anchor(g, t_in, t_out, start + len(ops) - 1)
    if anchor is None:
        return None
    in_row = tin.nbytes // tin.shape[1]
    out_row = tout.nbytes // tout.shape[1]
    item = max(tin.nbytes // tin.size, tout.nbytes // tout.size)
    same = 0 if len(ops) == 1 else 1
    deltas = sorted({m * out_row for m in range(-tout.shape[1], tout.shape[1] + 1)} | {tin.nbytes - tout.nbytes},
                    key=abs)
    best = None
    for reverse in (False, True):
        order = rows[::-1] if reverse else rows
        for delta in deltas:
            at = anchor.base + anchor.sign * delta - anchor.join_offset   # where the joining storage starts
            if at % 4 or at % item:
                continue
            growth = max(anchor.size, at + anchor.joining) - min(0, at) - anchor.size
            if growth >= anchor.joining or (best is not None and growth >= best[0]):
                continue
            ok = True
            for k, stripe in enumerate(order):
                w0, w1 = stripe[-1][2] * out_row + delta, stripe[-1][3] * out_row + delta
                for later in order[k + same:]:
                    if w0 < later[0][1] * in_row and later[0][0] * in_row < w1:
                        ok = False
                        break
                if not ok:
                    break
            if ok:
                best = (growth, reverse, delta)
    return best


def _aligned(g: Graph, ops: list[Operator], rows: list) -> bool:
    """Every stripe's view starts at a multiple of 4 bytes from its tensor (kernels may load words)."""
    tin, tout = g.tensors[ops[0].inputs[0]], g.tensors[ops[-1].outputs[0]]
    in_row, out_row = tin.nbytes // tin.shape[1], tout.nbytes // tout.shape[1]
    return all((st[0][0] * in_row) % 4 == 0 and (st[-1][2] * out_row) % 4 == 0 for st in rows)


def _extra_macs(geos: list[_Geo], rows: list) -> int:
    done = sum(geo.macs_per_row * (r[3] - r[2]) for stripe in rows for geo, r in zip(geos, stripe))
    return done - sum(geo.macs_per_row * geo.out_h for geo in geos)


def apply(g: Graph, c: Candidate, first_index: int) -> list[Tensor]:
    """Rewrite ``g`` in place: the segment's operators become one copy per stripe. Returns the new
    tensors (already appended to g.tensors); new operators are numbered from ``first_index``."""
    t_in, t_out = c.ops[0].inputs[0], c.ops[-1].outputs[0]
    new_tensors: list[Tensor] = []
    new_ops: list[Operator] = []

    def tensor_like(base: Tensor, rows: int, name: str) -> int:
        t = Tensor(index=len(g.tensors), name=name, dtype=base.dtype,
                   shape=(base.shape[0], rows, *base.shape[2:]), quant=base.quant)
        g.tensors.append(t)
        new_tensors.append(t)
        return t.index

    def view(of: int, r0: int, r1: int) -> int:
        base = g.tensors[of]
        t = tensor_like(base, r1 - r0, f"{base.name}/rows{r0}-{r1}")
        g.aliases[t] = of
        g.view_offsets[t] = r0 * (base.nbytes // base.shape[1])
        return t

    if c.in_place:
        tin, tout = g.tensors[t_in], g.tensors[t_out]
        if g.storage_root(t_in) == t_in and c.delta == 0 and tout.nbytes <= tin.nbytes and _plain(g, t_out):
            g.aliases[t_out] = t_in
        else:   # one buffer holding the storage of one and the other
            anchor = _anchor(g, t_in, t_out, c.start + len(c.ops) - 1)
            assert anchor is not None
            at = anchor.base + anchor.sign * c.delta - anchor.join_offset
            keep_root, join_root = g.storage_root(anchor.keep), g.storage_root(anchor.join)
            lo, hi = min(0, at), max(anchor.size, at + anchor.joining)
            item = tin.nbytes // tin.size
            shared = Tensor(index=len(g.tensors), name=f"{tin.name}+{tout.name}", dtype=tin.dtype,
                            shape=((hi - lo) // item,))
            g.tensors.append(shared)
            new_tensors.append(shared)
            g.aliases[keep_root], g.view_offsets[keep_root] = shared.index, -lo
            g.aliases[join_root], g.view_offsets[join_root] = shared.index, at - lo
    index = first_index
    for k, stripe in (reversed(list(enumerate(c.rows))) if c.reverse else enumerate(c.rows)):
        prev = view(t_in, stripe[0][0], stripe[0][1])
        for j, (op, r) in enumerate(zip(c.ops, stripe)):
            last = j == len(c.ops) - 1
            out = view(t_out, r[2], r[3]) if last else tensor_like(
                g.tensors[op.outputs[0]], r[3] - r[2], f"{g.tensors[op.outputs[0]].name}/stripe{k}")
            options = dict(op.options)
            options[PATCH_OPTION] = {"pad_h": r[4], "of": op.index, "stripe": k, "stripes": c.stripes}
            new_ops.append(dataclasses.replace(op, index=index, inputs=[prev, *op.inputs[1:]], outputs=[out],
                                               options=options))
            index += 1
            prev = out
    g.operators[c.start:c.start + len(c.ops)] = new_ops
    return new_tensors


def _candidates(g: Graph, io_in_workspace: bool, budget: float, at_peak: set[int]):
    """Segments that contain an operator at the peak (no other can lower it), their stripe counts
    within the MAC budget, in place where possible."""
    for run in chains(g):
        geos_all = [_geo(g.operators[p], g) for p in run]
        for a in range(len(run)):
            for b in range(a + 1, min(len(run), a + MAX_SEGMENT) + 1):
                ops = [g.operators[p] for p in run[a:b]]
                if not any(op.index in at_peak for op in ops):
                    continue
                geos = [x for x in geos_all[a:b] if x is not None]
                for n in STRIPES:
                    rows = stripe_rows(geos, n)
                    if rows is None:
                        continue
                    if not _aligned(g, ops, rows):
                        continue
                    extra = _extra_macs(geos, rows)
                    if extra > budget:
                        continue
                    layout = _in_place_layout(g, run[a], ops, rows, io_in_workspace)
                    if layout is not None:
                        yield Candidate(run[a], ops, n, True, rows, extra, delta=layout[2], reverse=layout[1])
                    if len(ops) > 1:   # one operator in stripes saves nothing unless in place
                        yield Candidate(run[a], ops, n, False, rows, extra)


def _copy(g: Graph) -> Graph:
    """A graph to try a rewrite on: its own lists and tables, the same tensor objects."""
    return dataclasses.replace(g, tensors=list(g.tensors), operators=list(g.operators), aliases=dict(g.aliases),
                               view_offsets=dict(g.view_offsets), graphs=[])


def choose(g: Graph, mode: str, ram_limit: int, model_macs: int, scratch: dict[int, int], alignment: int,
           io_in_workspace: bool) -> PatchReport | None:
    """Pick and apply segments (``g`` is rewritten in place). ``scratch``: operator index -> its
    scratch bytes (a stripe is given its operator's); returns what was done, None for "fast"."""
    from ..planner import live_bytes, plan_memory, plan_state

    if mode == "fast" and not ram_limit:
        return None
    if len(g.all_graphs) > 1:
        return PatchReport(mode)   # control flow: the frames of other subgraphs are not rewritten
    state = plan_state(g)
    budget = EXTRA_MACS.get(mode, EXTRA_MACS["min"]) * model_macs

    def size_of(h: Graph, segment: set[int] | None = None, with_scratch: bool = True) -> _Size:
        """The peak (largest bytes alive at one step), the operators at it, the workspace and the
        peak over ``segment``'s stripes. A segment that takes one operator off the peak is progress
        even before the peak itself falls (it is often a plateau: KWS's 8 layers); the workspace
        (placement included) decides which rewrite is kept."""
        ids = [op.options.get(PATCH_OPTION, {}).get("of", op.index) for op in h.operators]
        plan = plan_memory(h, [scratch.get(i, 0) if with_scratch else 0 for i in ids], alignment,
                           io_in_workspace=io_in_workspace,
                           state=state)
        live = live_bytes(plan.buffers, len(h.operators), ("tensor", "scratch"))
        peak = max(live + [0])
        at_peak = {ids[k] for k, v in enumerate(live) if v == peak}
        local = max([v for k, v in enumerate(live) if segment and ids[k] in segment] + [0])
        return _Size(peak, len(at_peak), plan.workspace_bytes, at_peak, local)

    def record(work: Graph, c: Candidate, with_scratch: bool, segments: list[dict]) -> _Size:
        """Apply ``c`` to ``work`` and note it in ``segments``; returns the new size."""
        first = max(max(op.index for op in work.operators), max(op.index for op in g.all_operators())) + 1
        t_in, t_out = c.ops[0].inputs[0], c.ops[-1].outputs[0]
        names = (work.tensors[t_in].name, work.tensors[t_out].name)
        apply(work, c, first)
        real = size_of(work)
        segments.append({
            "operators": [op.index for op in c.ops], "ops": [op.op for op in c.ops],
            "input": names[0], "output": names[1],
            "stripes": c.stripes, "rows": [[s[-1][2], s[-1][3]] for s in c.rows],
            "in_place": c.in_place, "output_offset_bytes": c.delta, "bottom_up": c.reverse,
            "extra_macs": c.extra_macs, "workspace_after": real.workspace, "first_operator_index": first})
        return size_of(work, with_scratch=with_scratch) if not with_scratch else real

    def line_buffers(work: Graph, with_scratch: bool, segments: list[dict]) -> None:
        """The first operator of every chain of the model, when it can run in place in stripes at
        no extra MAC (the stripes are its line buffer: its output over the input rows already
        consumed), where that lowers the bytes alive at its step and not the peak. Off the peak
        too: the segments chosen after it then start from the input's buffer rather than
        recompute that operator in their halos (VWW's first convolution: 2x its MACs in a
        segment's halos, none in place)."""
        done: set[int] = set()
        heads = {g.operators[run[0]].index for run in chains(g)}
        while True:
            firsts = [work.operators[run[0]] for run in chains(work)]
            todo = [op for op in firsts if op.index in heads and op.index not in done]
            if not todo:
                return
            op = todo[0]
            done.add(op.index)
            before = size_of(work, {op.index}, with_scratch)
            best, best_key = None, None
            for c in _candidates(work, io_in_workspace, 0, {op.index}):
                if not c.in_place or len(c.ops) != 1 or c.extra_macs:
                    continue
                trial = _copy(work)
                apply(trial, c, 1 << 20)
                size = size_of(trial, {op.index}, with_scratch)
                key = (size.local, size.peak, c.stripes)
                if size.local < before.local and size.peak <= before.peak and (best_key is None or key < best_key):
                    best, best_key = c, key
            if best is not None:
                record(work, best, with_scratch, segments)

    def greedy(free_first: bool, with_scratch: bool = True, lines: bool = False, local_first: bool = False,
               fit_after: int = 0, limit: int = ram_limit) -> tuple[_Size, Graph, list[dict], int]:
        """Apply the best segment, again and again; the state with the smallest workspace (with
        the kernels' scratch; ``with_scratch`` False: the search itself ignores it, which keeps a
        large scratch of a few operators from steering it)."""
        work = _copy(g)
        segments: list[dict] = []
        if lines:
            line_buffers(work, with_scratch, segments)
        current = size_of(work, with_scratch=with_scratch)
        best_state = (size_of(work), work, list(segments), 0)
        spent = 0
        for round_ in range(MAX_ROUNDS):
            if limit and best_state[0].workspace <= limit:
                break
            best: Candidate | None = None
            best_key: tuple | None = None
            # free_first: the rewrites that recompute nothing (in place, stripes without halos)
            # before the others (spending the MAC budget on a local gain can block a better set of
            # free ones: KWS); else all at once (a free local gain can block a better costly
            # segment: VWW). Both are tried.
            for share in (0.0, 1.0) if free_first else (1.0,):
                for c in _candidates(work, io_in_workspace, (budget - spent) * share, current.at_peak):
                    if share and free_first and not c.extra_macs:
                        continue
                    trial = _copy(work)
                    apply(trial, c, 1 << 20)
                    size = size_of(trial, {op.index for op in c.ops}, with_scratch)
                    c.workspace = size.workspace
                    if (size.peak, size.count) >= (current.peak, current.count):
                        continue
                    # in place before not: a segment's live bytes fall as its stripes consume the
                    # input, but only one buffer holding both lets the placement use that
                    key: tuple = (size.peak, size.count, size.local, not c.in_place, size.workspace, c.extra_macs,
                                  c.stripes)
                    if local_first:
                        key = (size.local, *key)
                    if limit and round_ >= fit_after:   # the fewest extra MACs that meets the limit, else as above
                        fits = size.workspace <= limit
                        key = (not fits, spent + c.extra_macs if fits else 0, *key)
                    if best_key is None or key < best_key:
                        best, best_key = c, key
                if best is not None:
                    break
            if best is None:
                break
            spent += best.extra_macs
            current = record(work, best, with_scratch, segments)
            real = current if with_scratch else size_of(work)
            if real.workspace < best_state[0].workspace:
                best_state = (real, _copy(work), list(segments), spent)
        return best_state

    report = PatchReport(mode, model_macs=model_macs)
    report.workspace_before = size_of(g).workspace
    runs = [greedy(True), greedy(False), greedy(True, lines=True, local_first=True),
            greedy(False, lines=True, local_first=True)]
    if any(scratch.values()):
        runs += [greedy(True, False), greedy(False, False)]
    # a first segment that does not meet the limit alone, then the cheapest that does; min: the
    # limit is the smallest workspace found, reached again with fewer extra MACs when possible
    limit = ram_limit or min(r[0].workspace for r in runs)
    if any(r[3] for r in runs if r[0].workspace <= limit) and not any(
            not r[3] for r in runs if r[0].workspace <= limit):   # else none can be cheaper
        runs += [greedy(False, fit_after=1, limit=limit),
                 greedy(False, lines=True, local_first=True, fit_after=1, limit=limit)]

    def rank(run: tuple[_Size, Graph, list[dict], int]) -> tuple[int, ...]:
        """The smallest workspace, then the fewest extra MACs; --ram-limit: the fewest extra MACs
        of the runs that meet it."""
        fits = run[0].workspace <= limit
        return (0, run[3]) if fits else (1, run[0].workspace, run[3])

    current, chosen, report.segments, spent = min(runs, key=rank)
    if report.segments:   # the rewrite that reached the smallest workspace
        g.tensors[:] = chosen.tensors
        g.operators[:] = chosen.operators
        g.aliases.clear()
        g.aliases.update(chosen.aliases)
        g.view_offsets.clear()
        g.view_offsets.update(chosen.view_offsets)
    current = current.workspace
    report.workspace_after = current
    report.extra_macs = spent
    return report
