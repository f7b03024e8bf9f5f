#!/usr/bin/env python3
"""Generate utvm_build/frontend/schema.py, the reader's tables, from TFLite's schema.fbs.

    python scripts/gen_schema.py            # rewrite utvm_build/frontend/schema.py
    python scripts/gen_schema.py --check    # exit 1 if the committed file differs (tests run this)

Input: third_party/tflite/schema.fbs (Apache-2.0, see its README). Only the FlatBuffers IDL that
schema uses is parsed: enums, unions, tables (fields with scalar, enum, vector, string, table and
union types, defaults, attributes) and structs; comments are dropped. A field's slot is its field
id: fields in declaration order, a union field taking two (its type, then its value).
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "third_party" / "tflite" / "schema.fbs"
OUTPUT = ROOT / "utvm_build" / "frontend" / "schema.py"

# FlatBuffers scalar type -> the reader's kind (utvm_build/frontend/flatbuf.py).
SCALARS = {
    "bool": "bool", "byte": "int8", "ubyte": "uint8", "short": "int16", "ushort": "uint16",
    "int": "int32", "uint": "uint32", "long": "int64", "ulong": "uint64", "float": "float32",
    "double": "float64", "int8": "int8", "uint8": "uint8", "int16": "int16", "uint16": "uint16",
    "int32": "int32", "uint32": "uint32", "int64": "int64", "uint64": "uint64", "float32": "float32",
    "float64": "float64",
}
# Enums the reader names (the rest are used through OPTION_TABLES only).
NAMED_ENUMS = {"ActivationFunctionType": "ACTIVATIONS", "Padding": "PADDINGS",
               "FullyConnectedOptionsWeightsFormat": "FC_WEIGHTS_FORMATS"}


@dataclass
class Enum:
    name: str
    base: str
    values: dict[str, int] = field(default_factory=dict)


@dataclass
class Table:
    name: str
    fields: list[tuple[str, str, str | None]] = field(default_factory=list)   # name, type, default


def parse(text: str) -> tuple[dict[str, Enum], dict[str, list[str]], dict[str, Table]]:
    text = re.sub(r"//[^\n]*", "", text)
    enums: dict[str, Enum] = {}
    unions: dict[str, list[str]] = {}
    tables: dict[str, Table] = {}
    for m in re.finditer(r"\b(enum|union|table|struct)\s+(\w+)\s*(?::\s*(\w+))?\s*(?:\([^)]*\))?\s*\{(.*?)\}",
                         text, re.S):
        kind, name, base, body = m.group(1), m.group(2), m.group(3), m.group(4)
        if kind == "enum":
            e = Enum(name, base or "int")
            nxt = 0
            for item in filter(None, (s.strip() for s in body.split(","))):
                im = re.fullmatch(r"(\w+)\s*(?:=\s*(-?\w+))?\s*(?:\([^)]*\))?", item)
                if im is None:
                    raise SystemExit(f"enum {name}: cannot parse {item!r}")
                value = int(im.group(2), 0) if im.group(2) is not None else nxt
                e.values[im.group(1)] = value
                nxt = value + 1
            enums[name] = e
        elif kind == "union":
            members = []
            for item in filter(None, (s.strip() for s in body.split(","))):
                im = re.fullmatch(r"(\w+)\s*(?:\([^)]*\))?", item)
                if im is None:
                    raise SystemExit(f"union {name}: cannot parse {item!r}")
                members.append(im.group(1))
            unions[name] = members
        elif kind == "table":
            t = Table(name)
            for item in filter(None, (s.strip() for s in body.split(";"))):
                im = re.fullmatch(r"(\w+)\s*:\s*(\[?\s*\w+\s*\]?)\s*(?:=\s*([^()\s]+))?\s*(\([^)]*\))?", item)
                if im is None:
                    raise SystemExit(f"table {name}: cannot parse {item!r}")
                t.fields.append((im.group(1), re.sub(r"\s", "", im.group(2)), im.group(3)))
            tables[name] = t
    return enums, unions, tables


def _enum_tuple(e: Enum) -> list[str]:
    """Names by value; the option enums are dense from 0 (checked)."""
    by_value = {v: k for k, v in e.values.items()}
    if sorted(by_value) != list(range(len(by_value))):
        raise SystemExit(f"enum {e.name} is not dense from 0; the reader indexes it by value")
    return [by_value[v] for v in range(len(by_value))]


def _default(ftype: str, default: str | None, enums: dict[str, Enum]) -> object:
    if ftype in enums:
        e = enums[ftype]
        if default is None:
            return 0
        return e.values[default] if default in e.values else int(default, 0)
    kind = SCALARS[ftype]
    if kind == "bool":
        return default == "true"
    if kind.startswith("float"):
        return float(default) if default is not None else 0.0
    return int(default, 0) if default is not None else 0


def _wrapped(items: list[str], indent: str = "    ", width: int = 110) -> list[str]:
    """Comma-separated items on lines of at most ``width`` characters."""
    lines, line = [], indent
    for item in items:
        if len(line) + len(item) + 2 > width and line.strip():
            lines.append(line.rstrip())
            line = indent
        line += item + ", "
    if line.strip():
        lines.append(line.rstrip())
    return lines


def render(enums: dict[str, Enum], unions: dict[str, list[str]], tables: dict[str, Table]) -> str:
    out = ['"""Tables generated from TensorFlow Lite\'s schema.fbs by scripts/gen_schema.py. Do not edit.',
           "",
           "Source: third_party/tflite/schema.fbs (Apache-2.0). Field slots are the schema's field ids (a",
           "union takes two slots: its type, then its value). A field is (name, slot, kind, default, enum",
           "names or None); kind is a scalar kind of utvm_build/frontend/flatbuf.py, or that kind + '[]' for",
           "a vector. Fields of other types (strings, tables) are not listed.",
           '"""', "", "from __future__ import annotations", ""]
    ops = enums["BuiltinOperator"].values
    by_code = {v: k for k, v in ops.items()}
    names = [by_code.get(c, f"BUILTIN_{c}") for c in range(max(by_code) + 1)]
    out.append("# BuiltinOperator, indexed by code (codes past the end are reported as \"BUILTIN_<code>\").")
    out.append("BUILTIN_OPERATORS: tuple[str, ...] = (")
    out += _wrapped([repr(n) for n in names])
    out += [")", ""]
    types = enums["TensorType"].values
    out.append("# TensorType -> element type name.")
    out.append("TENSOR_TYPES: dict[int, str] = {")
    out += [f"    {v}: {k.lower()!r}," for k, v in sorted(types.items(), key=lambda kv: kv[1])]
    out += ["}", ""]

    used: dict[str, str] = {}
    body: list[str] = []
    for index, member in enumerate(unions["BuiltinOptions"], start=1):
        t = tables[member]
        fields, slot = [], 0
        for fname, ftype, default in t.fields:
            here, slot = slot, slot + (2 if ftype in unions else 1)
            vector = ftype.startswith("[")
            base = ftype.strip("[]")
            if base in enums:
                kind, enum_name = SCALARS[enums[base].base], base
            elif base in SCALARS:
                kind, enum_name = SCALARS[base], None
            else:
                continue   # strings, tables, unions: not read from options
            if vector:
                fields.append(f"({fname!r}, {here}, {kind + '[]'!r}, None, None)")
                continue
            enum_ref = "None"
            if enum_name is not None:
                used[enum_name] = NAMED_ENUMS.get(enum_name, f"_{enum_name.upper()}")
                enum_ref = used[enum_name]
            value = _default(base, default, enums)
            fields.append(f"({fname!r}, {here}, {kind!r}, {value!r}, {enum_ref})")
        if fields:
            inner = ",\n        ".join(fields)
            body.append(f"    {index}: ({member!r}, (\n        {inner},\n    )),")
        else:
            body.append(f"    {index}: ({member!r}, ()),")
    for enum_name, var in sorted({**used, **NAMED_ENUMS}.items(), key=lambda kv: kv[1]):
        out.append(f"{var}: tuple[str, ...] = (")
        out += _wrapped([repr(n) for n in _enum_tuple(enums[enum_name])])
        out.append(")")
    out += ["", "Field = tuple[str, int, str, object, 'tuple[str, ...] | None']", "",
            "# BuiltinOptions union type -> (table name, fields).",
            "OPTION_TABLES: dict[int, tuple[str, tuple[Field, ...]]] = {"]
    out += body
    out += ["}", "", "", "def operator_name(code: int) -> str:",
            "    if 0 <= code < len(BUILTIN_OPERATORS):", "        return BUILTIN_OPERATORS[code]",
            '    return f"BUILTIN_{code}"', ""]
    return "\n".join(out)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--check", action="store_true", help="compare with the committed file instead of writing")
    p.add_argument("--schema", type=Path, default=SCHEMA)
    a = p.parse_args()
    text = render(*parse(a.schema.read_text()))
    if a.check:
        if OUTPUT.read_text() != text:
            print(f"{OUTPUT} differs from what scripts/gen_schema.py generates from {a.schema}", file=sys.stderr)
            return 1
        return 0
    OUTPUT.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
