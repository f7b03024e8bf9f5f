"""The in-memory model: tensors, operators, inputs and outputs.

A model with several subgraphs (control flow: IF, WHILE, CALL_ONCE) is one :class:`Graph` per
subgraph; they share one tensor list (tensor indices are model-wide: subgraph 0's tensors keep
their TFLite numbers, the others' follow) and one alias table, and ``graphs`` lists them all by
TFLite subgraph number. Operator indices are model-wide too (subgraph 0 first).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

# C type of each supported tensor element type.
C_TYPES = {
    "int8": "int8_t", "uint8": "uint8_t", "int16": "int16_t", "int32": "int32_t",
    "int64": "int64_t", "float32": "float", "bool": "uint8_t", "resource": "uint8_t",
    "uint32": "uint32_t", "uint64": "uint64_t",
}
#: "resource": a handle to a resource variable (VAR_HANDLE's output); it has no storage of its own,
#: it stands for the variable's place in the state region (planner.plan_state).
ITEM_SIZE = {"int8": 1, "uint8": 1, "int16": 2, "int32": 4, "int64": 8, "float32": 4, "bool": 1, "resource": 0,
             "uint32": 4, "uint64": 8}


@dataclass
class Quant:
    """Affine quantization: real = scale * (q - zero_point), per tensor or per channel."""

    scale: np.ndarray
    zero_point: np.ndarray
    axis: int = 0

    @property
    def per_channel(self) -> bool:
        return len(self.scale) > 1

    @property
    def s(self) -> float:
        """The per-tensor scale (only for per-tensor quantization)."""
        return float(self.scale[0])

    @property
    def zp(self) -> int:
        """The per-tensor zero point."""
        return int(self.zero_point[0])


@dataclass
class Tensor:
    index: int
    name: str
    dtype: str
    shape: tuple[int, ...]
    data: np.ndarray | None = None
    quant: Quant | None = None
    is_variable: bool = False
    #: ``shape_signature`` when it has -1s (a dynamic dimension), else None
    shape_signature: tuple[int, ...] | None = None
    #: True while ``shape`` is the converter's placeholder for a dynamic shape (passes/shapes.py)
    dynamic: bool = False

    @property
    def is_const(self) -> bool:
        return self.data is not None and not self.is_variable

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def nbytes(self) -> int:
        return self.size * ITEM_SIZE[self.dtype]

    @property
    def ctype(self) -> str:
        return C_TYPES[self.dtype]


@dataclass
class Operator:
    index: int
    op: str
    inputs: list[int]
    outputs: list[int]
    options: dict[str, Any] = field(default_factory=dict)
    version: int = 1
    intermediates: list[int] = field(default_factory=list)
    #: The TFLite subgraph the operator belongs to.
    subgraph: int = 0


@dataclass
class Graph:
    tensors: list[Tensor]
    operators: list[Operator]
    inputs: list[int]
    outputs: list[int]
    description: str = ""
    #: tensor -> tensor whose storage it shares (RESHAPE/SQUEEZE outputs; set by passes.aliases)
    aliases: dict[int, int] = field(default_factory=dict)
    #: tensor -> byte offset inside the tensor it aliases (a *view*: a stripe of rows of a larger
    #: tensor, set by passes.patches; absent = 0, as for RESHAPE aliases)
    view_offsets: dict[int, int] = field(default_factory=dict)
    #: Every subgraph of the model by TFLite number (``graphs[0]`` is the main one); empty for a
    #: graph built by hand, which is then the model's only subgraph.
    graphs: list[Graph] = field(default_factory=list, repr=False)
    #: This graph's TFLite subgraph number and name.
    index: int = 0
    name: str = ""
    #: Resource variables (passes/variables.py): key -> Variable, and VAR_HANDLE output -> key.
    variables: dict = field(default_factory=dict, repr=False)
    resource_handles: dict[int, tuple[str, str]] = field(default_factory=dict, repr=False)

    def subgraph(self, k: int) -> Graph:
        """TFLite subgraph ``k`` of the model this graph belongs to."""
        return (self.graphs or [self])[k]

    @property
    def all_graphs(self) -> list[Graph]:
        return list(self.graphs or [self])

    def all_operators(self) -> list[Operator]:
        """The operators of every subgraph (subgraph 0 first)."""
        return [op for sg in self.all_graphs for op in sg.operators]

    def storage_root(self, tensor: int) -> int:
        """The tensor that owns the storage of ``tensor`` (itself unless aliased)."""
        seen = 0
        while tensor in self.aliases:
            tensor = self.aliases[tensor]
            seen += 1
            if seen > len(self.tensors):
                raise RuntimeError("alias cycle")
        return tensor

    def storage_offset(self, tensor: int) -> int:
        """Byte offset of ``tensor`` inside its storage root's buffer (0 unless it is a view)."""
        offset = 0
        seen = 0
        while tensor in self.aliases:
            offset += self.view_offsets.get(tensor, 0)
            tensor = self.aliases[tensor]
            seen += 1
            if seen > len(self.tensors):
                raise RuntimeError("alias cycle")
        return offset

    def producer(self, tensor: int) -> Operator | None:
        for op in self.operators:
            if tensor in op.outputs:
                return op
        return None

    def consumers(self, tensor: int) -> list[Operator]:
        return [op for op in self.operators if tensor in op.inputs]

    def input_tensor(self, op: Operator, k: int) -> Tensor | None:
        """The k-th input tensor of ``op``, or None when it is absent (optional input)."""
        if k >= len(op.inputs) or op.inputs[k] < 0:
            return None
        return self.tensors[op.inputs[k]]
