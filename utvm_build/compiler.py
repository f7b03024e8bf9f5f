"""The pipeline, top to bottom: import -> graph passes -> memory plan -> emit C -> write."""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass
from pathlib import Path

from .emit.cnames import c_identifier
from .emit.group import GroupLink
from .emit.model import render
from .emit.output import write_output
from .errors import UnsupportedError, UtvmError
from .frontend.tflite import read_tflite
from .graph import ITEM_SIZE, Graph, Operator
from .kernel_table import scratch_bytes
from .ops import handler_for
from .ops.call import Prepared
from .ops.conv import PATCH_OPTION, balanced_plan
from .options import CompileOptions
from .passes import run_passes
from .passes.concat_slices import write_into_slices
from .passes.fuse_pad import fuse_pads
from .passes.inplace import alias_in_place
from .passes.kernel_state import add_kernel_state
from .passes.order import choose_order, ordered_workspace
from .passes.patches import EXTRA_MACS
from .passes.patches import choose as choose_patches
from .passes.variables import resolve_variables
from .planner import MemoryPlan, plan_model
from .selection import DEFAULT, frugal_scratch, layer_variant, optimizing
from .tuning import layer_key
from .validate import operator_context, validate_graph


@dataclass
class Compiled:
    """A compiled model, ready to be written out."""

    name: str
    graph: Graph
    plan: MemoryPlan
    files: dict[str, bytes]

    @property
    def metadata(self) -> dict:
        import json

        return json.loads(self.files["metadata.json"])


def read_model_file(path: str | Path) -> bytes:
    path = Path(path)
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise UtvmError(f"model file not found: {path}") from None
    except IsADirectoryError:
        raise UtvmError(f"{path} is a directory, not a .tflite model") from None
    except OSError as e:
        raise UtvmError(f"cannot read {path}: {e.strerror}") from None


def default_name(path: str | Path) -> str:
    return c_identifier(Path(path).stem, fallback="model")


def check_supported(g: Graph) -> None:
    """Every operator has a handler; report all unsupported ones in one short line (the supported
    list is long: the message points to it instead of printing it)."""
    missing = [op for op in g.all_operators() if handler_for(op.op) is None]
    if not missing:
        return
    where = UNSUPPORTED_HINT
    if len(missing) == 1:
        raise UnsupportedError(f"not supported ({where})", op_index=missing[0].index, op_name=missing[0].op)
    listed = ", ".join(f"#{op.index} {op.op}" for op in missing[:5])
    more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
    raise UnsupportedError(f"unsupported operators: {listed}{more} ({where})")


# Where a user finds what is supported: the CLI's list, and the per-type table.
UNSUPPORTED_HINT = "supported operators: `utvm-build info --operators`, types: docs/operators.md"


def check_io(g: Graph) -> None:
    produced = {o for op in g.operators for o in op.outputs}
    for k, t in enumerate(g.outputs):
        tensor = g.tensors[t]
        if t in g.inputs or tensor.is_const or t not in produced:
            raise UnsupportedError(f"model output {k} '{tensor.name}' is not computed by any operator "
                                   "(a model input or constant passed through is not supported)")
    if len(set(g.inputs)) != len(g.inputs) or len(set(g.outputs)) != len(g.outputs):
        raise UnsupportedError("the model lists the same tensor twice among its inputs or outputs")


def prepare_operators(g: Graph, target: str, tuning: tuple[tuple[str, str], ...] | None = None,
                      optimize: str = "balanced") -> dict[int, Prepared]:
    """Every operator's prepare step, once: validation, kernel calls, MACs (by operator index;
    the operators of every subgraph, each prepared with its own subgraph). ``tuning``: per-layer
    variants of the selection rule (tuning.py), by layer signature; ``optimize``: --optimize."""
    variants = dict(tuning or ())
    prepared = {}
    modes = layer_optimize(g, optimize)
    for sg in g.all_graphs:
        for op in sg.operators:
            variant = variants.get(layer_key(op, sg), DEFAULT) if variants else DEFAULT
            with operator_context(op, sg), layer_variant(variant), optimizing(modes[op.index]):
                prepared[op.index] = handler_for(op.op).prepare(op, sg, target)
    return prepared


def layer_optimize(g: Graph, optimize: str) -> dict[int, str]:
    """Every operator's ``--optimize`` mode: "speed" or "size" as given; "balanced": "speed" for the
    layers ops/conv.py ``balanced_plan`` widens, "size" for the others."""
    widened = balanced_plan(g) if optimize == "balanced" else set()
    return {op.index: optimize if optimize != "balanced" else ("speed" if op.index in widened else "size")
            for sg in g.all_graphs for op in sg.operators}


def op_scratch_bytes(op: Operator, g: Graph, prepared: Prepared, target: str) -> int:
    """Scratch of one operator: the largest its kernel calls need (they run one after another)."""
    sizes = [scratch_bytes(kc, op, g, target) for kc in prepared.calls]
    return max(sizes + [0]) + prepared.scratch_bytes


def with_safe_workspace_align(opts: CompileOptions, g: Graph, scratch: dict[int, int]) -> CompileOptions:
    """Raise the workspace alignment to the largest element the workspace holds.

    Buffers are typed views into the byte workspace: a float32 or int32 tensor at an offset that
    is not a multiple of 4 would be undefined behaviour in C and faults on cores without
    unaligned access. Scratch buffers may hold int64 accumulators, hence 8 when there is one.
    """
    in_workspace = {o for op in g.all_operators() for o in op.outputs} - set(g.outputs)
    if opts.io == "workspace":
        in_workspace |= set(g.inputs) | set(g.outputs)
    for sg in g.all_graphs[1:]:   # other subgraphs: their inputs and outputs are in their frames
        in_workspace |= set(sg.inputs) | set(sg.outputs)
    sizes = [ITEM_SIZE[g.tensors[t].dtype] for t in in_workspace if not g.tensors[t].is_const]
    need = max(sizes + [8 if any(scratch.values()) else 1])
    if opts.workspace_align >= need:
        return opts
    return dataclasses.replace(opts, workspace_align=need)


def lower(data: bytes) -> Graph:
    """Import, validate and run the graph passes: the graph whose operators get kernels."""
    g = read_tflite(data)
    for sg in g.all_graphs:
        validate_graph(sg)
    check_io(g)
    for sg in g.all_graphs:
        run_passes(sg)      # may fold operators away (shape computations on constants)
    check_supported(g)
    add_kernel_state(g)
    resolve_variables(g)
    return g


@dataclass
class Planned:
    """A model lowered, prepared and planned: everything but the C text (``compile_group`` looks at
    several of these before rendering any)."""

    name: str
    graph: Graph
    plan: MemoryPlan
    prepared: dict[int, Prepared]
    options: CompileOptions
    sha256: str
    source_name: str

    @property
    def kernel_functions(self) -> set[str]:
        """The kernel functions the model's operators call."""
        return {kc.function for p in self.prepared.values() for kc in p.calls}

    def render(self, link: GroupLink | None = None) -> Compiled:
        files = render(self.graph, self.plan, self.prepared, self.name, self.options, self.sha256,
                       self.source_name, link)
        return Compiled(name=self.name, graph=self.graph, plan=self.plan, files=files)


def plan_bytes(data: bytes, name: str, options: CompileOptions | None = None,
               source_name: str = "model.tflite") -> Planned:
    opts = options or CompileOptions()
    opts.validate()
    # under --memory balanced|min and --ram-limit the kernels take their smaller scratch forms
    with frugal_scratch(opts.memory != "fast" or bool(opts.ram_limit)):
        return _plan_bytes(data, name, opts, source_name)


def _plan_bytes(data: bytes, name: str, opts: CompileOptions, source_name: str) -> Planned:
    if not name or c_identifier(name) != name:
        raise UtvmError(f"model name '{name}' is not a lowercase C identifier (letters, digits, _)")
    g = lower(data)
    prepared = prepare_operators(g, opts.target, opts.tuning, opts.optimize)
    scratch = {op.index: op_scratch_bytes(op, sg, prepared[op.index], opts.target)
               for sg in g.all_graphs for op in sg.operators}
    opts = with_safe_workspace_align(opts, g, scratch)
    rewrite = opts.memory != "fast" or bool(opts.ram_limit)
    # the layer-by-layer workspace, for the report of what --memory / --ram-limit changed
    before = plan_model(g, scratch, opts.workspace_align, io_in_workspace=opts.io == "workspace").workspace_bytes \
        if rewrite else 0
    rewrites = {}
    # an operator prepared again below (a convolution taking a PAD, the stripes of one) keeps its
    # --optimize mode (the stripes: their operator's, e.g. widened weights)
    modes = layer_optimize(g, opts.optimize) if rewrite else {}
    if rewrite:   # pads, slices, then the operators' order: which input dies where depends on it
        rewrites["fused_pads"] = fuse_pads(g)
        for f in rewrites["fused_pads"]:   # the PAD is gone, its convolution takes the padding
            prepared.pop(f["operator"]), scratch.pop(f["operator"], None)
            conv = next(op for op in g.operators if op.index == f["into"])
            with operator_context(conv, g), optimizing(modes.get(conv.index, "size")):
                prepared[conv.index] = handler_for(conv.op).prepare(conv, g, opts.target)
            scratch[conv.index] = op_scratch_bytes(conv, g, prepared[conv.index], opts.target)
        rewrites["concat_slices"] = write_into_slices(g, lambda h: ordered_workspace(
            h, scratch, opts.workspace_align, io_in_workspace=opts.io == "workspace"))
        for c in rewrites["concat_slices"]:   # gone: its number may be given to a stripe
            prepared.pop(c["operator"]), scratch.pop(c["operator"], None)
        order = choose_order(g, scratch, opts.workspace_align, io_in_workspace=opts.io == "workspace")
        if order is not None:
            rewrites["order"] = order
    aliased = alias_in_place(g, opts.io == "workspace") if rewrite else []
    patches = choose_patches(g, opts.memory, opts.ram_limit, sum(p.macs for p in prepared.values()), scratch,
                             opts.workspace_align, io_in_workspace=opts.io == "workspace")
    if patches is not None and patches.segments:   # the stripes' own kernel calls and scratch
        for op in g.operators:
            if op.index not in prepared:
                of = op.options.get(PATCH_OPTION, {}).get("of", op.index)
                with operator_context(op, g), optimizing(modes.get(of, "size")):
                    prepared[op.index] = handler_for(op.op).prepare(op, g, opts.target)
                scratch[op.index] = op_scratch_bytes(op, g, prepared[op.index], opts.target)
        opts = with_safe_workspace_align(opts, g, scratch)
    plan = plan_model(g, scratch, opts.workspace_align, io_in_workspace=opts.io == "workspace")
    if patches is not None:
        patches.in_place = aliased
        patches.workspace_before = before
        patches.workspace_after = plan.workspace_bytes   # the search estimated the stripes' scratch
    plan.patches = patches
    plan.rewrites = rewrites
    if opts.ram_limit and plan.workspace_bytes > opts.ram_limit:
        raise UtvmError(f"--ram-limit {opts.ram_limit}: the smallest workspace found is {plan.workspace_bytes} "
                        f"bytes (stripes within {int(EXTRA_MACS['min'] * 100)}% extra MACs; "
                        f"layer by layer: {before})")
    sha = hashlib.sha256(data).hexdigest()
    return Planned(name, g, plan, prepared, opts, sha, source_name)


def compile_bytes(data: bytes, name: str, options: CompileOptions | None = None,
                  source_name: str = "model.tflite") -> Compiled:
    return plan_bytes(data, name, options, source_name).render()


def compile_model(model: str | Path, out_dir: str | Path, options: CompileOptions | None = None,
                  *, incremental: bool = False) -> Compiled:
    """Compile ``model`` (.tflite) into the generated directory ``out_dir``.

    The directory is replaced atomically and only if it holds nothing but an earlier run's output
    (``emit/output.py``). ``incremental``: files whose content is unchanged keep their timestamps,
    and a run that changes nothing touches nothing (build integrations).
    """
    opts = options or CompileOptions()
    name = opts.name or default_name(model)
    compiled = compile_bytes(read_model_file(model), name, opts, Path(model).name)
    write_output(Path(out_dir), compiled.files, incremental=incremental)
    return compiled
