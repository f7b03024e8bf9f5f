"""A content-keyed cache of one-command builds (compile and link in one compiler call), for
tests: with ``UTVM_BUILD_CACHE=DIR`` set, a build whose inputs (every file the command names, the
headers next to them and under its -I directories, the flags, the compiler) were built before is
copied from DIR instead of compiled again. Off unless the variable is set; the test suite sets it
to one directory per run (tests/conftest.py), so that the same model built by several test files
(the digits RPC server, the host library of a model) is compiled once. Safe with several
processes: entries are written under a unique name and renamed into place."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

_HEADER_SUFFIXES = (".h", ".inc")


def _hash_tree(h, root: Path, headers_only: bool) -> None:  # noqa: ANN001 - hashlib object
    for p in sorted(root.rglob("*")):
        if p.is_file() and (not headers_only or p.suffix in _HEADER_SUFFIXES):
            h.update(str(p.relative_to(root)).encode() + b"\0" + p.read_bytes() + b"\0")


def build_key(cmd: list[str], output: str) -> str:
    """What the output of ``cmd`` depends on; the output path (and temporary paths) do not count."""
    h = hashlib.sha256()
    compiler = shutil.which(cmd[0]) or cmd[0]
    h.update(compiler.encode() + str(os.stat(compiler).st_mtime_ns if os.path.exists(compiler) else 0).encode())
    for arg in cmd[1:]:
        if arg == output:
            h.update(b"<output>\0")
            continue
        path = Path(arg[2:]) if arg.startswith("-I") else Path(arg)
        if arg.startswith("-I") and path.is_dir():
            h.update(b"-I\0")
            _hash_tree(h, path, headers_only=False)
        elif not arg.startswith("-") and path.is_file():
            h.update(b"<file>\0" + path.read_bytes())
            _hash_tree(h, path.parent, headers_only=True)   # headers included relative to the source
        else:
            h.update(arg.encode() + b"\0")
    return h.hexdigest()


def cached_build(cmd: list[str], build: Callable[[list[str]], None]) -> None:
    """Run ``build(cmd)``, or copy its output from the cache (``UTVM_BUILD_CACHE``)."""
    cache = os.environ.get("UTVM_BUILD_CACHE")
    if not cache or "-o" not in cmd:
        build(cmd)
        return
    output = cmd[cmd.index("-o") + 1]
    entry = Path(cache) / build_key(cmd, output)
    if entry.is_file():
        shutil.copy2(entry, output)
        return
    build(cmd)
    Path(cache).mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=cache, prefix=".partial-")
    os.close(fd)
    shutil.copy2(output, tmp)
    os.replace(tmp, entry)
