"""File-system primitives of every writer: no path component is trusted after it has been checked.

Every command that writes (``compile``, ``report``, ``rpc-server``, ``run --output-dir``, ``syslib``,
the SCons manifest cache) goes through this module (docs/output.md):

* A :class:`Dir` is an open directory. On POSIX it is a file descriptor and every operation is
  relative to it (``openat``, ``unlinkat``, ``renameat``, ``mkdirat``, ``linkat``), each path
  component below the directory the user named is opened with ``O_NOFOLLOW | O_DIRECTORY``: a
  component replaced by a symlink (or a file) while a run goes on makes the run stop with one line,
  and nothing the link leads to is read, written or deleted. Elsewhere the same operations check
  each component with ``lstat`` first (a narrower guarantee: there is no race-free equivalent).
* :func:`write_file` writes one file atomically: a temporary file beside it (``O_CREAT | O_EXCL |
  O_NOFOLLOW``, a fresh name), fsync, then a rename; over an existing file only when ``owned`` says
  utvm-build wrote it; never through a link; a directory as target is refused in one line.
* :func:`lock` serialises runs on one output (``flock`` on ``.<name>.utvm-lock`` beside it, which
  the holder deletes when it is done).
"""

from __future__ import annotations

import ctypes
import errno
import os
import secrets
import stat
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from .errors import UtvmError

#: openat() et al. with O_NOFOLLOW: the race-free implementation. False: lstat checks (Windows).
POSIX = (os.name == "posix" and os.open in os.supports_dir_fd and os.unlink in os.supports_dir_fd
         and hasattr(os, "O_NOFOLLOW") and hasattr(os, "O_DIRECTORY"))
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_BINARY = getattr(os, "O_BINARY", 0)

#: Seconds a run waits for another run writing the same output (UTVM_BUILD_LOCK_WAIT overrides).
DEFAULT_LOCK_WAIT = 300.0


class LinkError(UtvmError):
    """A path component is a symlink or not what it was (replaced during the run)."""


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "link"
    if stat.S_ISDIR(mode):
        return "dir"
    if stat.S_ISREG(mode):
        return "file"
    return "other"


class Dir:
    """An open directory; names given to its methods are single components (no ``/``)."""

    def __init__(self, fd: int | None, path: Path) -> None:
        self.fd = fd
        self.path = path

    # -- opening ----------------------------------------------------------------------------
    @classmethod
    def open(cls, path: str | os.PathLike, create: bool = False) -> Dir:
        """The directory ``path`` as the user named it (symlinks in it are the user's and followed);
        everything below it is then reached without following any link. ``create``: made first,
        with its parents."""
        p = Path(os.path.abspath(path))
        if create:
            p.mkdir(parents=True, exist_ok=True)
        if not POSIX:
            if not p.is_dir():
                raise NotADirectoryError(errno.ENOTDIR, "not a directory", str(p))
            return cls(None, p)
        return cls(os.open(p, os.O_RDONLY | _DIRECTORY | _CLOEXEC), p)

    def child(self, name: str, create: bool = False) -> Dir:
        """The subdirectory ``name`` (made when ``create``); LinkError when it is a symlink or not a
        directory."""
        _check_name(name)
        if create:
            try:
                if POSIX:
                    os.mkdir(name, 0o777, dir_fd=self.fd)
                else:
                    os.mkdir(self.path / name)
            except FileExistsError:
                pass
        if not POSIX:
            p = self.path / name
            if p.is_symlink() or not p.is_dir():
                raise self._link_error(name)
            return Dir(None, p)
        try:
            fd = os.open(name, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=self.fd)
        except OSError as e:
            if e.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                raise self._link_error(name) from None
            raise
        return Dir(fd, self.path / name)

    def descend(self, parts: list[str] | tuple[str, ...], create: bool = False) -> Dir:
        """The directory ``self/parts[0]/parts[1]/...``, each component opened without following links.
        Returns a new Dir (close it) even for no parts."""
        d = self.dup()
        for part in parts:
            try:
                nxt = d.child(part, create)
            finally:
                d.close()
            d = nxt
        return d

    def dup(self) -> Dir:
        return Dir(os.dup(self.fd) if self.fd is not None else None, self.path)

    def _link_error(self, name: str) -> LinkError:
        return LinkError(f"refusing to use {self.path / name}: it is a symlink or not a directory (was it "
                         "replaced while utvm-build was writing?); nothing it leads to was touched")

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def __enter__(self) -> Dir:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- inspecting -------------------------------------------------------------------------
    def lstat(self, name: str) -> os.stat_result | None:
        """``lstat`` of ``name`` in this directory (links not followed); None when it does not exist."""
        _check_name(name)
        try:
            if POSIX:
                return os.stat(name, dir_fd=self.fd, follow_symlinks=False)
            return os.lstat(self.path / name)
        except FileNotFoundError:
            return None

    def kind(self, name: str) -> str | None:
        """'file', 'dir', 'link' or 'other'; None when ``name`` does not exist."""
        st = self.lstat(name)
        return None if st is None else _kind(st.st_mode)

    def entries(self) -> list[tuple[str, str]]:
        """(name, kind) of every entry, sorted; symlinks are 'link', never followed."""
        out = []
        with os.scandir(self.fd if POSIX else self.path) as it:
            for e in it:
                st = e.stat(follow_symlinks=False)
                out.append((e.name, _kind(st.st_mode)))
        return sorted(out)

    def read(self, name: str, limit: int | None = None) -> bytes | None:
        """The content of the regular file ``name`` (at most ``limit`` bytes); None when it does not
        exist or is anything else (a symlink, a folder, a FIFO)."""
        _check_name(name)
        if POSIX:
            try:
                fd = os.open(name, os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC, dir_fd=self.fd)
            except OSError as e:
                if e.errno in (errno.ENOENT, errno.ELOOP, errno.EISDIR, errno.ENXIO, errno.EMLINK):
                    return None
                raise
        else:
            p = self.path / name
            if p.is_symlink() or not p.is_file():
                return None
            fd = os.open(p, os.O_RDONLY | _BINARY)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            with os.fdopen(os.dup(fd), "rb") as f:
                return f.read() if limit is None else f.read(limit)
        finally:
            os.close(fd)

    def listdir(self) -> list[str]:
        return [n for n, _ in self.entries()]

    # -- changing ---------------------------------------------------------------------------
    def create(self, name: str, data: bytes, mode: int = 0o644) -> None:
        """A new regular file (fails if anything, a symlink included, is there), fsynced."""
        _check_name(name)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC | _BINARY
        fd = os.open(name, flags, mode, dir_fd=self.fd) if POSIX else os.open(self.path / name, flags, mode)
        try:
            view = memoryview(data)
            while view:
                n = os.write(fd, view)
                view = view[n:]
            os.fsync(fd)
        finally:
            os.close(fd)

    def mkdir(self, name: str) -> None:
        _check_name(name)
        if POSIX:
            os.mkdir(name, 0o777, dir_fd=self.fd)
        else:
            os.mkdir(self.path / name)

    def unlink_file(self, name: str) -> bool:
        """Delete ``name`` if it is a regular file (never a link's target: unlinkat removes names)."""
        if self.kind(name) != "file":
            return False
        if POSIX:
            os.unlink(name, dir_fd=self.fd)
        else:
            os.unlink(self.path / name)
        return True

    def rmdir(self, name: str) -> None:
        """Remove the empty directory ``name`` (OSError when it is not empty or not a directory)."""
        _check_name(name)
        if POSIX:
            os.rmdir(name, dir_fd=self.fd)
        else:
            if (self.path / name).is_symlink():
                raise NotADirectoryError(errno.ENOTDIR, "a symlink", str(self.path / name))
            os.rmdir(self.path / name)

    def rename(self, name: str, dst: Dir, dst_name: str) -> None:
        """Rename (replacing a file at the destination, as rename(2)); links are moved, not followed."""
        _check_name(name)
        _check_name(dst_name)
        if POSIX:
            os.rename(name, dst_name, src_dir_fd=self.fd, dst_dir_fd=dst.fd)
        else:
            os.replace(self.path / name, dst.path / dst_name)

    def link(self, name: str, dst: Dir, dst_name: str) -> None:
        """A hard link ``dst/dst_name`` to the file ``name`` (fails if the destination exists)."""
        _check_name(name)
        _check_name(dst_name)
        if POSIX:
            os.link(name, dst_name, src_dir_fd=self.fd, dst_dir_fd=dst.fd, follow_symlinks=False)
        else:
            os.link(self.path / name, dst.path / dst_name)

    def exchange(self, a: str, b: str) -> bool:
        """Swap the entries ``a`` and ``b`` atomically; False when the system cannot."""
        _check_name(a)
        _check_name(b)
        if not POSIX:
            return False
        if sys.platform.startswith("linux"):
            fn = getattr(_libc(), "renameat2", None)
            flag = 2   # RENAME_EXCHANGE
        elif sys.platform == "darwin":
            fn = getattr(_libc(), "renameatx_np", None)
            flag = 2   # RENAME_SWAP
        else:
            fn = None
        if fn is None:
            return False
        fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
        if fn(self.fd, os.fsencode(a), self.fd, os.fsencode(b), flag) == 0:
            return True
        err = ctypes.get_errno()
        if err in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
            return False
        raise OSError(err, os.strerror(err), str(self.path / b))

    def fsync(self) -> None:
        if self.fd is None:
            return
        try:
            os.fsync(self.fd)
        except OSError:
            pass


def _check_name(name: str) -> None:
    if not name or name in (".", "..") or "/" in name or (os.sep != "/" and os.sep in name) or "\0" in name:
        raise ValueError(f"not a single path component: {name!r}")


_LIBC: list = []


def _libc() -> ctypes.CDLL:
    if not _LIBC:
        _LIBC.append(ctypes.CDLL(None, use_errno=True))
    return _LIBC[0]


def walk(top: Dir) -> Iterator[tuple[str, Dir, list[tuple[str, str]]]]:
    """(relative path, Dir, entries) for ``top`` and every directory below it, top-down, links never
    followed. The caller may remove 'dir' entries from the list to skip them. Each directory is
    reopened from ``top`` component by component (O_NOFOLLOW), so at most a few descriptors are open."""
    stack: list[str] = [""]
    while stack:
        rel = stack.pop()
        with top.descend(rel.split("/") if rel else []) as d:
            entries = d.entries()
            yield rel, d, entries
            stack += sorted((f"{rel}/{n}" if rel else n for n, k in entries if k == "dir"), reverse=True)


def remove_empty_dirs(top: Dir, keep_top: bool = True) -> None:
    """Remove the directories below ``top`` that hold nothing (deepest first); never a file."""
    dirs = [rel for rel, _, _ in walk(top) if rel]
    for rel in sorted(dirs, key=lambda r: r.count("/"), reverse=True):
        parts = rel.split("/")
        try:
            with top.descend(parts[:-1]) as parent:
                parent.rmdir(parts[-1])
        except (OSError, LinkError):
            pass


@contextmanager
def lock(parent: Dir, name: str, what: str, wait: float | None = None) -> Iterator[None]:
    """Hold the lock of the output ``parent/name`` (``.<name>.utvm-lock``). A second run prints one
    line (``another utvm-build run is writing ...; waiting``) and waits up to ``wait`` seconds
    (default $UTVM_BUILD_LOCK_WAIT or 300), then stops with one line (UtvmError, exit 2)."""
    try:
        import fcntl
    except ImportError:   # pragma: no cover - Windows: no advisory lock
        fcntl = None
    if fcntl is None or parent.fd is None:   # pragma: no cover - no flock / no directory descriptors
        yield
        return
    if wait is None:
        try:
            wait = float(os.environ.get("UTVM_BUILD_LOCK_WAIT", DEFAULT_LOCK_WAIT))
        except ValueError:
            wait = DEFAULT_LOCK_WAIT
    lname = f".{name}.utvm-lock"
    deadline = time.monotonic() + wait
    told = False
    while True:
        try:
            fd = os.open(lname, os.O_RDWR | os.O_CREAT | _NOFOLLOW | _NONBLOCK | _CLOEXEC, 0o644, dir_fd=parent.fd)
        except OSError as e:
            if e.errno in (errno.ELOOP, errno.EISDIR, errno.ENXIO, errno.EMLINK):
                raise UtvmError(f"refusing to write {what}: {parent.path / lname} is not a lock file "
                                "utvm-build made (remove it)") from None
            raise
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size != 0:
            os.close(fd)
            raise UtvmError(f"refusing to write {what}: {parent.path / lname} is not a lock file utvm-build "
                            "made (remove it)")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            if time.monotonic() >= deadline:
                raise UtvmError(f"another utvm-build run is writing {what} now (waited {wait:g} s); "
                                "run again when it has finished") from None
            if not told:
                print(f"utvm-build: another utvm-build run is writing {what}; waiting for it (at most {wait:g} s)",
                      file=sys.stderr, flush=True)
                told = True
            time.sleep(0.05)
            continue
        # The holder before us deletes the file when done: make sure ours is still the one there.
        now = parent.lstat(lname)
        if now is None or (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
            os.close(fd)
            continue
        break
    try:
        yield
    finally:
        try:   # deleted while still held, so a waiting run's check above sees a new file
            os.unlink(lname, dir_fd=parent.fd)
        except OSError:
            pass
        os.close(fd)


def _split_target(path: str | os.PathLike, what: str) -> tuple[Path, str]:
    """(parent, name) of a file to write; one line when ``path`` names a directory."""
    raw = os.fspath(path)
    p = Path(os.path.abspath(raw))
    if raw.endswith(("/", os.sep)) or not p.name or p.is_dir():
        raise UtvmError(f"refusing to write {what} {raw}: it is a directory; give a file name "
                        f"(e.g. {Path(raw) / 'out'})")
    return p.parent, p.name


def check_file_target(path: str | os.PathLike, *, owned: Callable[[bytes], bool], what: str = "") -> None:
    """What :func:`write_file` would refuse, checked before the work that makes the file (one line)."""
    what = what or "the file"
    parent_path, name = _split_target(path, what)
    if not parent_path.is_dir():
        return   # made by write_file
    with Dir.open(parent_path) as parent:
        _check_existing(parent, name, None, owned, what, os.fspath(path))


def _check_existing(parent: Dir, name: str, data: bytes | None, owned: Callable[[bytes], bool], what: str,
                    shown: str) -> tuple[bool, bool]:
    """(exists, unchanged) of the file ``parent/name``; UtvmError unless it is absent or ours."""
    st = parent.lstat(name)
    if st is None:
        return False, False
    kind = _kind(st.st_mode)
    if kind == "link":
        raise UtvmError(f"refusing to write {what} {shown}: it is a symlink (give a new file name)")
    if kind == "dir":
        raise UtvmError(f"refusing to write {what} {shown}: it is a directory; give a file name")
    if kind != "file":
        raise UtvmError(f"refusing to write {what} {shown}: it is not a regular file")
    old = parent.read(name)
    if old is None:
        raise LinkError(f"refusing to write {what} {shown}: it changed while utvm-build was writing")
    if data is not None and old == data:
        return True, True
    if not owned(old):
        raise UtvmError(f"refusing to overwrite {shown}: utvm-build did not write it (give a new file name)")
    return True, False


def write_file(path: str | os.PathLike, data: bytes, *, owned: Callable[[bytes], bool], what: str = "",
               mode: int = 0o644, unchanged_ok: bool = True) -> bool:
    """Write ``path`` atomically with ``data``: only where nothing is, or over a regular file for
    which ``owned(content)`` is True (one utvm-build wrote); never through a symlink. Returns False
    when the file already held ``data`` (left untouched when ``unchanged_ok``). One-line UtvmError
    on refusal; OSError on an I/O failure (the old file is then intact)."""
    what = what or "the file"
    parent_path, name = _split_target(path, what)
    with Dir.open(parent_path, create=True) as parent:
        exists, same = _check_existing(parent, name, data, owned, what, os.fspath(path))
        if same and unchanged_ok and _mode_ok(parent, name, mode):
            return False
        install(parent, name, data, mode, replace=exists, what=f"{what} {os.fspath(path)}")
    return True


def _mode_ok(parent: Dir, name: str, mode: int) -> bool:
    st = parent.lstat(name)
    return st is not None and (st.st_mode & 0o111 != 0) == (mode & 0o111 != 0)


def install(parent: Dir, name: str, data: bytes, mode: int = 0o644, *, replace: bool, what: str) -> None:
    """``data`` as ``parent/name``, atomically: a fresh temporary file beside it, fsync, then a rename
    over the old file (``replace``) or a link that fails if anything appeared there."""
    tmp = _temp_name(name)
    parent.create(tmp, data, mode)
    try:
        if not replace:
            try:
                parent.link(tmp, parent, name)
            except FileExistsError:
                raise UtvmError(f"refusing to write {what}: it appeared while utvm-build was writing it") from None
            except OSError as e:
                if e.errno not in (errno.EPERM, errno.EXDEV, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK,
                                   errno.ENOSYS, errno.EACCES):
                    raise
                if parent.lstat(name) is not None:   # no hard links here (FAT, some mounts)
                    raise UtvmError(f"refusing to write {what}: it appeared while utvm-build was writing it") from None
                parent.rename(tmp, parent, name)
                tmp = ""
        else:
            parent.rename(tmp, parent, name)
            tmp = ""
        parent.fsync()
    finally:
        if tmp:
            try:
                parent.unlink_file(tmp)
            except OSError:
                pass


def _temp_name(name: str) -> str:
    """A fresh hidden name beside ``name``: created with O_EXCL, so a planted file or link of that
    name (``.<name>.utvm-tmp`` included) is never opened or followed."""
    return f".{name}.{secrets.token_hex(6)}.utvm-tmp"


def owned_by_prefix(*prefixes: bytes, within: int = 512) -> Callable[[bytes], bool]:
    """``owned`` for :func:`write_file`: the file begins with (or, within its first ``within`` bytes,
    contains) one of ``prefixes``."""
    return lambda data: any(p in data[:within] for p in prefixes)


def owned_by_suffix(marker: bytes) -> Callable[[bytes], bool]:
    """``owned`` for binaries that carry ``marker`` as their last bytes (ELF loaders ignore bytes
    after the last section, so a program stays runnable with it appended)."""
    return lambda data: data.endswith(marker)


_RECORD_KIND = "utvm-build written files"


def write_recorded(directory: str | os.PathLike, files: dict[str, bytes], *, record: str, what: str) -> None:
    """Write ``files`` (single names) into ``directory`` (created), for formats that cannot carry a
    mark of their own (.npy): the hidden ``record`` file lists the SHA-256 of each file written
    there, and an existing file is replaced only when its content is what the record says we wrote.
    Each file is written atomically; the record is updated before (old and new digests) and after."""
    import hashlib
    import json

    def digest(b: bytes) -> str:
        return hashlib.sha256(b).hexdigest()

    out = Path(os.path.abspath(directory))
    shown = os.fspath(directory)
    if not out.name:
        raise UtvmError(f"refusing to write {what} into {shown}: give a new directory")
    with Dir.open(out.parent, create=True) as parent:
        kind = parent.kind(out.name)
        if kind == "link":
            raise UtvmError(f"refusing to write {what} into {shown}: it is a symlink (give the directory it "
                            "points to, or a new directory)")
        if kind not in (None, "dir"):
            raise UtvmError(f"refusing to write {what} into {shown}: it exists and is not a directory")
        # The lock lives inside the directory (`--output-dir .` must not need a writable parent).
        with parent.child(out.name, create=True) as d, lock(d, record.strip(".").removesuffix(".json"), shown):
            rkind = d.kind(record)
            rec: dict[str, list[str]] = {}
            if rkind is not None:
                doc = None
                try:
                    raw = d.read(record, limit=1 << 20)
                    doc = json.loads(raw) if raw is not None else None
                except ValueError:
                    pass
                if not (isinstance(doc, dict) and doc.get("kind") == _RECORD_KIND
                        and isinstance(doc.get("files"), dict)):
                    raise UtvmError(f"refusing to write {what} into {shown}: {record} there is not utvm-build's")
                rec = {k: [h for h in v if isinstance(h, str)] for k, v in doc["files"].items()
                       if isinstance(k, str) and isinstance(v, list)}
            exists = {}
            for name in files:
                _check_name(name)
                old_kind = d.kind(name)
                exists[name] = old_kind is not None
                if old_kind is None:
                    continue
                old = d.read(name) if old_kind == "file" else None
                if old is None or digest(old) not in rec.get(name, []):
                    raise UtvmError(f"refusing to overwrite {out / name}: utvm-build did not write it "
                                    "(give a new --output-dir)")

            def save(entries: dict[str, list[str]]) -> None:
                body = json.dumps({"kind": _RECORD_KIND, "files": entries}, indent=1, sort_keys=True) + "\n"
                install(d, record, body.encode(), replace=d.kind(record) is not None, what=f"{out / record}")

            save({**rec, **{n: sorted({*rec.get(n, []), digest(b)}) for n, b in files.items()}})
            for name, data in sorted(files.items()):
                install(d, name, data, replace=exists[name], what=f"{what} {out / name}")
            save({**rec, **{n: [digest(b)] for n, b in files.items()}})
