"""The model's constants: one const array each, deduplicated, placed in flash."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np

from .cnames import array_literal, c_comment, c_identifier


@dataclass
class Constant:
    symbol: str
    ctype: str
    values: np.ndarray
    comment: str
    align: int


@dataclass
class ConstantPool:
    """Collects constant arrays; identical arrays (same type and bytes) are stored once."""

    prefix: str
    align: int
    used_names: set[str] = field(default_factory=set)
    constants: list[Constant] = field(default_factory=list)
    _by_content: dict[tuple[str, bytes], str] = field(default_factory=dict)

    def add(self, hint: str, values: np.ndarray, ctype: str, comment: str = "") -> str:
        values = np.ascontiguousarray(values)
        if values.size == 0:
            raise ValueError("empty constant")
        key = (ctype, hashlib.sha256(values.tobytes()).digest() + str(values.dtype).encode())
        if key in self._by_content:
            return self._by_content[key]
        symbol = f"{self.prefix}_{c_identifier(hint, self.used_names, fallback='c')}"
        itemsize = values.dtype.itemsize
        # Large arrays get the configured alignment (for wide loads); small ones their natural one.
        align = self.align if values.nbytes >= 64 else max(itemsize, 4)
        self.constants.append(Constant(symbol, ctype, values, c_comment(comment), align))
        self._by_content[key] = symbol
        return symbol

    @property
    def total_bytes(self) -> int:
        return sum(c.values.nbytes for c in self.constants)

    def declarations(self, attr_macro: str) -> list[str]:
        # The declaration states the definition's alignment: a compiler may otherwise assume the
        # ABI's alignment for a large array (16 B on x86-64) and use aligned vector loads on an
        # array defined with less.
        return [f"extern const {c.ctype} {c.symbol}[{c.values.size}] {attr_macro}({c.align});"
                for c in self.constants]

    def definitions(self, attr_macro: str) -> list[str]:
        out = []
        for c in self.constants:
            if c.comment:
                out.append(f"/* {c.comment} */")
            out.append(f"const {c.ctype} {c.symbol}[{c.values.size}] {attr_macro}({c.align}) = {{")
            out.append(array_literal(c.values, c.ctype))
            out.append("};")
            out.append("")
        return out
