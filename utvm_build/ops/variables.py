"""Resource variables: VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE.

Resolved at compile time (passes/variables.py): VAR_HANDLE emits no code, its output is the
variable's place in the state region; READ_VARIABLE copies the variable into its output and
ASSIGN_VARIABLE copies its value input into the variable (TFLite's read_variable.cc and
assign_variable.cc copy the bytes: no requantization).
"""

from __future__ import annotations

from ..graph import Graph, Operator
from ..passes.variables import resolve_variables
from .base import OpHandler, fail, register
from .call import In, Lit, Out, Prepared, call


def _variable(op: Operator, g: Graph):   # noqa: ANN202 - passes.variables.Variable
    model = g.subgraph(0)
    if op.inputs and op.inputs[0] not in model.resource_handles:   # not resolved yet (prepared on its own)
        resolve_variables(model)
    key = model.resource_handles.get(op.inputs[0]) if op.inputs else None
    if key is None:
        raise fail(op, "its resource input does not name a variable (VAR_HANDLE of the same subgraph)")
    return model.variables[key]


@register("VAR_HANDLE")
class VarHandle(OpHandler):
    supported = "resolved at compile time to the variable's place in the state region (no code)"

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        if op.inputs or len(op.outputs) != 1 or g.tensors[op.outputs[0]].dtype != "resource":
            raise fail(op, "expected no inputs and one resource output")
        return Prepared()


@register("READ_VARIABLE")
class ReadVariable(OpHandler):
    supported = "any dtype, static shape (byte copy from the state region)"

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        var = _variable(op, g)
        return Prepared([call("utvm_copy", In(0), Out(0), Lit(var.nbytes, "size_t"))])


@register("ASSIGN_VARIABLE")
class AssignVariable(OpHandler):
    supported = "any dtype, static shape, one shape per variable (byte copy into the state region)"

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        var = _variable(op, g)
        return Prepared([call("utvm_copy", In(1), In(0), Lit(var.nbytes, "size_t"))])
