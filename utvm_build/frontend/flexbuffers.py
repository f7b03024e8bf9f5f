"""A small, bounds-checked reader of FlexBuffers maps (the custom_options of TFLite's custom ops).

Only what operator options need: a root map whose values are null, ints, uints, floats, bools
(inline or indirect) and strings. Values of other kinds (vectors, blobs, nested maps) are left
out of the result. Every offset and width is checked against the buffer; anything inconsistent
raises a one-line ``ModelFormatError``. No recursion: the reader visits the root map's entries
once each.

Layout (flatbuffers' flexbuffers.h): the last byte is the root's byte width, the byte before it
the root's packed type (type << 2 | log2 of the width of what it points to), and the root value
sits before those. A map at address ``p`` whose elements are ``w`` bytes wide has its size at
``p - w``, its keys vector's offset and width at ``p - 3w`` and ``p - 2w``, ``size`` elements
from ``p`` and one packed type byte per element after them. Offsets count backwards.
"""

from __future__ import annotations

import struct

from ..errors import ModelFormatError

# flexbuffers::Type values
_NULL, _INT, _UINT, _FLOAT, _KEY, _STRING = 0, 1, 2, 3, 4, 5
_INDIRECT_INT, _INDIRECT_UINT, _INDIRECT_FLOAT, _MAP = 6, 7, 8, 9
_BOOL = 26
_MAX_ENTRIES = 4096
_MAX_KEY = 256

Value = int | float | bool | str | None


class _Reader:
    def __init__(self, buf: bytes, what: str) -> None:
        self.buf = buf
        self.what = what

    def bad(self, why: str) -> ModelFormatError:
        return ModelFormatError(f"corrupted model: {self.what}: {why}")

    def need(self, pos: int, size: int) -> None:
        if pos < 0 or size < 0 or pos + size > len(self.buf):
            raise self.bad(f"reads {size} bytes at {pos}, outside its {len(self.buf)} bytes")

    def uint(self, pos: int, width: int) -> int:
        self.need(pos, width)
        return int.from_bytes(self.buf[pos:pos + width], "little", signed=False)

    def sint(self, pos: int, width: int) -> int:
        self.need(pos, width)
        return int.from_bytes(self.buf[pos:pos + width], "little", signed=True)

    def float(self, pos: int, width: int) -> float:
        if width not in (4, 8):
            raise self.bad(f"a {width}-byte float is not supported")
        self.need(pos, width)
        return float(struct.unpack_from("<f" if width == 4 else "<d", self.buf, pos)[0])

    def target(self, pos: int, width: int) -> int:
        """The address an offset stored at ``pos`` (``width`` bytes) points back to."""
        off = self.uint(pos, width)
        dest = pos - off
        if dest < 0 or dest >= len(self.buf):
            raise self.bad(f"offset {off} at {pos} points outside the buffer")
        return dest

    def cstring(self, pos: int) -> str:
        self.need(pos, 1)
        end = self.buf.find(b"\0", pos, min(len(self.buf), pos + _MAX_KEY + 1))
        if end < 0:
            raise self.bad(f"unterminated or too long key at {pos}")
        try:
            return self.buf[pos:end].decode("utf-8")
        except UnicodeDecodeError:
            raise self.bad(f"key at {pos} is not UTF-8") from None


def _width(packed: int) -> int:
    return 1 << (packed & 3)


def read_map(buf: bytes, what: str = "custom options") -> dict[str, Value]:
    """The root map of a FlexBuffer as a dict (scalar and string values; other kinds skipped)."""
    r = _Reader(bytes(buf), what)
    if len(r.buf) < 3:
        raise r.bad(f"a flexbuffer of {len(r.buf)} bytes is too short")
    root_width = r.buf[-1]
    if root_width not in (1, 2, 4, 8):
        raise r.bad(f"root byte width {root_width}")
    packed = r.buf[-2]
    if packed >> 2 != _MAP:
        raise r.bad(f"the root is of flexbuffer type {packed >> 2}, not a map")
    root = len(r.buf) - 2 - root_width
    p = r.target(root, root_width)
    w = _width(packed)
    size = r.uint(p - w, w)
    if size > _MAX_ENTRIES:
        raise r.bad(f"a map of {size} entries")
    keys = r.target(p - 3 * w, w)
    kw = r.uint(p - 2 * w, w)
    if kw not in (1, 2, 4, 8):
        raise r.bad(f"keys byte width {kw}")
    if r.uint(keys - kw, kw) != size:
        raise r.bad("the map's keys and values differ in number")
    r.need(p, size * w + size)      # the values and their type bytes
    r.need(keys, size * kw)
    out: dict[str, Value] = {}
    for i in range(size):
        key = r.cstring(r.target(keys + i * kw, kw))
        if key in out:
            raise r.bad(f"key {key!r} appears twice")
        t = r.buf[p + size * w + i]
        kind, cw, at = t >> 2, _width(t), p + i * w
        value: Value
        if kind == _NULL:
            value = None
        elif kind == _INT:
            value = r.sint(at, w)
        elif kind == _UINT:
            value = r.uint(at, w)
        elif kind == _BOOL:
            value = r.uint(at, w) != 0
        elif kind == _FLOAT:
            value = r.float(at, w)
        elif kind == _INDIRECT_INT:
            value = r.sint(r.target(at, w), cw)
        elif kind == _INDIRECT_UINT:
            value = r.uint(r.target(at, w), cw)
        elif kind == _INDIRECT_FLOAT:
            value = r.float(r.target(at, w), cw)
        elif kind in (_STRING, _KEY):
            s = r.target(at, w)
            if kind == _KEY:
                value = r.cstring(s)
            else:
                n = r.uint(s - cw, cw)
                r.need(s, n)
                value = r.buf[s:s + n].decode("utf-8", errors="replace")
        else:
            continue            # vectors, blobs, nested maps: not needed by any supported operator
        out[key] = value
    return out
