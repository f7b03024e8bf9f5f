"""Read a .tflite flatbuffer into a :class:`Graph`, validating every index and size."""

from __future__ import annotations

import numpy as np

from ..errors import ModelFormatError, UnsupportedError, one_line
from ..graph import ITEM_SIZE, Graph, Operator, Quant, Tensor
from . import schema
from .flatbuf import Table, root_table
from .flexbuffers import read_map

_MAX_RANK = 8
#: Far beyond any microcontroller model; keeps the planner's first-fit placement (quadratic) and
#: the passes fast on hostile files.
MAX_OPERATORS = 4096
MAX_TENSORS = 16384
MAX_SUBGRAPHS = 256
_MAX_NAME = 1024
#: Custom operators whose custom_options are a FlexBuffers map, read into ``Operator.options``
#: (custom operators come out named ``CUSTOM(<custom_code>)``; their handlers register that name).
FLEXBUFFER_OPTIONS = ("TFLite_Detection_PostProcess",
                      # TFLM's signal library (signal/micro/kernels/*.cc), ops/signal.py
                      "SignalWindow", "SignalFftAutoScale", "SignalRfft", "SignalIrfft", "SignalEnergy",
                      "SignalFilterBank", "SignalFilterBankSquareRoot", "SignalFilterBankSpectralSubtraction",
                      "SignalFilterBankLog", "SignalPCAN", "SignalFramer", "SignalOverlapAdd", "SignalStacker",
                      "SignalDelay")


def read_tflite(data: bytes) -> Graph:
    """Parse and validate a TFLite model; raise ModelFormatError or UnsupportedError."""
    if len(data) < 8 or data[4:8] != b"TFL3":
        raise ModelFormatError("not a TensorFlow Lite model (the file has no 'TFL3' identifier)")
    model = root_table(data, "model")
    version = model.scalar(0, "uint32")
    if version != 3:
        raise UnsupportedError(f"TFLite schema version {version} is not supported (expected 3)")
    subgraphs = model.table_vector(2, "subgraphs")
    if not subgraphs:
        raise ModelFormatError("the model has no subgraph")
    if len(subgraphs) > MAX_SUBGRAPHS:
        raise UnsupportedError(f"the model has {len(subgraphs)} subgraphs; at most {MAX_SUBGRAPHS} are supported")
    buffers = model.table_vector(4, "buffers")
    opcodes = [_read_opcode(t, i) for i, t in enumerate(model.table_vector(1, "operator_codes"))]
    tables = [(sg.table_vector(0, "tensors"), sg.table_vector(3, "operators")) for sg in subgraphs]
    n_tensors, n_ops = sum(len(t) for t, _ in tables), sum(len(o) for _, o in tables)
    if n_tensors > MAX_TENSORS or n_ops > MAX_OPERATORS:
        raise UnsupportedError(f"the model has {n_tensors} tensors and {n_ops} operators; at "
                               f"most {MAX_TENSORS} and {MAX_OPERATORS} are supported")
    # One tensor list and one operator numbering for the whole model: subgraph 0 keeps its TFLite
    # numbers, the other subgraphs' follow (graph.py).
    tensors: list[Tensor] = []
    graphs: list[Graph] = []
    aliases: dict[int, int] = {}
    description = model.string(3, "description") or ""
    op_base = 0
    for k, (sg, (tensor_tables, op_tables)) in enumerate(zip(subgraphs, tables)):
        base = len(tensors)
        where = "" if k == 0 else f" of subgraph {k}"
        tensors += [_read_tensor(t, base + i, buffers, data) for i, t in enumerate(tensor_tables)]
        n = len(tensor_tables)
        inputs = [base + i for i in _indices(sg.scalar_vector(1, "int32", "subgraph inputs"), n,
                                             f"subgraph inputs{where}")]
        outputs = [base + i for i in _indices(sg.scalar_vector(2, "int32", "subgraph outputs"), n,
                                              f"subgraph outputs{where}")]
        operators = [_read_operator(t, op_base + i, opcodes, n, base, k, data) for i, t in enumerate(op_tables)]
        _check_zero_sized(tensors[base:], operators, {*inputs, *outputs})
        op_base += len(op_tables)
        name = one_line(sg.string(4, "subgraph name") or "")[:_MAX_NAME]
        graphs.append(Graph(tensors=tensors, operators=operators, inputs=inputs, outputs=outputs,
                            description=description, aliases=aliases, graphs=graphs, index=k, name=name))
    main = graphs[0]
    if not main.inputs or not main.outputs:
        raise ModelFormatError("the model declares no inputs or no outputs")
    # inputs of the other subgraphs take their shapes from the caller's operands
    _check_static_inputs(tensors, main.inputs, [i for sg in graphs[1:] for i in sg.inputs])
    if len(graphs) == 1:
        main.graphs = []   # a single-subgraph model, as before
    return main


#: Operators whose intermediate tensors carry only quantization parameters (their shape may be [0]).
_QUANT_ONLY_INTERMEDIATES = ("UNIDIRECTIONAL_SEQUENCE_LSTM", "LSTM", "BIDIRECTIONAL_SEQUENCE_LSTM")


def _check_zero_sized(tensors: list[Tensor], operators: list[Operator], io: set[int]) -> None:
    """Reject tensors with a zero-sized dimension, except the intermediates of the LSTM operators
    (used by nothing else: they only carry the scales of the integer LSTM's internal values).
    The error names the operator that uses the tensor, if any."""
    zero = [t for t in tensors if any(d == 0 for d in t.shape)]
    if not zero:
        return
    quant_only = {i for op in operators if op.op in _QUANT_ONLY_INTERMEDIATES for i in op.intermediates}
    for t in zero:
        users = [op for op in operators if t.index in op.inputs or t.index in op.outputs
                 or (t.index in op.intermediates and op.op not in _QUANT_ONLY_INTERMEDIATES)]
        message = f"tensor #{t.index} '{t.name}' has a zero-sized dimension {list(t.shape)}"
        if users:
            raise UnsupportedError(message, op_index=users[0].index, op_name=users[0].op)
        if t.index not in quant_only or t.index in io:
            raise UnsupportedError(message)


def _indices(values: np.ndarray | None, n: int, what: str, allow_absent: bool = False) -> list[int]:
    out: list[int] = []
    for v in (values if values is not None else []):
        v = int(v)
        if allow_absent and v == -1:
            out.append(-1)
        elif not 0 <= v < n:
            raise ModelFormatError(f"corrupted model: {what} refers to tensor {v}, but there are {n}")
        else:
            out.append(v)
    return out


def _read_opcode(t: Table, i: int) -> tuple[str, int, str | None]:
    deprecated = int(t.scalar(0, "int8"))
    code = int(t.scalar(3, "int32"))
    code = max(code, deprecated)
    custom = one_line(t.string(1, "custom_code") or "") if code == 32 else None
    return schema.operator_name(code), int(t.scalar(2, "int32", 1)), custom


def _check_static_inputs(tensors: list[Tensor], inputs: list[int], callee_inputs: list[int]) -> None:
    """A model input may be dynamic only in its batch dimension (run as batch 1, as TFLM does).

    Every other tensor with a dynamic ``shape_signature`` is marked ``dynamic``: its stored shape
    is the converter's placeholder, recomputed from the static inputs by ``passes/shapes.py``.
    """
    for t in tensors:
        t.dynamic = t.shape_signature is not None and not t.is_const
    for i in callee_inputs:
        tensors[i].dynamic = False
    for i in inputs:
        t = tensors[i]
        sig, shape = t.shape_signature, t.shape
        if sig is not None and any(s < 0 and (k > 0 or k >= len(shape) or shape[k] != 1) for k, s in enumerate(sig)):
            raise UnsupportedError(f"input tensor #{i} '{t.name}' has a dynamic shape {list(sig)}; utvm-build needs "
                                   "static input shapes (convert the model with fixed input sizes, e.g. batch 1)")
        t.dynamic = False


def _read_tensor(t: Table, i: int, buffers: list[Table], data: bytes) -> Tensor:
    name = one_line(t.string(3, "tensor name") or f"tensor_{i}")
    if len(name) > _MAX_NAME:   # a corrupted length; real names (even fused ones) are far shorter
        name = name[:_MAX_NAME] + "..."
    type_code = int(t.scalar(1, "int8"))
    dtype = schema.TENSOR_TYPES.get(type_code, f"type {type_code}")
    if dtype not in ITEM_SIZE:
        raise UnsupportedError(f"tensor #{i} '{name}' has element type {dtype}; supported: "
                               + ", ".join(sorted(ITEM_SIZE)))
    shape_arr = t.scalar_vector(0, "int32", "tensor shape")
    shape = tuple(int(d) for d in (shape_arr if shape_arr is not None else []))
    signature = t.scalar_vector(7, "int32", "tensor shape_signature")
    if len(shape) > _MAX_RANK:
        raise UnsupportedError(f"tensor #{i} '{name}' has rank {len(shape)}; at most {_MAX_RANK}")
    if any(d < 0 for d in shape):
        raise UnsupportedError(f"tensor #{i} '{name}' has a dynamic shape {list(shape)}; utvm-build needs static "
                               "shapes (convert the model with fixed input sizes, e.g. batch 1)")
    # A zero-sized dimension is accepted here only to be checked once the operators are known
    # (_check_zero_sized): the quantization-only intermediates of an LSTM have shape [0].
    if t.has(6):
        raise UnsupportedError(f"tensor #{i} '{name}' is sparse; sparse tensors are not supported")
    tensor = Tensor(index=i, name=name, dtype=dtype, shape=shape,
                    is_variable=bool(t.scalar(5, "bool", False)))
    if signature is not None and any(int(s) < 0 for s in signature):
        tensor.shape_signature = tuple(int(s) for s in signature)
    if tensor.nbytes > (1 << 31):
        raise UnsupportedError(f"tensor #{i} '{name}' is {tensor.nbytes} bytes; too large")
    buf_index = int(t.scalar(2, "uint32"))
    if buf_index >= len(buffers):
        raise ModelFormatError(f"corrupted model: tensor #{i} '{name}' refers to buffer {buf_index}, "
                               f"but there are {len(buffers)}")
    raw = _buffer_bytes(buffers[buf_index], buf_index, data)
    if raw:
        if len(raw) != tensor.nbytes:
            raise ModelFormatError(f"corrupted model: tensor #{i} '{name}' {list(shape)} {dtype} needs "
                                   f"{tensor.nbytes} bytes but its buffer has {len(raw)}")
        tensor.data = np.frombuffer(raw, dtype=np.dtype(dtype).newbyteorder("<")).astype(dtype).reshape(shape)
    q = t.table(4, "quantization")
    if q is not None:
        tensor.quant = _read_quant(q, tensor)
    return tensor


def _buffer_bytes(b: Table, index: int, data: bytes) -> bytes:
    raw = b.bytes_vector(0, f"buffer {index}")
    if raw:
        return raw
    offset, size = int(b.scalar(1, "uint64")), int(b.scalar(2, "uint64"))
    if offset > 1 and size > 0:
        if offset + size > len(data):
            raise ModelFormatError(f"truncated model: buffer {index} lies outside the file")
        return data[offset:offset + size]
    return b""


def _read_quant(q: Table, tensor: Tensor) -> Quant | None:
    scale = q.scalar_vector(2, "float32", "quantization scale")
    zp = q.scalar_vector(3, "int64", "quantization zero_point")
    if scale is None or len(scale) == 0:
        return None
    axis = int(q.scalar(6, "int32"))
    where = f"tensor #{tensor.index} '{tensor.name}'"
    if zp is None or len(zp) != len(scale):
        raise ModelFormatError(f"corrupted model: {where} has {len(scale)} scales but "
                               f"{0 if zp is None else len(zp)} zero points")
    # A per-channel quantized_dimension that does not fit the shape is kept as it is: TFLite Micro
    # reads it without a check (its own person_detect declares rank-1 biases with dimension 3) and
    # only the operators that apply per-channel parameters check them (docs/operators/nn.md).
    if not np.all(np.isfinite(scale)) or np.any(scale <= 0):
        raise ModelFormatError(f"corrupted model: {where} has a non-positive or non-finite scale")
    return Quant(scale=scale.astype(np.float64), zero_point=zp.astype(np.int64), axis=axis)


def _read_operator(t: Table, i: int, opcodes: list[tuple[str, int, str | None]], n: int, base: int = 0,
                   subgraph: int = 0, data: bytes = b"") -> Operator:
    """Operator ``i`` (model-wide number) of a subgraph whose ``n`` tensors start at ``base``."""
    idx = int(t.scalar(0, "uint32"))
    if idx >= len(opcodes):
        raise ModelFormatError(f"corrupted model: operator #{i} uses opcode {idx}, but there are "
                               f"{len(opcodes)}")
    name, version, custom = opcodes[idx]
    if custom is not None:
        name = f"CUSTOM({custom})"

    def shift(values: list[int]) -> list[int]:
        return [v + base if v >= 0 else v for v in values]

    inputs = shift(_indices(t.scalar_vector(1, "int32", "operator inputs"), n, f"operator #{i} inputs", True))
    outputs = shift(_indices(t.scalar_vector(2, "int32", "operator outputs"), n, f"operator #{i} outputs"))
    inter = shift(_indices(t.scalar_vector(8, "int32", "operator intermediates"), n,
                           f"operator #{i} intermediates"))
    options = _read_options(t, i, name)
    if custom in FLEXBUFFER_OPTIONS:
        options = _read_custom_options(t, i, name, data)
    if name == "VAR_HANDLE":   # its options are strings: the variable's identity
        kind = schema.OPTION_TABLES.get(int(t.scalar(3, "uint8")), ("",))[0]
        table = t.table(4, f"operator #{i} VarHandleOptions") if kind == "VarHandleOptions" else None
        for fname, slot in (("container", 0), ("shared_name", 1)):
            text = table.string(slot, f"operator #{i} {fname}") if table is not None else None
            options[fname] = one_line(text or "")[:_MAX_NAME]
    return Operator(index=i, op=name, inputs=inputs, outputs=outputs, options=options, version=version,
                    intermediates=inter, subgraph=subgraph)


def _read_custom_options(t: Table, i: int, op_name: str, data: bytes) -> dict:
    """The FlexBuffers map in an operator's custom_options (or large_custom_options) as a dict."""
    raw = t.bytes_vector(5, f"operator #{i} custom_options")
    offset, size = int(t.scalar(9, "uint64")), int(t.scalar(10, "uint64"))
    if not raw and offset > 1 and size > 0:
        if offset + size > len(data):
            raise ModelFormatError(f"truncated model: operator #{i} {op_name} custom options lie outside the file")
        raw = data[offset:offset + size]
    if int(t.scalar(6, "int8")) != 0:
        raise ModelFormatError(f"corrupted model: operator #{i} {op_name} custom options are not FlexBuffers")
    return read_map(raw or b"", f"operator #{i} {op_name} custom options")


def _read_options(t: Table, i: int, op_name: str) -> dict:
    kind = int(t.scalar(3, "uint8"))
    if kind == 0:
        return {}
    spec = schema.OPTION_TABLES.get(kind)
    if spec is None:
        return {"_options_type": kind}
    table_name, fields = spec
    table = t.table(4, f"operator #{i} {table_name}")
    out: dict = {}
    for fname, slot, kind_name, default, enum in fields:
        if kind_name.endswith("[]"):
            vec = table.scalar_vector(slot, kind_name[:-2], fname) if table is not None else None
            out[fname] = None if vec is None else vec.tolist()
            continue
        value = table.scalar(slot, kind_name, default) if table is not None else default
        if enum is not None:
            if not 0 <= int(value) < len(enum):
                raise ModelFormatError(f"corrupted model: operator #{i} {op_name} has {fname} = {value}")
            value = enum[int(value)]
        out[fname] = value
    return out
