"""The model's inputs and outputs as its C API names them (used by the model files and the
packed-function wrappers alike, so it sits below both)."""

from __future__ import annotations

from dataclasses import dataclass

from ..graph import Graph, Tensor
from .cnames import c_identifier


@dataclass
class Port:
    """A model input or output as the C API shows it."""

    tensor: Tensor
    c_name: str

    def metadata(self) -> dict:
        t = self.tensor
        q = t.quant
        return {
            "name": t.name, "c_name": self.c_name, "dtype": t.dtype, "shape": list(t.shape),
            "scale": None if q is None else float(q.scale[0]),
            "zero_point": None if q is None else int(q.zero_point[0]),
            "bytes": t.nbytes,
        }


def ports(g: Graph) -> tuple[list[Port], list[Port]]:
    """The C names of the inputs and outputs: from the tensor names, unique, and never the
    positional name (``input_<k>``, ``output_<k>``) of another port, which the header's positional
    macros (``TVMGEN_<NAME>_INPUT_<k>_SIZE``) use."""
    positional = [f"input_{k}" for k in range(len(g.inputs))] + [f"output_{k}" for k in range(len(g.outputs))]
    used = {"workspace", "global_workspace"} | set(positional)
    names = []
    for k, t in enumerate(list(g.inputs) + list(g.outputs)):
        own = positional[k]
        natural = c_identifier(g.tensors[t].name, None, own.split("_")[0])
        if natural == own:
            names.append(own)
        else:
            names.append(c_identifier(g.tensors[t].name, used, own.split("_")[0]))
    ins = [Port(g.tensors[t], n) for t, n in zip(g.inputs, names)]
    outs = [Port(g.tensors[t], n) for t, n in zip(g.outputs, names[len(g.inputs):])]
    return ins, outs
