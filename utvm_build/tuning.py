"""Tuning records: which kernel variant each layer uses, chosen by measurement (``utvm-build tune``).

A record is plain JSON that the user commits (docs/kernel-guide.md, "Kernels chosen by
measurement")::

    {"kind": "utvm-build tuning record", "version": 1,
     "target": "cortex-m4",
     "toolchain": {"compiler": "arm-none-eabi-gcc", "version": "13.2.1", "flags": ["-mthumb", "-Os", ...]},
     "device": "qemu-m4", "metric": "instructions",
     "layers": [{"signature": {...}, "variant": "without:utvm_conv2d_s8_q15",
                 "measured": {"default": 81234, "without:utvm_conv2d_s8_q15": 80110}}, ...]}

A layer is keyed by its signature: operator, input and output shapes, types and quantization
granularity, and its options (not the tensor names, not the weights): layers that look the same
to the kernels get the same choice. ``compile --tuning FILE`` applies it through a per-layer
override of the selection rule (selection.py); a layer the record does not name keeps the fixed
rules, and so does every layer without a record (the generated C is byte-identical).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from .errors import UtvmError
from .graph import Graph, Operator
from .selection import DEFAULT, OPTIMIZE_MODES, excluded

KIND = "utvm-build tuning record"
VERSION = 1


def _granularity(q) -> str:
    if q is None:
        return "none"
    return "per-channel" if np.asarray(q.scale).size > 1 else "per-tensor"


def _jsonable(v):
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, (np.integer, np.floating, np.bool_)):
        return v.item()
    if isinstance(v, bytes):
        return v.hex()
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in sorted(v.items(), key=lambda kv: str(kv[0]))}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    return v


def layer_signature(op: Operator, g: Graph) -> dict:
    """What the kernel choice of ``op`` depends on (see the module docstring)."""
    def port(t: int) -> list | None:
        if t < 0:
            return None
        x = g.tensors[t]
        return [list(x.shape), x.dtype, _granularity(x.quant), bool(x.is_const)]
    return {"op": op.op, "inputs": [port(t) for t in op.inputs], "outputs": [port(t) for t in op.outputs],
            "options": _jsonable(op.options)}


def signature_key(sig: dict) -> str:
    """The canonical text of a signature (the key records are matched by)."""
    return json.dumps(sig, sort_keys=True, separators=(",", ":"), default=str)


def layer_key(op: Operator, g: Graph) -> str:
    return signature_key(layer_signature(op, g))


# ---- toolchain --------------------------------------------------------------------------------

def compiler_version(compiler: str) -> str:
    """``compiler -dumpfullversion`` (gcc), else ``-dumpversion`` (clang); "" when it cannot run."""
    for flag in ("-dumpfullversion", "-dumpversion"):
        try:
            p = subprocess.run([compiler, flag], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.SubprocessError):
            return ""
        if p.returncode == 0 and p.stdout.strip():
            return p.stdout.strip()
    return ""


def toolchain(compiler: str, flags: list[str]) -> dict:
    """The toolchain part of a record: the compiler's file name, its version, the flags."""
    return {"compiler": Path(compiler).name, "version": compiler_version(compiler), "flags": list(flags)}


# ---- reading ----------------------------------------------------------------------------------

def _malformed(path: Path, why: str) -> UtvmError:
    return UtvmError(f"{path}: not a valid tuning record ({why})")


def parse_record(text: str, path: Path) -> dict:
    """The record in ``text``, checked; UtvmError (one line, exit 2) when malformed."""
    try:
        doc = json.loads(text)
    except ValueError as e:
        raise _malformed(path, f"invalid JSON: {e}") from None
    if not isinstance(doc, dict) or doc.get("kind") != KIND:
        raise _malformed(path, f'"kind" must be "{KIND}"')
    if doc.get("version") != VERSION:
        raise _malformed(path, f"version {doc.get('version')!r}, this utvm-build reads version {VERSION}")
    if not isinstance(doc.get("target"), str):
        raise _malformed(path, '"target" must be a string')
    if doc.get("optimize", "balanced") not in OPTIMIZE_MODES:
        raise _malformed(path, f'"optimize" must be one of {", ".join(OPTIMIZE_MODES)}')
    tc = doc.get("toolchain")
    if not isinstance(tc, dict) or not all(isinstance(tc.get(k), str) for k in ("compiler", "version")) \
            or not isinstance(tc.get("flags", []), list):
        raise _malformed(path, '"toolchain" must hold "compiler" and "version" strings and a "flags" list')
    layers = doc.get("layers")
    if not isinstance(layers, list):
        raise _malformed(path, '"layers" must be a list')
    for k, rec in enumerate(layers):
        if not isinstance(rec, dict) or not isinstance(rec.get("signature"), dict) \
                or not isinstance(rec.get("variant"), str):
            raise _malformed(path, f"layer {k} needs a \"signature\" object and a \"variant\" string")
        try:
            excluded(rec["variant"])
        except ValueError as e:
            raise _malformed(path, f"layer {k}: {e}") from None
    return doc


def read_record(path: str | Path) -> dict:
    path = Path(path)
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise UtvmError(f"tuning record not found: {path}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise UtvmError(f"cannot read the tuning record {path}: {getattr(e, 'strerror', None) or e}") from None
    return parse_record(text, path)


def choices(doc: dict) -> tuple[tuple[str, str], ...]:
    """(signature key, variant) of every layer the record changes, sorted (CompileOptions.tuning)."""
    pairs = {signature_key(r["signature"]): r["variant"] for r in doc["layers"] if r["variant"] != DEFAULT}
    return tuple(sorted(pairs.items()))


def applicable_choices(path: str | Path, target: str, compiler: str | None = None,
                       warn=lambda s: print(s, file=sys.stderr),
                       optimize: str = "balanced") -> tuple[tuple[str, str], ...] | None:
    """The choices of the record at ``path`` for a build with ``target`` and ``--optimize optimize``
    (and ``compiler``, a compiler program, when the caller knows it): None, after a one-line
    warning, when the record was measured for another target, optimize mode or toolchain."""
    doc = read_record(path)
    if doc["target"] != target:
        warn(f"warning: {path}: tuning record for target {doc['target']}, not {target}: ignored")
        return None
    if doc.get("optimize", "balanced") != optimize:
        warn(f"warning: {path}: tuning record for --optimize {doc.get('optimize')}, not {optimize}: ignored")
        return None
    if compiler:
        tc = doc["toolchain"]
        mine = (Path(compiler).name, compiler_version(compiler))
        if (tc["compiler"], tc["version"]) != mine:
            warn(f"warning: {path}: tuning record for {tc['compiler']} {tc['version']}, not {mine[0]} "
                 f"{mine[1]}: ignored")
            return None
    return choices(doc) or None   # a record that changes nothing: the build without one, byte for byte


# ---- writing ----------------------------------------------------------------------------------

def check_writable(path: str | Path) -> None:
    """Would :func:`write_record` accept ``path``? (``tune`` asks before measuring for minutes.)"""
    path = Path(path)
    _check_target(path)
    directory = path.parent if str(path.parent) else Path(".")
    if not directory.is_dir():
        raise UtvmError(f"cannot write the tuning record {path}: {directory} is not a directory")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise UtvmError(f"cannot write the tuning record {path}: {directory} is not writable")


def _check_target(path: Path) -> None:
    if path.is_dir():
        raise UtvmError(f"refusing to write the tuning record {path}: it is a directory")
    if path.exists() or path.is_symlink():
        if path.is_symlink() or not path.is_file():
            raise UtvmError(f"refusing to write the tuning record {path}: it exists and is not a regular file")
        try:
            parse_record(path.read_text(), path)
        except (UtvmError, OSError, UnicodeDecodeError):
            raise UtvmError(f"refusing to overwrite {path}: it is not a tuning record") from None


def write_record(path: str | Path, doc: dict) -> None:
    """Write ``doc`` to ``path``: a temp file in the same directory, then os.replace. A symlink at
    ``path``, and an existing file that is not a tuning record, are refused (docs/output.md)."""
    path = Path(path)
    _check_target(path)
    text = json.dumps(doc, indent=1, sort_keys=False) + "\n"
    directory = path.parent if str(path.parent) else Path(".")
    fd, tmp = None, None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
        with os.fdopen(fd, "w") as f:
            fd = None
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)   # mkstemp makes it 0600; a record is a plain committed file
        os.replace(tmp, path)
        tmp = None
    except OSError as e:
        raise UtvmError(f"cannot write the tuning record {path}: {e.strerror or e}") from None
    finally:
        if fd is not None:
            os.close(fd)
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
