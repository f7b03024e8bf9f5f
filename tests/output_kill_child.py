"""Writes a generated directory and SIGKILLs itself just before its N-th file-system operation
(for tests/test_output_kill.py). Prints the number of operations when N is 0 (no kill).

usage: python output_kill_child.py OUT_DIR FILES.pickle N 0|1(incremental)
"""

from __future__ import annotations

import os
import pickle
import signal
import sys

from utvm_build import safe_fs
from utvm_build.emit import output

_count = 0
_kill_at = int(sys.argv[3])


def _tick() -> None:
    global _count
    _count += 1
    if _count == _kill_at:
        os.kill(os.getpid(), signal.SIGKILL)


def _counted(fn):  # noqa: ANN001, ANN202
    def call(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        _tick()
        return fn(*args, **kwargs)
    return call


_create = safe_fs.Dir.create


def _write_in_two_halves(self: safe_fs.Dir, name: str, data: bytes, mode: int = 0o644) -> None:
    """safe_fs.Dir.create with a kill point in the middle of the content too."""
    _tick()
    _create(self, name, data[: len(data) // 2], mode)
    _tick()
    with open(os.open(name, os.O_WRONLY | os.O_APPEND, dir_fd=self.fd), "ab") as f:
        f.write(data[len(data) // 2:])
        f.flush()
        os.fsync(f.fileno())


for name in ("rename", "replace", "link", "mkdir", "rmdir", "unlink", "fsync"):
    setattr(os, name, _counted(getattr(os, name)))
safe_fs.Dir.exchange = _counted(safe_fs.Dir.exchange)
safe_fs.Dir.create = _write_in_two_halves

with open(sys.argv[2], "rb") as f:
    files = pickle.load(f)
output.write_output(sys.argv[1], files, incremental=sys.argv[4] == "1")
print(_count)
