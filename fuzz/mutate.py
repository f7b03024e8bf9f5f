"""Mutators: structure-aware patches of the fields that matter, plus plain byte havoc.

``mutate(data, rng)`` returns one mutant. Most mutants patch 1-3 fields found by
:func:`fuzz.fields.find_fields` with values chosen for what the field means (extreme scales,
zero points outside the type's range, tensor indices that make self-loops, cycles and double
writes, shapes of 0 / -1 / huge, control characters in names ...); the rest flip, insert or
delete bytes anywhere.
"""

from __future__ import annotations

import random
import struct

from .fields import SIZES, Field, find_fields

_FMT = {"bool": "<B", "int8": "<b", "uint8": "<B", "int16": "<h", "int32": "<i", "uint32": "<I",
        "int64": "<q", "float32": "<f"}
_RANGE = {"bool": (0, 255), "int8": (-128, 127), "uint8": (0, 255), "int16": (-32768, 32767),
          "int32": (-(1 << 31), (1 << 31) - 1), "uint32": (0, (1 << 32) - 1), "int64": (-(1 << 63), (1 << 63) - 1)}

_EXTREME_INTS = [0, 1, -1, 2, 3, 7, 8, 16, 127, 128, -128, -129, 255, 256, 32767, 32768, -32768, -32769,
                 65535, 65536, (1 << 31) - 1, -(1 << 31), 1 << 30, (1 << 32) - 1, 1 << 40, -(1 << 40),
                 (1 << 63) - 1, -(1 << 63)]
_SCALES = [0.0, -0.0, -1.0, float("inf"), float("-inf"), float("nan"), 1e-45, 1e-40, 1.1754944e-38, 1e-30,
           1e-20, 1e-10, 1e-6, 2 ** -31, 2 ** -32, 2 ** -33, 1 / 65536, 1 / 32768, 1 / 256, 1 / 128, 0.5, 1.0,
           2.0, 255.0, 65536.0, 2 ** 31, 2 ** 32, 1e10, 1e20, 1e30, 3.4028235e38]
_NAME_BYTES = [0x0A, 0x0D, 0x00, 0x09, 0x0B, 0x0C, 0x1B, 0x7F, 0x22, 0x27, 0x5C, 0x2A, 0x2F, 0x3F, 0x25,
               0x23, 0x80, 0xC3, 0xFF, 0x20]


def _pack(kind: str, value: int | float) -> bytes:
    if kind == "float32":
        return struct.pack("<f", float(value)) if abs(float(value)) <= 3.4028235e38 or value != value else \
            struct.pack("<f", float("inf") if value > 0 else float("-inf"))
    lo, hi = _RANGE[kind]
    v = int(value)
    if not lo <= v <= hi:
        v = (v - lo) % (hi - lo + 1) + lo   # wrap into the field's type
    return struct.pack(_FMT[kind], v)


def _read(data: bytearray, f: Field) -> int | float:
    return struct.unpack_from(_FMT[f.kind], data, f.pos)[0]


def _int_for(f: Field, old: int, rng: random.Random) -> int:
    r = rng.random()
    if f.tag in ("tensor_ref", "buffer") and f.extra > 0:
        if r < 0.7:
            return rng.randrange(-1, f.extra + 1)
        return rng.choice([-1, -2, f.extra, f.extra + 1, 1 << 31, (1 << 32) - 1])
    if f.tag == "dtype":
        return rng.choice([0, 2, 3, 4, 6, 7, 9]) if r < 0.8 else rng.randrange(-2, 21)
    if f.tag in ("shape", "shape_signature", "option_vector"):
        if r < 0.5:
            return max(0, old + rng.choice([-2, -1, 1, 2])) if r < 0.3 else rng.choice([0, 1, 2, 3, 4, 5, 8])
        return rng.choice(_EXTREME_INTS + [-1, -2, 1 << 16, 1 << 20, 46341])
    if f.tag == "option_enum":
        return rng.randrange(0, f.extra + 2)
    if f.tag in ("opcode_builtin",):
        return rng.choice([0, 1, 2, 3, 4, 6, 9, 14, 17, 18, 19, 21, 22, 25, 27, 28, 34, 40, 41, 43, 45, 60, 67,
                           98, 114, 32, 127, 200, -1])
    if f.tag == "zero_point":
        if r < 0.4:
            return old + rng.choice([-129, -128, -1, 1, 127, 128, 255, 256, 32768, -32768, 65536])
        return rng.choice(_EXTREME_INTS)
    if f.tag == "data":
        return rng.choice(_EXTREME_INTS)
    if r < 0.5:
        return old + rng.choice([-1, 1, -2, 2, 8, -8])
    return rng.choice(_EXTREME_INTS)


def _float_for(f: Field, old: float, rng: random.Random) -> float:
    r = rng.random()
    if r < 0.35 and old == old and abs(old) < 1e30:
        return old * 2.0 ** rng.randrange(-40, 41)
    if r < 0.45:
        return old * rng.uniform(0.5, 2.0) if old == old else 1.0
    return rng.choice(_SCALES + [-s for s in _SCALES[6:12]])


def patch_field(data: bytearray, f: Field, rng: random.Random) -> None:
    if f.kind == "byte":
        if f.tag == "name":
            data[f.pos] = rng.choice(_NAME_BYTES)
            return
        elem = max(1, f.extra)
        start = f.pos
        value = rng.choice(_EXTREME_INTS)
        raw = _pack({1: "int8", 2: "int16", 4: "int32", 8: "int64"}.get(elem, "int8"), value)
        count = rng.choice([1, 1, 4, 64, 1 << 20])
        for k in range(count):
            p = start + k * elem
            if p + elem > len(data):
                break
            data[p:p + elem] = raw
        return
    old = _read(data, f)
    if f.kind == "float32":
        value: int | float = _float_for(f, float(old), rng)
    else:
        value = _int_for(f, int(old), rng)
    data[f.pos:f.pos + SIZES[f.kind]] = _pack(f.kind, value)


def _havoc(data: bytearray, rng: random.Random) -> None:
    for _ in range(rng.randrange(1, 5)):
        if not data:
            return
        r = rng.random()
        pos = rng.randrange(len(data))
        if r < 0.6:
            data[pos] = rng.randrange(256)
        elif r < 0.75:
            data[pos] ^= 1 << rng.randrange(8)
        elif r < 0.85 and pos + 4 <= len(data):
            data[pos:pos + 4] = struct.pack("<i", rng.choice(_EXTREME_INTS[:22]))
        elif r < 0.93:
            del data[pos:pos + rng.randrange(1, 9)]
        else:
            data[pos:pos] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 9)))


# How often each kind of field is picked (fields that reach deep code are favoured).
_WEIGHTS = {"scale": 6, "zero_point": 6, "tensor_ref": 6, "shape": 5, "dtype": 3, "buffer": 3, "option": 5,
            "option_enum": 3, "option_float": 4, "option_vector": 2, "name": 2, "data": 4, "is_variable": 1,
            "quantized_dimension": 1, "opcode_index": 1, "opcode_builtin": 2, "opcode_version": 1,
            "options_type": 1, "shape_signature": 1, "schema_version": 0.1}


def mutate(data: bytes, rng: random.Random, fields: list[Field] | None = None, max_size: int = 1 << 22,
           semantic: bool = False) -> bytes:
    """One mutant of ``data``: mostly 1-3 field patches, sometimes byte havoc, sometimes both.

    ``semantic``: field patches only (no byte havoc), so the mutant stays a well-formed flatbuffer and
    reaches validation and code generation more often.
    """
    out = bytearray(data)
    fields = find_fields(data) if fields is None else fields
    r = rng.random() * (0.8 if semantic else 1.0)
    if fields and r < 0.85:
        weights = [_WEIGHTS.get(f.tag, 1) for f in fields]
        for f in rng.choices(fields, weights, k=rng.choice([1, 1, 1, 2, 3])):
            patch_field(out, f, rng)
        if r > 0.8:
            _havoc(out, rng)
    else:
        _havoc(out, rng)
    return bytes(out[:max_size])
