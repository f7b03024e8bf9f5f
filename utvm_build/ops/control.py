"""Control flow: CALL_ONCE, IF, WHILE.

Each subgraph becomes one C function called directly by the operator (emit/control.py writes
that code; these handlers only validate). Data moves as in TFLite's if.cc / while.cc and TFLM's
call_once.cc: IF copies its inputs (after the condition) into the chosen branch's inputs, runs it
and copies the branch's outputs into its own; WHILE keeps the loop variables in its outputs,
copies them into the condition subgraph, runs it, and while its bool output holds, runs the body
on them and copies the body's outputs back. The loop ends only when the model's condition says so
(no iteration limit: a model whose condition never turns false never returns, as in TFLite).
CALL_ONCE runs its subgraph on the first run after a reset (a flag in the state region).
Subgraphs must not call themselves, directly or indirectly (no recursion in the C).
"""

from __future__ import annotations

from ..graph import Graph, Operator, Tensor
from .base import OpHandler, fail, register
from .call import Prepared

#: Options naming the subgraphs an operator calls.
SUBGRAPH_OPTIONS = {"CALL_ONCE": ("init_subgraph_index",), "IF": ("then_subgraph_index", "else_subgraph_index"),
                    "WHILE": ("cond_subgraph_index", "body_subgraph_index")}


def called_subgraphs(op: Operator) -> list[int]:
    """The subgraph numbers ``op`` calls (none for a non-control-flow operator); unchecked."""
    return [int(op.options.get(name, -1)) for name in SUBGRAPH_OPTIONS.get(op.op, ())]


def _callee(op: Operator, g: Graph, option: str) -> Graph:
    k = int(op.options.get(option, -1))
    n = len(g.all_graphs)
    if not 1 <= k < n:
        raise fail(op, f"{option} {k} is not a subgraph of the model (it has {n}; subgraph 0 is the main one)")
    if k == op.subgraph:
        raise fail(op, f"{option} {k} is the operator's own subgraph (recursion is not supported)")
    return g.subgraph(k)


def _same(op: Operator, what: str, a: Tensor, b: Tensor) -> None:
    if a.dtype != b.dtype or tuple(a.shape) != tuple(b.shape):
        raise fail(op, f"{what}: tensor #{a.index} '{a.name}' is {a.dtype} {list(a.shape)} but tensor #{b.index} "
                       f"'{b.name}' is {b.dtype} {list(b.shape)} (static shapes: they must match)")


def _check_computed(op: Operator, g: Graph, sg: Graph, role: str) -> None:
    """Every output of a called subgraph is one of its inputs, a constant or computed by it."""
    known = set(sg.inputs) | {o for o_ in sg.operators for o in o_.outputs}
    for k, t in enumerate(sg.outputs):
        if t not in known and not g.tensors[t].is_const:
            raise fail(op, f"output {k} of the {role} subgraph {sg.index} (tensor #{t} '{g.tensors[t].name}') is "
                           "neither an input, a constant nor computed by the subgraph")


def _check_io(op: Operator, g: Graph, sg: Graph, ins: list[int], outs: list[int], role: str) -> None:
    if len(sg.inputs) != len(ins):
        raise fail(op, f"{role} subgraph {sg.index} takes {len(sg.inputs)} inputs, the operator passes {len(ins)}")
    if len(sg.outputs) != len(outs):
        raise fail(op, f"{role} subgraph {sg.index} has {len(sg.outputs)} outputs, the operator expects {len(outs)}")
    for k, (a, b) in enumerate(zip(ins, sg.inputs)):
        if a < 0:
            raise fail(op, f"input {k} is missing")
        _same(op, f"input {k} of the {role} subgraph", g.tensors[a], g.tensors[b])
    for k, (a, b) in enumerate(zip(outs, sg.outputs)):
        _same(op, f"output {k} of the {role} subgraph", g.tensors[a], g.tensors[b])
    _check_computed(op, g, sg, role)


def _check_bool(op: Operator, t: Tensor, what: str) -> None:
    if t.dtype != "bool" or t.size != 1:
        raise fail(op, f"{what} tensor #{t.index} '{t.name}' is {t.dtype} {list(t.shape)}; expected one bool")


@register("CALL_ONCE")
class CallOnce(OpHandler):
    supported = "a subgraph without inputs or outputs, run on the first run after a reset"

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        sg = _callee(op, g, "init_subgraph_index")
        if op.inputs or op.outputs:
            raise fail(op, f"expected no inputs and no outputs, got {len(op.inputs)} and {len(op.outputs)}")
        if sg.inputs or sg.outputs:
            raise fail(op, f"init subgraph {sg.index} has inputs or outputs; TFLite's CALL_ONCE expects none")
        return Prepared()


@register("IF")
class If(OpHandler):
    supported = "bool condition (one element, run time), branches with the operator's input/output types and shapes"

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        then_g, else_g = _callee(op, g, "then_subgraph_index"), _callee(op, g, "else_subgraph_index")
        if not op.inputs or op.inputs[0] < 0:
            raise fail(op, "the condition input is missing")
        _check_bool(op, g.tensors[op.inputs[0]], "condition")
        for role, sg in (("then", then_g), ("else", else_g)):
            _check_io(op, g, sg, op.inputs[1:], op.outputs, role)
        return Prepared()


@register("WHILE")
class While(OpHandler):
    supported = "loop variables of static type and shape, a bool condition subgraph; bounded by the model only"

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        cond_g, body_g = _callee(op, g, "cond_subgraph_index"), _callee(op, g, "body_subgraph_index")
        if len(op.inputs) != len(op.outputs):
            raise fail(op, f"has {len(op.inputs)} inputs but {len(op.outputs)} outputs; loop variables need both")
        for k, (a, b) in enumerate(zip(op.inputs, op.outputs)):
            if a < 0:
                raise fail(op, f"input {k} is missing")
            _same(op, f"loop variable {k}", g.tensors[a], g.tensors[b])
        if len(cond_g.inputs) != len(op.inputs) or len(cond_g.outputs) != 1:
            raise fail(op, f"cond subgraph {cond_g.index} must take the {len(op.inputs)} loop variables and give "
                           f"one bool; it has {len(cond_g.inputs)} inputs and {len(cond_g.outputs)} outputs")
        for k, (a, b) in enumerate(zip(op.inputs, cond_g.inputs)):
            _same(op, f"input {k} of the cond subgraph", g.tensors[a], g.tensors[b])
        _check_bool(op, g.tensors[cond_g.outputs[0]], f"cond subgraph {cond_g.index} output")
        _check_computed(op, g, cond_g, "cond")
        _check_io(op, g, body_g, op.inputs, op.outputs, "body")
        return Prepared()
