"""C for what lives across calls and for control flow (docs/state.md).

- The state region: its initialisation (``<prefix>_state_init``: zeros, int8 variable tensors at
  their zero point, CALL_ONCE flags cleared) and the public reset functions.
- CALL_ONCE, IF and WHILE (ops/control.py validates them): the code that copies tensors into and
  out of a called subgraph's frame and calls the subgraph's function. A callee's frame is the
  calling operator's scratch in the caller's workspace (planner.plan_model), so nested calls never
  overlap a live buffer.
"""

from __future__ import annotations

from collections.abc import Callable

from ..graph import Graph, Operator
from ..planner import MemoryPlan, StateLayout
from .cnames import c_comment
from .constants import ConstantPool

#: Operators rendered here (no operator function of their own).
CONTROL_OPS = ("CALL_ONCE", "IF", "WHILE")


def subgraph_function(prefix: str, k: int) -> str:
    return f"{prefix}_subgraph{k}"


def state_layout_comment(g: Graph, state: StateLayout) -> list[str]:
    lines = [f"/* The state region ({state.bytes} bytes), kept across runs:"]
    for e in state.entries:
        what = {"tensor": "variable tensor", "variable": "resource variable", "once": "flag of"}[e.kind]
        shape = f" {e.dtype} {list(e.shape)}" if e.kind != "once" else ""
        lines.append(f" *   [{e.offset}, +{e.size}) {what} '{c_comment(e.name, 60)}'{shape}")
    lines.append(" */")
    return lines


def state_init_function(prefix: str, state: StateLayout) -> list[str]:
    """``static void <prefix>_state_init(uint8_t* state)``: the state's initial value, as TFLite's
    ResetVariableTensors (int8 variable tensors at their zero point, others 0), resource variables
    zeroed as TFLM allocates them, CALL_ONCE flags cleared (the init subgraphs run again)."""
    lines = [f"static void {prefix}_state_init(uint8_t* state) {{",
             f"  (void)memset(state, 0, {state.bytes}u);"]
    for e in state.entries:
        if e.fill:
            lines.append(f"  (void)memset(&state[{e.offset}], {e.fill}, {e.size}u);  "
                         f"/* zero point of '{c_comment(e.name, 50)}' */")
    lines += ["}", ""]
    return lines


class ControlEmitter:
    """Writes the C of one control-flow operator inside a subgraph's function."""

    def __init__(self, g: Graph, plans: dict[int, MemoryPlan], prefix: str, pool: ConstantPool) -> None:
        self.g, self.plans, self.prefix, self.pool = g, plans, prefix, pool

    def tensor_expr(self, t: int, plan: MemoryPlan, frame: str, names: dict[int, str]) -> str:
        """A C pointer expression of tensor ``t``: the caller's (``names``) or, inside a callee's
        ``frame``, from the callee's ``plan``."""
        if t in names:
            return names[t]
        tensor = self.g.tensors[t]
        if tensor.is_const:
            return self.pool.add(tensor.name, tensor.data, tensor.ctype,
                                 f"tensor #{tensor.index} '{tensor.name}' {tensor.dtype} {list(tensor.shape)}")
        loc = plan.locations[t]
        if loc.kind == "workspace":
            return f"&{frame}[{loc.index}]"
        if loc.kind == "state":
            return f"&model_state[{loc.index}]"
        raise AssertionError(f"tensor {t} of a called subgraph is {loc.kind}")

    def _copies(self, pairs: list[tuple[str, str, int]], indent: str) -> list[str]:
        # void pointers on both sides: the tensors' element types differ (MISRA C 21.15)
        return [f"{indent}(void)memcpy((void*){dst}, (const void*){src}, {n}u);" for dst, src, n in pairs]

    def render(self, op: Operator, plan: MemoryPlan, position: int, names: dict[int, str]) -> list[str]:
        frame = f"&workspace[{plan.scratch[position]}]" if position in plan.scratch else "NULL"
        caller = self._caller_expr(names)
        if op.op == "CALL_ONCE":
            k = int(op.options["init_subgraph_index"])
            flag = plan.state.once[op.index]
            return [f"/* CALL_ONCE #{op.index}: subgraph {k}, on the first run after a reset */",
                    f"if (model_state[{flag}] == 0u) {{",
                    f"  model_state[{flag}] = 1u;",
                    f"  {subgraph_function(self.prefix, k)}({frame}, model_state);",
                    "}"]
        lines = [f"{{  /* {op.op} #{op.index} */", f"  uint8_t* frame = {frame};"]
        if op.op == "IF":
            cond = caller(op.inputs[0])
            lines.append(f"  if (((const uint8_t*)({cond}))[0] != 0u) {{")
            lines += self._branch(op, int(op.options["then_subgraph_index"]), names, "    ")
            lines.append("  } else {")
            lines += self._branch(op, int(op.options["else_subgraph_index"]), names, "    ")
            lines.append("  }")
        else:
            lines += self._while(op, names)
        lines.append("}")
        return lines

    def _caller_expr(self, names: dict[int, str]) -> Callable[[int], str]:
        empty = MemoryPlan(locations={}, scratch={}, workspace_bytes=0, lower_bound_bytes=0)
        return lambda t: self.tensor_expr(t, empty, "workspace", names)

    def _callee(self, k: int) -> tuple[Graph, MemoryPlan, Callable[[int], str]]:
        sg, plan = self.g.subgraph(k), self.plans[k]
        return sg, plan, lambda t: self.tensor_expr(t, plan, "frame", {})

    def _branch(self, op: Operator, k: int, names: dict[int, str], indent: str) -> list[str]:
        caller = self._caller_expr(names)
        sg, _, callee = self._callee(k)
        size = [self.g.tensors[t].nbytes for t in sg.inputs]
        lines = self._copies([(callee(b), caller(a), n) for a, b, n in zip(op.inputs[1:], sg.inputs, size)], indent)
        lines.append(f"{indent}{subgraph_function(self.prefix, k)}(frame, model_state);")
        size = [self.g.tensors[t].nbytes for t in op.outputs]
        lines += self._copies([(caller(a), callee(b), n) for a, b, n in zip(op.outputs, sg.outputs, size)], indent)
        return lines

    def _while(self, op: Operator, names: dict[int, str]) -> list[str]:
        """The loop variables live in the operator's outputs (the caller's buffers) between the
        calls, so the cond and body frames may share the same memory."""
        caller = self._caller_expr(names)
        kc, kb = int(op.options["cond_subgraph_index"]), int(op.options["body_subgraph_index"])
        cond_g, _, cond = self._callee(kc)
        body_g, _, body = self._callee(kb)
        size = [self.g.tensors[t].nbytes for t in op.outputs]
        lines = [f"  uint8_t more = 1u;  /* cond subgraph {kc}, body subgraph {kb}; ends when the model's "
                 "condition is false */"]
        lines += self._copies([(caller(o), caller(i), n) for i, o, n in zip(op.inputs, op.outputs, size)], "  ")
        lines.append("  while (more != 0u) {")
        lines += self._copies([(cond(c), caller(o), n) for o, c, n in zip(op.outputs, cond_g.inputs, size)], "    ")
        lines.append(f"    {subgraph_function(self.prefix, kc)}(frame, model_state);")
        lines.append(f"    more = (((const uint8_t*)({cond(cond_g.outputs[0])}))[0] != 0u) ? 1u : 0u;")
        lines.append("    if (more != 0u) {")
        lines += self._copies([(body(b), caller(o), n) for o, b, n in zip(op.outputs, body_g.inputs, size)],
                              "      ")
        lines.append(f"      {subgraph_function(self.prefix, kb)}(frame, model_state);")
        lines += self._copies([(caller(o), body(b), n) for o, b, n in zip(op.outputs, body_g.outputs, size)],
                              "      ")
        lines += ["    }", "  }"]
        return lines
