"""Where the fields that matter sit in a .tflite file, so a mutator can patch them in place.

Patching in place keeps the flatbuffer well formed, so mutants get past the reader and exercise
validation, the passes, the planner, the emitter and the generated C. Each field is recorded with
its byte offset, its scalar kind and a tag saying what it means (shape, type, tensor index ...).
"""

from __future__ import annotations

from dataclasses import dataclass

from utvm_build.errors import ModelFormatError
from utvm_build.frontend import schema
from utvm_build.frontend.flatbuf import Table, root_table

SIZES = {"bool": 1, "int8": 1, "uint8": 1, "int16": 2, "int32": 4, "uint32": 4, "int64": 8, "float32": 4}


@dataclass(frozen=True)
class Field:
    pos: int
    kind: str        # scalar kind (see SIZES) or "byte" for a byte of a string or buffer
    tag: str         # what it means: "shape", "dtype", "buffer", "tensor_ref", "scale", ...
    extra: int = 0   # tag-specific: element size of buffer data, enum size of an option ...


def _scalar(fields: list[Field], t: Table, slot: int, kind: str, tag: str, extra: int = 0) -> None:
    pos = t.field_pos(slot)
    if pos is not None:
        t.scalar(slot, kind)   # bounds check: raises ModelFormatError when the field lies outside
        fields.append(Field(pos, kind, tag, extra))


def _vector(fields: list[Field], t: Table, slot: int, kind: str, tag: str, extra: int = 0,
            limit: int = 64) -> None:
    span = t.vector_span(slot, SIZES.get(kind, 1), tag)
    if span is None:
        return
    start, n = span
    size = SIZES.get(kind, 1)
    step = max(1, n // limit)
    for k in range(0, n, step):
        fields.append(Field(start + k * size, kind, tag, extra))


def find_fields(data: bytes) -> list[Field]:
    """The patchable fields of a model (empty when the file is not a readable model)."""
    fields: list[Field] = []
    try:
        model = root_table(data, "model")
        _scalar(fields, model, 0, "uint32", "schema_version")
        for code in model.table_vector(1, "operator_codes"):
            _scalar(fields, code, 0, "int8", "opcode_builtin")
            _scalar(fields, code, 3, "int32", "opcode_builtin")
            _scalar(fields, code, 2, "int32", "opcode_version")
        buffers = model.table_vector(4, "buffers")
        buffer_of: dict[int, int] = {}
        for sg in model.table_vector(2, "subgraphs")[:1]:
            tensors = sg.table_vector(0, "tensors")
            _vector(fields, sg, 1, "int32", "tensor_ref", len(tensors))
            _vector(fields, sg, 2, "int32", "tensor_ref", len(tensors))
            for t in tensors:
                _vector(fields, t, 0, "int32", "shape")
                _vector(fields, t, 7, "int32", "shape_signature")
                _scalar(fields, t, 1, "int8", "dtype")
                _scalar(fields, t, 2, "uint32", "buffer", len(buffers))
                _scalar(fields, t, 5, "bool", "is_variable")
                _vector(fields, t, 3, "byte", "name", limit=16)
                bpos = t.field_pos(2)
                if bpos is not None:
                    buffer_of.setdefault(int(t.scalar(2, "uint32")), _ELEM.get(int(t.scalar(1, "int8")), 1))
                q = t.table(4, "quantization")
                if q is not None:
                    _vector(fields, q, 2, "float32", "scale")
                    _vector(fields, q, 3, "int64", "zero_point")
                    _scalar(fields, q, 6, "int32", "quantized_dimension")
            for op in sg.table_vector(3, "operators"):
                _scalar(fields, op, 0, "uint32", "opcode_index")
                _vector(fields, op, 1, "int32", "tensor_ref", len(tensors))
                _vector(fields, op, 2, "int32", "tensor_ref", len(tensors))
                _vector(fields, op, 8, "int32", "tensor_ref", len(tensors))
                _scalar(fields, op, 3, "uint8", "options_type")
                _option_fields(fields, op)
        for index, elem in buffer_of.items():
            if 0 <= index < len(buffers):
                _vector(fields, buffers[index], 0, "byte", "data", elem, limit=32)
    except ModelFormatError:
        return fields
    return fields


# TensorType -> element size, for the constant data of a tensor's buffer
_ELEM = {0: 4, 2: 4, 3: 1, 4: 8, 6: 1, 7: 2, 9: 1}


def _option_fields(fields: list[Field], op: Table) -> None:
    spec = schema.OPTION_TABLES.get(int(op.scalar(3, "uint8")))
    if spec is None:
        return
    table = op.table(4, "options")
    if table is None:
        return
    for _name, slot, kind, _default, enum in spec[1]:
        if kind == "int32[]":
            _vector(fields, table, slot, "int32", "option_vector")
        else:
            tag = "option_enum" if enum else ("option_float" if kind == "float32" else "option")
            _scalar(fields, table, slot, kind, tag, len(enum) if enum else 0)
