"""A small, bounds-checked FlatBuffers reader.

Models are untrusted input: every offset, length and vtable entry is checked against the buffer
before use, and any violation raises :class:`ModelFormatError`. Only the parts of the FlatBuffers
binary format that the TFLite schema uses are implemented (tables, vectors of scalars, tables and
strings, unions as type byte + table).
"""

from __future__ import annotations

import struct

import numpy as np

from ..errors import ModelFormatError

_SCALAR = {
    "bool": ("<?", 1), "int8": ("<b", 1), "uint8": ("<B", 1), "int16": ("<h", 2),
    "uint16": ("<H", 2), "int32": ("<i", 4), "uint32": ("<I", 4), "int64": ("<q", 8),
    "uint64": ("<Q", 8), "float32": ("<f", 4), "float64": ("<d", 8),
}

_MAX_VECTOR_ELEMENTS = 1 << 28


class Table:
    """A view of one FlatBuffers table inside a buffer."""

    __slots__ = ("_buf", "_pos", "_vt", "_vt_len", "_what")

    def __init__(self, buf: bytes, pos: int, what: str) -> None:
        self._buf = buf
        self._what = what
        _need(buf, pos, 4, what)
        self._pos = pos
        vt = pos - struct.unpack_from("<i", buf, pos)[0]
        _need(buf, vt, 4, f"{what} vtable")
        vt_len, obj_len = struct.unpack_from("<HH", buf, vt)
        if vt_len < 4 or vt_len % 2:
            raise ModelFormatError(f"corrupted model: bad vtable for {what}")
        _need(buf, vt, vt_len, f"{what} vtable")
        _need(buf, pos, max(obj_len, 4), what)
        self._vt = vt
        self._vt_len = vt_len

    def _field(self, slot: int) -> int | None:
        entry = 4 + 2 * slot
        if entry + 2 > self._vt_len:
            return None
        off = struct.unpack_from("<H", self._buf, self._vt + entry)[0]
        return None if off == 0 else self._pos + off

    def has(self, slot: int) -> bool:
        return self._field(slot) is not None

    def field_pos(self, slot: int) -> int | None:
        """Byte offset of an inline field (None when absent): for tools that patch models in place."""
        return self._field(slot)

    def vector_span(self, slot: int, elem_size: int, what: str) -> tuple[int, int] | None:
        """(offset of the first element, element count) of a vector field, bounds-checked."""
        return self._vector(slot, elem_size, what)

    def scalar(self, slot: int, kind: str, default: int | float | bool = 0) -> int | float | bool:
        pos = self._field(slot)
        if pos is None:
            return default
        fmt, size = _SCALAR[kind]
        _need(self._buf, pos, size, self._what)
        return struct.unpack_from(fmt, self._buf, pos)[0]

    def _indirect(self, slot: int) -> int | None:
        pos = self._field(slot)
        if pos is None:
            return None
        _need(self._buf, pos, 4, self._what)
        target = pos + struct.unpack_from("<I", self._buf, pos)[0]
        _need(self._buf, target, 4, self._what)
        return target

    def table(self, slot: int, what: str) -> Table | None:
        pos = self._indirect(slot)
        return None if pos is None else Table(self._buf, pos, what)

    def _vector(self, slot: int, elem_size: int, what: str) -> tuple[int, int] | None:
        pos = self._indirect(slot)
        if pos is None:
            return None
        n = struct.unpack_from("<I", self._buf, pos)[0]
        if n > _MAX_VECTOR_ELEMENTS:
            raise ModelFormatError(f"corrupted model: {what} has {n} elements")
        _need(self._buf, pos + 4, n * elem_size, what)
        return pos + 4, n

    def string(self, slot: int, what: str) -> str | None:
        vec = self._vector(slot, 1, what)
        if vec is None:
            return None
        start, n = vec
        return self._buf[start:start + n].decode("utf-8", errors="replace")

    def bytes_vector(self, slot: int, what: str) -> bytes | None:
        vec = self._vector(slot, 1, what)
        if vec is None:
            return None
        start, n = vec
        return self._buf[start:start + n]

    def scalar_vector(self, slot: int, kind: str, what: str) -> np.ndarray | None:
        fmt, size = _SCALAR[kind]
        vec = self._vector(slot, size, what)
        if vec is None:
            return None
        start, n = vec
        return np.frombuffer(self._buf, dtype=np.dtype(fmt), count=n, offset=start).copy()

    def table_vector(self, slot: int, what: str) -> list[Table]:
        vec = self._vector(slot, 4, what)
        if vec is None:
            return []
        start, n = vec
        out = []
        for i in range(n):
            p = start + 4 * i
            target = p + struct.unpack_from("<I", self._buf, p)[0]
            out.append(Table(self._buf, target, f"{what}[{i}]"))
        return out


def root_table(buf: bytes, what: str) -> Table:
    """The root table of a FlatBuffers buffer."""
    _need(buf, 0, 8, what)
    return Table(buf, struct.unpack_from("<I", buf, 0)[0], what)


def _need(buf: bytes, pos: int, size: int, what: str) -> None:
    if pos < 0 or size < 0 or pos + size > len(buf):
        raise ModelFormatError(f"truncated or corrupted model: {what} lies outside the file")
