"""Resource variables (VAR_HANDLE / READ_VARIABLE / ASSIGN_VARIABLE), resolved at compile time.

TFLite creates a resource variable when VAR_HANDLE first names it (by container and shared name,
model-wide: the CALL_ONCE initialisation subgraph and the main subgraph see the same variable) and
sizes it at its first ASSIGN_VARIABLE. Here every variable gets one static type and shape, those of
the tensors assigned to it and read from it (they must all agree), and every VAR_HANDLE output
stands for the variable's place in the state region (planner.plan_state). A resource tensor may
only flow from a VAR_HANDLE to READ_VARIABLE / ASSIGN_VARIABLE of the same subgraph.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import UnsupportedError
from ..graph import Graph, Operator, Tensor

_USERS = ("READ_VARIABLE", "ASSIGN_VARIABLE")


@dataclass
class Variable:
    key: tuple[str, str]   # (container, shared_name)
    dtype: str
    shape: tuple[int, ...]
    first: Operator        # the operator that fixed its type and shape

    @property
    def name(self) -> str:
        container, shared = self.key
        return f"{container}/{shared}" if container else shared

    @property
    def nbytes(self) -> int:
        return Tensor(index=-1, name="", dtype=self.dtype, shape=self.shape).nbytes


def _fail(op: Operator, message: str) -> UnsupportedError:
    return UnsupportedError(message, op_index=op.index, op_name=op.op)


def resolve_variables(g: Graph) -> None:
    """Fill ``g.variables`` (key -> Variable, in first-use order) and ``g.resource_handles``
    (resource tensor -> variable key); raise UnsupportedError (naming the operator) otherwise."""
    handles: dict[int, tuple[str, str]] = {}
    variables: dict[tuple[str, str], Variable] = {}
    for sg in g.all_graphs:
        for t in sg.inputs + sg.outputs:
            if g.tensors[t].dtype == "resource":
                raise UnsupportedError(f"subgraph {sg.index} passes the resource tensor #{t} "
                                       f"'{g.tensors[t].name}' as an input or output; resource tensors must stay "
                                       "inside one subgraph (VAR_HANDLE and its READ/ASSIGN_VARIABLE)")
        for op in sg.operators:
            if op.op == "VAR_HANDLE":
                if op.inputs or len(op.outputs) != 1 or g.tensors[op.outputs[0]].dtype != "resource":
                    raise _fail(op, "expected no inputs and one resource output")
                handles[op.outputs[0]] = (str(op.options.get("container", "")),
                                          str(op.options.get("shared_name", "")))
    for op in g.all_operators():
        resources = [t for t in op.inputs + op.outputs if t >= 0 and g.tensors[t].dtype == "resource"]
        if op.op not in _USERS:
            if resources and op.op != "VAR_HANDLE":
                raise _fail(op, f"uses the resource tensor #{resources[0]} '{g.tensors[resources[0]].name}'; only "
                                "VAR_HANDLE, READ_VARIABLE and ASSIGN_VARIABLE may")
            continue
        n_in, n_out = (1, 1) if op.op == "READ_VARIABLE" else (2, 0)
        if len(op.inputs) != n_in or len(op.outputs) != n_out:
            raise _fail(op, f"expected {n_in} inputs and {n_out} outputs, got {len(op.inputs)} and {len(op.outputs)}")
        r = op.inputs[0]
        if r < 0 or r not in handles:
            raise _fail(op, "its first input is not the resource output of a VAR_HANDLE of the same subgraph")
        value = g.tensors[op.outputs[0] if op.op == "READ_VARIABLE" else op.inputs[1]] \
            if op.op == "READ_VARIABLE" or op.inputs[1] >= 0 else None
        if value is None:
            raise _fail(op, "the value input is missing")
        if value.dtype == "resource":
            raise _fail(op, "a variable of resources is not supported")
        key = handles[r]
        var = variables.get(key)
        if var is None:
            variables[key] = Variable(key, value.dtype, tuple(value.shape), op)
        elif (var.dtype, var.shape) != (value.dtype, tuple(value.shape)):
            what = "reads" if op.op == "READ_VARIABLE" else "assigns"
            raise _fail(op, f"{what} variable '{var.name}' as {value.dtype} {list(value.shape)}, but operator "
                            f"#{var.first.index} {var.first.op} uses it as {var.dtype} {list(var.shape)}; a variable "
                            "keeps one type and shape (static shapes)")
    g.variables = variables
    g.resource_handles = {t: k for t, k in handles.items() if k in variables}
