"""Turning untrusted model strings into safe C: identifiers, comments and literals."""

from __future__ import annotations

import math
import re

import numpy as np

C_KEYWORDS = frozenset("""
auto break case char const continue default do double else enum extern float for goto if inline int
long register restrict return short signed sizeof static struct switch typedef union unsigned void
volatile while _Bool _Complex _Imaginary bool true false NULL main asm fortran
""".split())

_MAX_IDENT = 40


def c_identifier(text: str, used: set[str] | None = None, fallback: str = "t") -> str:
    """A valid, reserved-word-free C identifier made from ``text``; unique within ``used``.

    Uniqueness is case-insensitive, because identifiers are also upper-cased into macro names.
    """
    ident = re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_").lower()[:_MAX_IDENT].strip("_")
    if not ident:
        ident = fallback
    if ident[0].isdigit():
        ident = f"{fallback}_{ident}"
    if ident in C_KEYWORDS:
        ident = f"{ident}_"
    if used is not None:
        base, n = ident, 2
        while ident.lower() in used:
            ident = f"{base}_{n}"
            n += 1
        used.add(ident.lower())
    return ident


def c_comment(text: str, limit: int = 80) -> str:
    """Text that is safe inside a /* */ comment: printable ASCII, no comment or trigraph tokens."""
    clean = "".join(ch if 32 <= ord(ch) < 127 else "?" for ch in text)
    clean = clean.replace("*/", "* /").replace("/*", "/ *").replace("??", "?_?").replace("\\", "/")
    if len(clean) > limit:
        clean = clean[: limit - 3] + "..."
    return clean


def int_literal(v: int, ctype: str = "int32_t") -> str:
    """An integer literal that is valid C99 for the full range of ``ctype``."""
    v = int(v)
    if ctype == "int64_t":
        if v == -(1 << 63):
            return "(-INT64_C(9223372036854775807) - 1)"
        return f"INT64_C({v})"
    if v == -(1 << 31):
        return "(-2147483647 - 1)"
    if ctype in ("uint32_t",):
        return f"{v}u"
    return str(v)


def float_literal(v: float) -> str:
    """A float literal that reads back to exactly the same float32 value."""
    f = float(np.float32(v))
    if math.isnan(f):
        return "NAN"
    if math.isinf(f):
        return "INFINITY" if f > 0 else "(-INFINITY)"
    text = repr(float(np.float32(f)))  # not round-trip for float32 in general
    # Use the shortest decimal that round-trips through float32.
    for digits in range(6, 10):
        cand = f"{f:.{digits}g}"
        if float(np.float32(float(cand))) == f:
            text = cand
            break
    if not any(c in text for c in ".en"):
        text += ".0"
    return text + "f"


def array_literal(values: np.ndarray, ctype: str, per_line: int = 16, indent: str = "  ") -> str:
    """The initializer list (without braces) of a C array, ``per_line`` values per line."""
    flat = np.asarray(values).ravel()
    if ctype == "float":
        items = [float_literal(v) for v in flat]
        per_line = min(per_line, 8)
    else:
        items = [int_literal(int(v), ctype) for v in flat]
    lines = [indent + ", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    return ",\n".join(lines)
