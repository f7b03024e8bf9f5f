"""Write the generated directory: only over what utvm-build wrote itself, all or nothing.

The rules (docs/output.md):

* A generated directory carries a manifest (``MANIFEST``) listing every file the generator wrote
  there, itself included. A run may replace or delete exactly those files. It refuses, with one
  line and exit 2, an output directory that holds anything else (a file, a folder or a symlink
  that is not in the manifest), that is a symlink, or that is or contains the current directory.
* The new directory is assembled in a staging directory beside it (``.<name>.utvm-staging``,
  holding a manifest from its first write on) and swapped in with one atomic exchange
  (``renameat2(RENAME_EXCHANGE)``), so a run killed at any point leaves the old or the new
  directory. What the staging directory holds afterwards (the old files, or a half-written new
  set) is removed file by file from its manifest, at the end of the run or by the next run.
* ``incremental`` keeps unchanged files as they are (hard links into the staging directory, so
  their timestamps stay and nothing recompiles); when nothing changed, nothing is touched.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import re
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

from ..errors import UtvmError

#: The manifest of a generated directory: the files the generator wrote there.
MANIFEST = ".utvm-build-manifest.json"
_MANIFEST_KIND = "utvm-build generated directory"
_STAGING_SUFFIX = ".utvm-staging"


def _check_relative(rel: str) -> None:
    p = PurePosixPath(rel)
    if p.is_absolute() or ".." in p.parts or not p.parts or any(part in ("", ".") for part in p.parts) \
            or rel == MANIFEST or "\\" in rel:
        raise RuntimeError(f"refusing to write outside the output directory: {rel!r}")


def manifest_bytes(files: list[str]) -> bytes:
    listed = sorted(set(files) | {MANIFEST})
    return (json.dumps({"kind": _MANIFEST_KIND, "files": listed}, indent=1) + "\n").encode()


def _read_manifest(directory: Path) -> list[str] | None:
    """The files listed by ``directory``'s manifest; None when there is no valid manifest."""
    path = directory / MANIFEST
    if path.is_symlink() or not path.is_file():
        return None
    try:
        doc = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or doc.get("kind") != _MANIFEST_KIND or not isinstance(doc.get("files"), list):
        return None
    files = [f for f in doc["files"] if isinstance(f, str)]
    for rel in files:
        p = PurePosixPath(rel)
        if p.is_absolute() or ".." in p.parts or "\\" in rel:
            return None
    return files


def _legacy_manifest(directory: Path) -> list[str] | None:
    """Directories written before manifests existed: adopted when every file is one that such a
    version wrote (metadata.json, its sources, the model's header, crt_config.h, kernel headers)."""
    try:
        meta = json.loads((directory / "metadata.json").read_bytes())
        prefix, sources = str(meta["prefix"]), [str(s) for s in meta["sources"]]
        meta["generator_version"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    allowed = {"metadata.json", f"include/{prefix}.h", f"include/{prefix}_quant.h", "include/crt_config.h",
               f"src/{prefix}_internal.h", *sources}
    found = [(Path(root) / n).relative_to(directory).as_posix()
             for root, _dirs, names in os.walk(directory) for n in names]
    kernel = re.compile(r"src/kernels/[a-z0-9_]+\.h")
    if all(f in allowed or kernel.fullmatch(f) for f in found):
        return found
    return None


def _only_empty_folders(path: Path) -> bool:
    """True for a folder holding nothing but (possibly) empty folders: no data to lose. Such
    folders are left by `scons -c` or `make clean` of the generated files."""
    for root, subdirs, names in os.walk(path):
        if names or any((Path(root) / d).is_symlink() for d in subdirs):
            return False
    return True


def _foreign_entries(directory: Path, owned: set[str]) -> list[str]:
    """Entries of ``directory`` (recursively, symlinks not followed) that ``owned`` does not cover."""
    dirs = {str(PurePosixPath(f).parent) for f in owned} | {"."}
    for f in owned:   # every ancestor of an owned file is owned too
        parts = PurePosixPath(f).parts
        dirs |= {str(PurePosixPath(*parts[:k])) for k in range(1, len(parts))}
    foreign: list[str] = []
    for root, subdirs, names in os.walk(directory):
        rel_root = Path(root).relative_to(directory)
        for d in list(subdirs):
            rel = (rel_root / d).as_posix()
            path = Path(root) / d
            if path.is_symlink():
                foreign.append(rel)
                subdirs.remove(d)
            elif rel not in dirs and not _only_empty_folders(path):
                foreign.append(rel + "/")
                subdirs.remove(d)
        for n in names:
            rel = (rel_root / n).as_posix()
            if rel not in owned or (Path(root) / n).is_symlink():
                foreign.append(rel)
    return sorted(foreign)


def _owned_files(directory: Path) -> list[str]:
    """The generator's files in an existing output directory; UtvmError if it holds anything else."""
    listed = _listed(directory) or []
    foreign = _foreign_entries(directory, set(listed) | ({MANIFEST} if listed else set()))
    if foreign:
        shown = ", ".join(foreign[:3]) + (f" and {len(foreign) - 3} more" if len(foreign) > 3 else "")
        raise UtvmError(f"refusing to write into {directory}: it holds files utvm-build did not write "
                        f"({shown}); choose a new or empty directory for the generated code")
    return listed


def _remove_listed(directory: Path, files: list[str]) -> None:
    """Delete ``files``, then the folders they leave empty, then the manifest and ``directory``
    itself if nothing else is left (a file someone added in the meantime is never deleted)."""
    for rel in files:
        path = directory / rel
        if rel != MANIFEST and path.is_file() and not path.is_symlink():
            path.unlink()
    for root, _subdirs, _names in os.walk(directory, topdown=False):
        if Path(root) != directory:
            try:
                os.rmdir(root)
            except OSError:
                pass
    if set(os.listdir(directory)) <= {MANIFEST}:
        (directory / MANIFEST).unlink(missing_ok=True)
        directory.rmdir()


def _listed(directory: Path) -> list[str] | None:
    return _read_manifest(directory) or _legacy_manifest(directory)


def _clear_staging(staging: Path) -> None:
    """Remove a staging directory left by an earlier run (killed, or its clean-up failed)."""
    if staging.is_symlink() or (staging.exists() and not staging.is_dir()):
        raise UtvmError(f"refusing to use {staging}: it is not a directory utvm-build made")
    if not staging.exists():
        return
    if set(os.listdir(staging)) <= {MANIFEST}:
        # Empty, or killed while writing the manifest (it is written first, so nothing else is there).
        (staging / MANIFEST).unlink(missing_ok=True)
        staging.rmdir()
        return
    listed = _listed(staging)
    if listed is None or _foreign_entries(staging, set(listed) | {MANIFEST}):
        raise UtvmError(f"refusing to use {staging}: it holds files utvm-build did not write; remove it")
    _remove_listed(staging, listed)


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive lock on the directory ``path`` (POSIX): two runs never stage at once."""
    try:
        import fcntl
    except ImportError:   # pragma: no cover - Windows
        yield
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise UtvmError(f"another utvm-build run is writing {path.parent} now") from None
        yield
    finally:
        os.close(fd)


def _exchange(a: Path, b: Path) -> bool:
    """Swap two directories atomically. False when this system cannot (the caller falls back)."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        fn = getattr(libc, "renameat2", None)
        if fn is not None:
            at_fdcwd, rename_exchange = -100, 2
            if fn(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
                return True
            err = ctypes.get_errno()
            if err not in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):
                raise OSError(err, os.strerror(err), str(b))
    elif sys.platform == "darwin":
        libc = ctypes.CDLL(None, use_errno=True)
        fn = getattr(libc, "renamex_np", None)
        if fn is not None:
            rename_swap = 2
            if fn(os.fsencode(a), os.fsencode(b), rename_swap) == 0:
                return True
            err = ctypes.get_errno()
            if err not in (errno.EINVAL, errno.ENOTSUP):
                raise OSError(err, os.strerror(err), str(b))
    return False


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _write_file(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "xb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def _same_file(path: Path, data: bytes) -> bool:
    try:
        return path.is_file() and not path.is_symlink() and path.stat().st_size == len(data) \
            and path.read_bytes() == data
    except OSError:
        return False


def _check_target(out: Path) -> None:
    if out.is_symlink():
        raise UtvmError(f"refusing to write into {out}: it is a symlink (give the directory it points to, "
                        "or a new directory)")
    if out.exists() and not out.is_dir():
        raise UtvmError(f"refusing to write into {out}: it exists and is not a directory")
    cwd = Path.cwd().resolve()
    real = out.resolve()
    if real == cwd or real in cwd.parents:
        raise UtvmError(f"refusing to write into {out}: it is the current directory or one of its parents; "
                        "give a new directory for the generated code (e.g. -o gen)")


def write_output(out_dir: str | Path, files: dict[str, bytes], *, incremental: bool = False) -> list[str]:
    """Make ``out_dir`` hold exactly ``files`` (plus the manifest); see the module docstring.

    Returns the relative paths whose content was (re)written; with ``incremental`` and nothing
    changed, the directory is not touched at all. Raises UtvmError (one line) on refusal or an OS
    error; the old directory is then intact.
    """
    for rel in files:
        _check_relative(rel)
    files = dict(files)
    files[MANIFEST] = manifest_bytes(list(files))
    out = Path(os.path.abspath(out_dir))
    try:
        return _write_output(out, files, incremental)
    except OSError as e:
        where = f" ({e.filename})" if e.filename else ""
        raise UtvmError(f"cannot write the generated directory {out}: {e.strerror or e}{where}; "
                        "the previous output is unchanged") from None


def _write_output(out: Path, files: dict[str, bytes], incremental: bool) -> list[str]:
    _check_target(out)
    old = (_owned_files(out) or None) if out.exists() else None   # None: nothing of ours there
    staging = out.parent / f".{out.name}{_STAGING_SUFFIX}"
    _clear_staging(staging)
    changed = sorted(rel for rel, data in files.items()
                     if not (old is not None and rel in old and _same_file(out / rel, data)))
    if incremental and old is not None and not changed and set(old) == set(files):
        return []

    out.parent.mkdir(parents=True, exist_ok=True)
    staging.mkdir()
    swapped = False
    try:
        with _locked(staging):
            # The manifest first: whatever a kill leaves here is known to be ours.
            _write_file(staging / MANIFEST, files[MANIFEST])
            for rel, data in sorted(files.items()):
                if rel == MANIFEST:
                    continue
                if incremental and rel not in changed:
                    _keep(out / rel, staging / rel)
                else:
                    _write_file(staging / rel, data)
            _fsync_dir(staging)
            if old is None:
                if out.exists():   # a directory of empty folders at most: replaced
                    for root, _subdirs, _names in os.walk(out, topdown=False):
                        os.rmdir(root)
                os.rename(staging, out)
            elif not _exchange(staging, out):
                _swap_by_renames(staging, out)
            swapped = True
            _fsync_dir(out.parent)
    finally:
        # Before the swap: our half-written new files. After it: the old directory's files.
        if staging.is_dir() and not staging.is_symlink():
            listed = old if swapped else _read_manifest(staging)
            if listed is not None:
                _remove_listed(staging, listed)
    return changed if incremental else sorted(files)


def _keep(src: Path, dst: Path) -> None:
    """An unchanged file into the staging directory, timestamp kept (a hard link where possible)."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def _swap_by_renames(staging: Path, out: Path) -> None:
    """Fallback where no atomic exchange exists: two renames (a kill between them leaves the old
    directory in ``.<name>.utvm-old``, removed by the next run)."""
    old = out.parent / f".{out.name}.utvm-old"
    _clear_staging(old)
    os.rename(out, old)
    os.rename(staging, out)
    os.rename(old, staging)


# Names kept for callers of the earlier API.
def write_directory(out_dir: Path, files: dict[str, bytes]) -> None:
    write_output(out_dir, files)


def update_directory(out_dir: Path, files: dict[str, bytes]) -> list[str]:
    return write_output(out_dir, files, incremental=True)
