"""Write the generated directory safely: all or nothing, only inside the output directory."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path, PurePosixPath

from ..errors import UtvmError


def _check_relative(rel: str) -> None:
    p = PurePosixPath(rel)
    if p.is_absolute() or ".." in p.parts or not p.parts or any(part in ("", ".") for part in p.parts):
        raise RuntimeError(f"refusing to write outside the output directory: {rel!r}")


def write_directory(out_dir: Path, files: dict[str, bytes]) -> None:
    """Replace ``out_dir`` by exactly ``files``: written to a temporary sibling, then renamed.

    File names come from the generator (never from the model) and are checked anyway.
    """
    out_dir = Path(out_dir)
    for rel in files:
        _check_relative(rel)
    parent = out_dir.resolve().parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.tmp-", dir=parent))
    except OSError as e:
        raise UtvmError(f"cannot create the output directory {out_dir}: {e.strerror}") from None
    try:
        for rel, data in sorted(files.items()):
            path = tmp / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        if out_dir.is_symlink() or out_dir.is_file():
            raise UtvmError(f"{out_dir} exists and is not a directory")
        if out_dir.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.old-", dir=parent))
            os.rename(out_dir, old / "d")
            os.rename(tmp, out_dir)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.rename(tmp, out_dir)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def update_directory(out_dir: Path, files: dict[str, bytes]) -> list[str]:
    """Make ``out_dir`` hold exactly ``files``, rewriting only files whose content changed.

    Used by the build integrations so that a no-op regeneration keeps timestamps (nothing
    recompiles). Returns the relative paths that were written.
    """
    out_dir = Path(out_dir)
    for rel in files:
        _check_relative(rel)
    if not out_dir.exists():
        write_directory(out_dir, files)
        return sorted(files)
    written = []
    for rel, data in sorted(files.items()):
        path = out_dir / rel
        if path.is_file() and path.read_bytes() == data:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)
        written.append(rel)
    wanted = {out_dir / rel for rel in files}
    for path in sorted(out_dir.rglob("*"), reverse=True):
        if path.is_file() and path not in wanted:
            path.unlink()
        elif path.is_dir() and not any(path.iterdir()):
            path.rmdir()
    return written
