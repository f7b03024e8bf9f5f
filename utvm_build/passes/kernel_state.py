"""Kernel state: persistent buffers that an operator's kernel keeps across invocations.

TFLM kernels such as the signal library's spectral subtraction keep data between invocations in
persistent arena buffers (reset by the interpreter's ``Reset``). A handler that needs such a
buffer declares it with ``state_tensors(op, g) -> [(name, dtype, shape), ...]``; this pass adds a
variable tensor for each (zero-initialised, as variable tensors are) and appends it to the
operator's inputs, so the planner puts it in the state region (docs/state.md), ``reset`` restores
it and several instances each have their own. The handler reads it as ``In(k)`` after its model
inputs.
"""

from __future__ import annotations

from ..errors import one_line
from ..graph import Graph, Tensor
from ..ops import handler_for


def add_kernel_state(g: Graph) -> None:
    """Add the state tensors every operator's handler asks for (idempotent per model load)."""
    for sg in g.all_graphs:
        for op in sg.operators:
            handler = handler_for(op.op)
            request = getattr(handler, "state_tensors", None)
            if request is None:
                continue
            for name, dtype, shape in request(op, sg):
                index = len(g.tensors)
                g.tensors.append(Tensor(index=index, name=one_line(f"{op.op} #{op.index} {name}"), dtype=dtype,
                                        shape=tuple(shape), is_variable=True))
                op.inputs.append(index)
