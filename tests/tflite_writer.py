"""Small TFLite model writer for tests (schema.fbs version 3).

Tables are written with the FlatBuffers builder functions generated from TFLite's
schema (the ``tflite`` PyPI package), so field slots always match the schema.
Option tables are filled generically from snake_case field names; enum fields
accept their schema names as strings ("SAME", "RELU6", ...).

Example::

    mb = ModelBuilder()
    x = mb.tensor([1, 8], "float32")
    y = mb.tensor([1, 8], "float32")
    mb.operator("RELU", [x], [y])
    model = mb.build(inputs=[x], outputs=[y])
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import flatbuffers
import numpy as np
from tflite.ActivationFunctionType import ActivationFunctionType
from tflite.BuiltinOperator import BuiltinOperator
from tflite.BuiltinOptions import BuiltinOptions
from tflite.CombinerType import CombinerType
from tflite.FullyConnectedOptionsWeightsFormat import FullyConnectedOptionsWeightsFormat
from tflite.LSHProjectionType import LSHProjectionType
from tflite.LSTMKernelType import LSTMKernelType
from tflite.MirrorPadMode import MirrorPadMode
from tflite.Padding import Padding
from tflite.TensorType import TensorType

__all__ = [
    "DTYPES",
    "ModelBuilder",
    "TensorSpec",
    "operator_version",
    "single_op_model",
]

SCHEMA_VERSION = 3
FILE_IDENTIFIER = b"TFL3"
PLACEHOLDER_FOR_GREATER_OP_CODES = 127
_BUFFER_ALIGNMENT = 16

#: dtype name -> (TensorType value, numpy dtype)
DTYPES: dict[str, tuple[int, np.dtype]] = {
    "int8": (TensorType.INT8, np.dtype(np.int8)),
    "uint8": (TensorType.UINT8, np.dtype(np.uint8)),
    "int16": (TensorType.INT16, np.dtype(np.int16)),
    "int32": (TensorType.INT32, np.dtype(np.int32)),
    "int64": (TensorType.INT64, np.dtype(np.int64)),
    "float32": (TensorType.FLOAT32, np.dtype(np.float32)),
    "bool": (TensorType.BOOL, np.dtype(np.bool_)),
    "resource": (TensorType.RESOURCE, np.dtype(np.uint8)),   # VAR_HANDLE's output (no data)
    "uint32": (TensorType.UINT32, np.dtype(np.uint32)),       # TFLM's signal library
    "uint64": (TensorType.UINT64, np.dtype(np.uint64)),
}


def _enum_members(cls: type) -> dict[str, int]:
    return {k: v for k, v in vars(cls).items() if not k.startswith("_") and isinstance(v, int)}


_BUILTIN_CODES: dict[str, int] = _enum_members(BuiltinOperator)
_OPTIONS_TYPES: dict[str, int] = _enum_members(BuiltinOptions)
_OPTIONS_BY_KEY: dict[str, str] = {name.lower(): name for name in _OPTIONS_TYPES if name != "NONE"}

#: option fields holding enums: field name -> enum class of the schema
_ENUM_FIELDS: dict[str, type] = {
    "padding": Padding,
    "fused_activation_function": ActivationFunctionType,
    "weights_format": FullyConnectedOptionsWeightsFormat,
    "quantized_bias_type": TensorType,
    "mode": MirrorPadMode,
    "combiner": CombinerType,
    "kernel_type": LSTMKernelType,
    "type": LSHProjectionType,
    "out_type": TensorType,
    "output_type": TensorType,
    "idx_out_type": TensorType,
    "in_data_type": TensorType,
    "out_data_type": TensorType,
}
#: option vector fields whose elements are float32 (all others are int32)
_FLOAT_VECTOR_FIELDS = {"boundaries"}

#: operators whose option table name does not follow from the operator name
_OPTIONS_OVERRIDES: dict[str, str | None] = {
    "AVERAGE_POOL_2D": "Pool2DOptions",
    "MAX_POOL_2D": "Pool2DOptions",
    "L2_POOL_2D": "Pool2DOptions",
    "MEAN": "ReducerOptions",
    "SUM": "ReducerOptions",
    "REDUCE_MAX": "ReducerOptions",
    "REDUCE_MIN": "ReducerOptions",
    "REDUCE_PROD": "ReducerOptions",
    "REDUCE_ANY": "ReducerOptions",
    "REDUCE_ALL": "ReducerOptions",
    "MAXIMUM": "MaximumMinimumOptions",
    "MINIMUM": "MaximumMinimumOptions",
    "L2_NORMALIZATION": "L2NormOptions",
    "UNIDIRECTIONAL_SEQUENCE_RNN": "SequenceRNNOptions",
    "LOCAL_RESPONSE_NORMALIZATION": "LocalResponseNormalizationOptions",
    "RELU": None,
    "RELU6": None,
    "RELU_N1_TO_1": None,
    "RELU_0_TO_1": None,
    "LOGISTIC": None,
    "TANH": None,
    "PRELU": None,
}

#: defaults filled in when the caller omits a field (schema defaults would be unusable,
#: e.g. stride 0; ADD/SUB use the converter's general int16 scaling, not power-of-two)
_OPTION_DEFAULTS: dict[str, dict[str, Any]] = {
    "CONV_2D": {"stride_w": 1, "stride_h": 1},
    "DEPTHWISE_CONV_2D": {"stride_w": 1, "stride_h": 1},
    "TRANSPOSE_CONV": {"stride_w": 1, "stride_h": 1},
    "AVERAGE_POOL_2D": {"stride_w": 1, "stride_h": 1},
    "MAX_POOL_2D": {"stride_w": 1, "stride_h": 1},
    "L2_POOL_2D": {"stride_w": 1, "stride_h": 1},
    "SOFTMAX": {"beta": 1.0},
    "ADD": {"pot_scale_int16": False},
    "SUB": {"pot_scale_int16": False},
}


def options_table_name(op: str) -> str | None:
    """Name of the BuiltinOptions union member used by ``op`` (None: no options)."""
    if op in _OPTIONS_OVERRIDES:
        return _OPTIONS_OVERRIDES[op]
    return _OPTIONS_BY_KEY.get(op.replace("_", "").lower() + "options")


def _camel(field: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in field.split("_"))


def _options_module(table: str) -> ModuleType:
    return importlib.import_module(f"tflite.{table}")


# generated table modules (``tflite.X`` attributes are the reader classes, not the modules)
_Buffer = _options_module("Buffer")
_Model = _options_module("Model")
_Operator_ = _options_module("Operator")
_OperatorCode = _options_module("OperatorCode")
_Quant = _options_module("QuantizationParameters")
_SubGraph = _options_module("SubGraph")
_TensorT = _options_module("Tensor")


def _enum_value(field: str, value: Any) -> int:
    if isinstance(value, str):
        members = _enum_members(_ENUM_FIELDS[field])
        try:
            return members[value.upper()]
        except KeyError:
            raise ValueError(f"option {field!r}: unknown value {value!r}, expected one of {sorted(members)}") from None
    return int(value)


@dataclass
class _Tensor:
    shape: tuple[int, ...]
    dtype: str
    data: bytes | None
    scale: np.ndarray | None
    zero_point: np.ndarray | None
    quantized_dimension: int
    name: str
    shape_signature: tuple[int, ...] | None
    is_variable: bool


@dataclass
class _Operator:
    op: str
    inputs: list[int]
    outputs: list[int]
    options: dict[str, Any]
    version: int
    intermediates: list[int] | None
    #: a custom operator: its custom_code and raw custom_options (e.g. a flexbuffer map)
    custom_code: str | None = None
    custom_options: bytes | None = None


class ModelBuilder:
    """Collects tensors and operators of one subgraph and serializes a .tflite model."""

    def __init__(self, description: str = "utvm-build test model") -> None:
        self.description = description
        self.tensors: list[_Tensor] = []
        self.operators: list[_Operator] = []

    # ------------------------------------------------------------------ graph
    def tensor(
        self,
        shape: Sequence[int],
        dtype: str,
        *,
        data: np.ndarray | None = None,
        scale: float | Sequence[float] | None = None,
        zero_point: int | Sequence[int] | None = None,
        quantized_dimension: int = 0,
        name: str | None = None,
        shape_signature: Sequence[int] | None = None,
        is_variable: bool = False,
    ) -> int:
        """Add a tensor and return its index; ``data`` makes it a constant."""
        if dtype not in DTYPES:
            raise ValueError(f"unsupported dtype {dtype!r}, expected one of {sorted(DTYPES)}")
        shape_t = tuple(int(d) for d in shape)
        raw: bytes | None = None
        if data is not None:
            arr = np.asarray(data)
            if arr.size != int(np.prod(shape_t, dtype=np.int64)):
                raise ValueError(f"data has {arr.size} elements, shape {shape_t} needs {np.prod(shape_t)}")
            npdt = DTYPES[dtype][1]
            if arr.dtype != npdt:
                cast = arr.astype(npdt)
                if not np.array_equal(cast, arr):
                    raise ValueError(f"data of dtype {arr.dtype} does not fit {dtype} exactly")
                arr = cast
            raw = np.ascontiguousarray(arr, dtype=npdt.newbyteorder("<")).tobytes()
        scales: np.ndarray | None = None
        zps: np.ndarray | None = None
        if scale is not None or zero_point is not None:
            scales = np.atleast_1d(np.asarray(1.0 if scale is None else scale, dtype=np.float32))
            zps = np.atleast_1d(np.asarray(0 if zero_point is None else zero_point, dtype=np.int64))
            if len(zps) == 1 and len(scales) > 1:
                zps = np.repeat(zps, len(scales))
            if len(zps) != len(scales):
                raise ValueError(f"{len(scales)} scales but {len(zps)} zero points")
            if len(scales) > 1 and not 0 <= quantized_dimension < len(shape_t):
                raise ValueError(f"quantized_dimension {quantized_dimension} out of range for shape {shape_t}")
        index = len(self.tensors)
        self.tensors.append(
            _Tensor(
                shape=shape_t,
                dtype=dtype,
                data=raw,
                scale=scales,
                zero_point=zps,
                quantized_dimension=int(quantized_dimension),
                name=name if name is not None else f"t{index}",
                shape_signature=None if shape_signature is None else tuple(int(d) for d in shape_signature),
                is_variable=is_variable,
            )
        )
        return index

    def operator(
        self,
        op: str,
        inputs: Sequence[int],
        outputs: Sequence[int],
        options: dict | None = None,
        *,
        version: int | None = None,
        intermediates: Sequence[int] | None = None,
    ) -> int:
        """Add a builtin operator (``-1`` = absent optional input); returns its index.

        ``version=None`` picks the version TFLite's converter assigns (see ``operator_version``).
        """
        if op not in _BUILTIN_CODES:
            raise ValueError(f"unknown builtin operator {op!r}")
        for t in [*inputs, *outputs, *(intermediates or [])]:
            if not -1 <= t < len(self.tensors):
                raise ValueError(f"{op}: tensor index {t} out of range")
        table = options_table_name(op)
        opts = dict(_OPTION_DEFAULTS.get(op, {}))
        if op == "DEPTHWISE_CONV_2D" and len(inputs) >= 2 and inputs[0] >= 0 and inputs[1] >= 0:
            in_ch = self.tensors[inputs[0]].shape[-1]
            if in_ch:
                opts["depth_multiplier"] = self.tensors[inputs[1]].shape[-1] // in_ch
        opts.update(options or {})
        if table is None and options:
            raise ValueError(f"{op} takes no options, got {sorted(options)}")
        if table is not None:
            module = _options_module(table)
            for field in opts:
                if not hasattr(module, f"Add{_camel(field)}"):
                    valid = sorted(_fields_of(module))
                    raise ValueError(f"{op}: {table} has no field {field!r}; fields: {valid}")
                if field in _ENUM_FIELDS:
                    _enum_value(field, opts[field])  # raises on an unknown enum name
        if version is None:
            version = operator_version(op, [self._sig(t) for t in inputs], [self._sig(t) for t in outputs], opts)
        self.operators.append(
            _Operator(op, list(inputs), list(outputs), opts if table else {}, int(version),
                      None if intermediates is None else list(intermediates))
        )
        return len(self.operators) - 1

    def custom_operator(self, custom_code: str, inputs: Sequence[int], outputs: Sequence[int],
                        custom_options: bytes = b"", *, version: int = 1) -> int:
        """Add a custom operator (builtin code CUSTOM) with raw ``custom_options`` bytes (a
        flexbuffer for TFLite's own custom operators); returns its index."""
        for t in [*inputs, *outputs]:
            if not -1 <= t < len(self.tensors):
                raise ValueError(f"{custom_code}: tensor index {t} out of range")
        self.operators.append(_Operator("CUSTOM", list(inputs), list(outputs), {}, int(version), None,
                                        custom_code, bytes(custom_options)))
        return len(self.operators) - 1

    def _sig(self, t: int) -> _TensorSig | None:
        if t < 0:
            return None
        ten = self.tensors[t]
        return _TensorSig(ten.dtype, ten.shape, ten.scale is not None, ten.scale is not None and len(ten.scale) > 1)

    # -------------------------------------------------------------- serialize
    def build(self, inputs: Sequence[int], outputs: Sequence[int],
              subgraphs: Sequence[tuple[ModelBuilder, Sequence[int], Sequence[int]]] = ()) -> bytes:
        """Serialize the model with the given subgraph inputs and outputs. ``subgraphs``: further
        subgraphs (numbered 1, 2, ... in order: IF / WHILE / CALL_ONCE options name them), each a
        builder of its own tensors and operators with its inputs and outputs."""
        b = flatbuffers.Builder(1024)
        buffers: list[bytes | None] = [None]  # buffer 0: the empty sentinel
        graphs = [(self, list(inputs), list(outputs), "main")]
        graphs += [(sg, list(i), list(o), f"subgraph{k + 1}") for k, (sg, i, o) in enumerate(subgraphs)]
        tensor_buffers: list[list[int]] = []
        for sg, _, _, _ in graphs:
            tensor_buffer: list[int] = []
            for t in sg.tensors:
                if (t.is_variable and t.data is None) or t.dtype == "resource":
                    tensor_buffer.append(0)
                    continue
                tensor_buffer.append(len(buffers))
                buffers.append(t.data)
            tensor_buffers.append(tensor_buffer)

        # operator codes, one per (builtin, version)
        codes: dict[tuple[str, int, str | None], int] = {}
        for sg, _, _, _ in graphs:
            for o in sg.operators:
                codes.setdefault((o.op, o.version, o.custom_code), len(codes))

        buffer_offs = [self._write_buffer(b, data) for data in buffers]
        subgraph_offs = []
        for (sg, sg_in, sg_out, name), tensor_buffer in zip(graphs, tensor_buffers):
            tensor_offs = [self._write_tensor(b, t, tensor_buffer[i]) for i, t in enumerate(sg.tensors)]
            op_offs = [self._write_operator(b, o, codes[(o.op, o.version, o.custom_code)]) for o in sg.operators]
            sg_name = b.CreateString(name)
            sg_tensors = _vector_of_offsets(b, _SubGraph.StartTensorsVector, tensor_offs)
            sg_inputs = _int_vector(b, _SubGraph.StartInputsVector, sg_in)
            sg_outputs = _int_vector(b, _SubGraph.StartOutputsVector, sg_out)
            sg_ops = _vector_of_offsets(b, _SubGraph.StartOperatorsVector, op_offs)
            _SubGraph.Start(b)
            _SubGraph.AddTensors(b, sg_tensors)
            _SubGraph.AddInputs(b, sg_inputs)
            _SubGraph.AddOutputs(b, sg_outputs)
            _SubGraph.AddOperators(b, sg_ops)
            _SubGraph.AddName(b, sg_name)
            subgraph_offs.append(_SubGraph.End(b))
        code_offs = [self._write_opcode(b, op, version, custom) for (op, version, custom) in codes]

        m_codes = _vector_of_offsets(b, _Model.StartOperatorCodesVector, code_offs)
        m_subgraphs = _vector_of_offsets(b, _Model.StartSubgraphsVector, subgraph_offs)
        m_desc = b.CreateString(self.description)
        m_buffers = _vector_of_offsets(b, _Model.StartBuffersVector, buffer_offs)
        _Model.Start(b)
        _Model.AddVersion(b, SCHEMA_VERSION)
        _Model.AddOperatorCodes(b, m_codes)
        _Model.AddSubgraphs(b, m_subgraphs)
        _Model.AddDescription(b, m_desc)
        _Model.AddBuffers(b, m_buffers)
        model = _Model.End(b)
        b.Finish(model, file_identifier=FILE_IDENTIFIER)
        return bytes(b.Output())

    @staticmethod
    def _write_buffer(b: flatbuffers.Builder, data: bytes | None) -> int:
        vec = None
        if data:
            b.StartVector(1, len(data), _BUFFER_ALIGNMENT)
            b.head -= len(data)
            b.Bytes[b.head : b.head + len(data)] = data
            vec = b.EndVector()
        _Buffer.Start(b)
        if vec is not None:
            _Buffer.AddData(b, vec)
        return _Buffer.End(b)

    @staticmethod
    def _write_tensor(b: flatbuffers.Builder, t: _Tensor, buffer: int) -> int:
        quant = None
        if t.scale is not None and t.zero_point is not None:
            scale = b.CreateNumpyVector(t.scale.astype("<f4"))
            zp = b.CreateNumpyVector(t.zero_point.astype("<i8"))
            _Quant.Start(b)
            _Quant.AddScale(b, scale)
            _Quant.AddZeroPoint(b, zp)
            _Quant.AddQuantizedDimension(b, t.quantized_dimension)
            quant = _Quant.End(b)
        name = b.CreateString(t.name)
        shape = _int_vector(b, _TensorT.StartShapeVector, t.shape)
        sig = None if t.shape_signature is None else _int_vector(b, _TensorT.StartShapeSignatureVector,
                                                                  t.shape_signature)
        _TensorT.Start(b)
        _TensorT.AddShape(b, shape)
        _TensorT.AddType(b, DTYPES[t.dtype][0])
        _TensorT.AddBuffer(b, buffer)
        _TensorT.AddName(b, name)
        if quant is not None:
            _TensorT.AddQuantization(b, quant)
        if t.is_variable:
            _TensorT.AddIsVariable(b, True)
        if sig is not None:
            _TensorT.AddShapeSignature(b, sig)
        return _TensorT.End(b)

    @staticmethod
    def _write_opcode(b: flatbuffers.Builder, op: str, version: int, custom: str | None = None) -> int:
        code = _BUILTIN_CODES[op]
        custom_off = None if custom is None else b.CreateString(custom)
        _OperatorCode.Start(b)
        if custom_off is not None:
            _OperatorCode.AddCustomCode(b, custom_off)
        _OperatorCode.AddDeprecatedBuiltinCode(b, min(code, PLACEHOLDER_FOR_GREATER_OP_CODES))
        _OperatorCode.AddBuiltinCode(b, code)
        _OperatorCode.AddVersion(b, version)
        return _OperatorCode.End(b)

    @staticmethod
    def _write_operator(b: flatbuffers.Builder, o: _Operator, opcode_index: int) -> int:
        table = options_table_name(o.op)
        opts_off = _write_options(b, table, o.options) if table is not None else None
        ins = _int_vector(b, _Operator_.StartInputsVector, o.inputs)
        outs = _int_vector(b, _Operator_.StartOutputsVector, o.outputs)
        inter = None if o.intermediates is None else _int_vector(b, _Operator_.StartIntermediatesVector,
                                                                 o.intermediates)
        custom = None if o.custom_options is None else b.CreateByteVector(o.custom_options)
        _Operator_.Start(b)
        if custom is not None:
            _Operator_.AddCustomOptions(b, custom)
        _Operator_.AddOpcodeIndex(b, opcode_index)
        _Operator_.AddInputs(b, ins)
        _Operator_.AddOutputs(b, outs)
        if opts_off is not None and table is not None:
            _Operator_.AddBuiltinOptionsType(b, _OPTIONS_TYPES[table])
            _Operator_.AddBuiltinOptions(b, opts_off)
        if inter is not None:
            _Operator_.AddIntermediates(b, inter)
        return _Operator_.End(b)


def _fields_of(module: ModuleType) -> list[str]:
    """snake_case field names of a generated option table module."""
    out = []
    prefix = module.__name__.rsplit(".", 1)[-1] + "Add"
    for attr in dir(module):
        if attr.startswith(prefix):
            camel = attr[len(prefix):]
            out.append("".join("_" + c.lower() if c.isupper() else c for c in camel).lstrip("_"))
    return out


def _write_options(b: flatbuffers.Builder, table: str, options: dict[str, Any]) -> int:
    module = _options_module(table)
    vectors: dict[str, int] = {}
    for field, value in options.items():
        if isinstance(value, str) and field not in _ENUM_FIELDS:   # a string field (VAR_HANDLE's names)
            vectors[field] = b.CreateString(value)
            continue
        start_vec = getattr(module, f"Start{_camel(field)}Vector", None)
        if start_vec is not None:
            dt = "<f4" if field in _FLOAT_VECTOR_FIELDS else "<i4"
            vectors[field] = b.CreateNumpyVector(np.asarray(list(value), dtype=dt))
    module.Start(b)
    for field, value in options.items():
        add: Callable[[flatbuffers.Builder, Any], None] = getattr(module, f"Add{_camel(field)}")
        if field in vectors:
            add(b, vectors[field])
        elif field in _ENUM_FIELDS:
            add(b, _enum_value(field, value))
        elif isinstance(value, (bool, np.bool_)):
            add(b, bool(value))
        elif isinstance(value, (float, np.floating)):
            add(b, float(value))
        else:
            add(b, int(value))
    return module.End(b)


def _int_vector(b: flatbuffers.Builder, start: Callable[[flatbuffers.Builder, int], None],
                values: Sequence[int]) -> int:
    start(b, len(values))
    for v in reversed(list(values)):
        b.PrependInt32(int(v))
    return b.EndVector()


def _vector_of_offsets(b: flatbuffers.Builder, start: Callable[[flatbuffers.Builder, int], None],
                       offsets: Sequence[int]) -> int:
    start(b, len(offsets))
    for off in reversed(list(offsets)):
        b.PrependUOffsetTRelative(off)
    return b.EndVector()


# ---------------------------------------------------------------- versions
@dataclass(frozen=True)
class _TensorSig:
    dtype: str
    shape: tuple[int, ...]
    quantized: bool
    per_channel: bool


def _dt(sigs: Sequence[_TensorSig | None], i: int) -> str | None:
    return sigs[i].dtype if i < len(sigs) and sigs[i] is not None else None


#: highest version tflite-runtime 2.14's BUILTIN_REF resolver registers (probed empirically)
REF_MAX_VERSION: dict[str, int] = {
    "CONV_2D": 6, "DEPTHWISE_CONV_2D": 6, "FULLY_CONNECTED": 9, "AVERAGE_POOL_2D": 3, "MAX_POOL_2D": 3,
    "RESHAPE": 1, "SQUEEZE": 1, "SOFTMAX": 3, "ADD": 5, "SUB": 5, "MUL": 7, "QUANTIZE": 2, "DEQUANTIZE": 4,
    "PAD": 4, "CONCATENATION": 3, "MEAN": 3, "RELU": 3, "RELU6": 3, "LOGISTIC": 3, "TANH": 3, "LEAKY_RELU": 2,
    "STRIDED_SLICE": 4, "TRANSPOSE_CONV": 3, "SVDF": 4, "MAXIMUM": 4, "MINIMUM": 4, "TRANSPOSE": 5,
}


def operator_version(op: str, inputs: Sequence[_TensorSig | None], outputs: Sequence[_TensorSig | None],
                     options: dict[str, Any]) -> int:
    """Version the converter would assign, capped at what the BUILTIN_REF resolver registers.

    Rules follow TFLite's tools/versioning/op_version.cc. Deviation: int16-activation ("16x8")
    CONV_2D / DEPTHWISE_CONV_2D / FULLY_CONNECTED get the version documented for int16 kernels
    (4 / 5 / 7); the converter's literal check (int16 filter) would leave them at 1. Features whose
    version tflite-runtime 2.14's reference resolver does not register (STRIDED_SLICE ellipsis /
    new_axis / offset, TRANSPOSE_CONV fused activation, per-channel QUANTIZE ...) are capped by
    ``REF_MAX_VERSION``; the kernels select behaviour from options and types, not the version.
    """
    v = _converter_version(op, inputs, outputs, options)
    return min(v, REF_MAX_VERSION.get(op, v))


def _converter_version(op: str, inputs: Sequence[_TensorSig | None], outputs: Sequence[_TensorSig | None],
                       options: dict[str, Any]) -> int:
    i0, i1, o0 = _dt(inputs, 0), _dt(inputs, 1), _dt(outputs, 0)
    act = options.get("fused_activation_function", "NONE")
    has_act = (act.upper() != "NONE") if isinstance(act, str) else act != 0
    ndims = max((len(s.shape) for s in inputs if s is not None), default=0)
    if op == "CONV_2D":
        if i0 == "int16" and i1 == "int8" and o0 == "int16" and options.get("quantized_bias_type"):
            return 8
        if (inputs[0] is not None and inputs[1] is not None and len(inputs[0].shape) == 4
                and len(inputs[1].shape) == 4 and inputs[0].shape[3] != inputs[1].shape[3]):
            return 6  # grouped convolution
        if i0 == "int16" and i1 in ("int8", "int16") and o0 == "int16":
            return 4
        if i0 == "int8" and i1 == "int8" and o0 == "int8":
            return 3
        if i0 == "float32" and i1 == "int8" and o0 == "float32":
            return 5 if inputs[1] is not None and inputs[1].per_channel else 2
        return 1
    if op == "DEPTHWISE_CONV_2D":
        if i0 == "int16" and i1 in ("int8", "int16") and o0 == "int16":
            return 5
        if i0 == "float32" and i1 == "int8" and o0 == "float32":
            return 6 if inputs[1] is not None and inputs[1].per_channel else 4
        if i0 == "int8" and i1 == "int8" and o0 == "int8":
            return 3
        if options.get("dilation_w_factor", 1) != 1 or options.get("dilation_h_factor", 1) != 1:
            return 2
        return 1
    if op == "FULLY_CONNECTED":
        if i0 == "int16" and i1 == "int8" and o0 == "int16" and options.get("quantized_bias_type"):
            return 11
        if i0 == "int16" and i1 in ("int8", "int16") and o0 == "int16":
            return 7
        if len(inputs) == 2:
            return 6
        if options.get("keep_num_dims"):
            return 5
        if i0 == "int8" and i1 == "int8" and o0 == "int8":
            return 4
        if i0 == "float32" and i1 == "int8" and o0 == "float32":
            return 9 if options.get("asymmetric_quantize_inputs") else 3
        if options.get("weights_format", "DEFAULT") not in ("DEFAULT", 0):
            return 2
        return 1
    if op == "SVDF":
        if i0 == "int8":
            return 3
        if i0 == "float32" and i1 == "int8" and o0 == "float32":
            return 4 if options.get("asymmetric_quantize_inputs") else 2
        return 1
    if op == "TRANSPOSE_CONV":
        # inputs: output_shape, weights, input[, bias]
        if _dt(inputs, 2) == "int16" and i1 == "int8" and o0 == "int16" and options.get("quantized_bias_type"):
            return 5
        if has_act:
            return 4
        if len(inputs) == 4 and inputs[3] is not None:
            return 3
        if i1 == "int8":
            return 2
        return 1
    if op == "ADD":
        if i0 == "int16" and inputs[0] is not None and not inputs[0].quantized:
            return 5
        if i0 == "int64":
            return 4
        if i0 == "int16" and o0 == "int16" and not options.get("pot_scale_int16", True):
            return 3
        return 2 if i0 == "int8" else 1
    if op == "SUB":
        if i0 == "int16" and o0 == "int16" and not options.get("pot_scale_int16", True):
            return 5
        if i0 == "int64":
            return 4
        if (len(inputs) >= 2 and inputs[0] is not None and inputs[1] is not None
                and inputs[0].shape != inputs[1].shape and ndims > 4):
            return 3
        return 2 if i0 == "int8" else 1
    if op == "MUL":
        if i0 == "int16" and inputs[0] is not None and not inputs[0].quantized:
            return 7
        if i0 == "int64":
            return 5
        if i0 == "int16":
            return 4
        return 2 if i0 == "int8" else 1
    if op in ("MAX_POOL_2D", "AVERAGE_POOL_2D", "TANH", "LOGISTIC"):
        if i0 == "int16" and o0 == "int16":
            return 3
        return 2 if i0 == "int8" else 1
    if op in ("SOFTMAX", "MEAN", "MIRROR_PAD", "REDUCE_MAX", "REDUCE_MIN", "RELU6", "RSQRT", "CONCATENATION"):
        if i0 == "int16":
            return 3
        return 2 if i0 == "int8" else 1
    if op == "RELU":
        if i0 == "int16":
            return 3
        return 2 if i0 in ("int8", "uint8") else 1
    if op == "LEAKY_RELU":
        return 2 if i0 == "int16" else 1
    if op in ("PAD", "PADV2"):
        if ndims > 4:
            return 4
        if i0 == "int16":
            return 3
        return 2 if i0 == "int8" else 1
    if op == "QUANTIZE":
        if outputs and outputs[0] is not None and outputs[0].per_channel:
            return 3
        return 2 if o0 == "int16" else 1
    if op == "DEQUANTIZE":
        if i0 == "int16":
            return 3
        if i0 == "int8":
            return 5 if inputs[0] is not None and inputs[0].per_channel else 2
        return 1
    if op == "STRIDED_SLICE":
        if options.get("offset"):
            return 8
        if options.get("ellipsis_mask", 0) or options.get("new_axis_mask", 0):
            return 6
        if ndims > 4:
            return 4
        if i0 == "bool":
            return 3
        return 2 if i0 == "int8" else 1
    if op in ("MAXIMUM", "MINIMUM"):
        if i0 == "int16" and o0 == "int16":
            return 4
        return 2 if i0 == "int8" else 1
    if op in ("TRANSPOSE", "SPACE_TO_BATCH_ND", "BATCH_TO_SPACE_ND"):
        if i0 == "int16":
            return 4 if op != "TRANSPOSE" else 5
        return 2 if i0 == "int8" else 1
    return 1


# ------------------------------------------------------------------ helpers
@dataclass
class TensorSpec:
    """One tensor of a single-operator model (``data`` set = constant)."""

    shape: Sequence[int]
    dtype: str
    data: np.ndarray | None = None
    scale: float | Sequence[float] | None = None
    zero_point: int | Sequence[int] | None = None
    quantized_dimension: int = 0
    name: str | None = None
    is_variable: bool = False


def single_op_model(
    op: str,
    inputs: Sequence[TensorSpec | None],
    outputs: Sequence[TensorSpec],
    options: dict | None = None,
    *,
    version: int | None = None,
    description: str = "utvm-build test model",
) -> bytes:
    """One-operator model; ``None`` inputs are absent optional inputs.

    Model inputs are the non-constant, non-variable operator inputs, in order.
    """
    mb = ModelBuilder(description)

    def add(spec: TensorSpec) -> int:
        return mb.tensor(spec.shape, spec.dtype, data=spec.data, scale=spec.scale, zero_point=spec.zero_point,
                         quantized_dimension=spec.quantized_dimension, name=spec.name, is_variable=spec.is_variable)

    in_idx = [-1 if s is None else add(s) for s in inputs]
    out_idx = [add(s) for s in outputs]
    mb.operator(op, in_idx, out_idx, options, version=version)
    graph_inputs = [i for i, s in zip(in_idx, inputs) if s is not None and s.data is None and not s.is_variable]
    return mb.build(graph_inputs, out_idx)


def flex_map(**options: bool | int | float) -> bytes:
    """A FlexBuffer map of scalar options, the custom_options of TFLite's and TFLM's own custom
    operators: bool as Bool, integers (numpy's too) as Int, anything else as Float."""
    import numpy as np
    from flatbuffers import flexbuffers

    fbb = flexbuffers.Builder()
    with fbb.Map():
        for key, value in options.items():
            if isinstance(value, (bool, np.bool_)):
                fbb.Bool(key, bool(value))
            elif isinstance(value, (int, np.integer)):
                fbb.Int(key, int(value))
            else:
                fbb.Float(key, float(value))
    return bytes(fbb.Finish())
