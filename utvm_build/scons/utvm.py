"""SCons tool ``utvm``: TensorFlow Lite models -> ahead-of-time C, built with the environment's toolchain.

    import subprocess
    TOOLPATH = subprocess.check_output(['python3', '-m', 'utvm_build', '--scons-toolpath'], text=True).strip()
    env = Environment(tools=['default', 'utvm'], toolpath=[TOOLPATH])
    kws = env.UtvmModel('kws', 'kws.tflite')
    env.Program('firmware', ['main.c'], **env.UtvmUsage(kws))

Methods: ``UtvmModel`` (a model's static library), ``UtvmModels`` (several models in one
firmware: a group), ``UtvmCrt`` (the C runtime of the build),
``UtvmUsage`` (CPPPATH and LIBS a program needs, with the system library of its packed models).
Documentation: docs/scons.md.

This file never imports ``utvm_build``: SCons may run under a Python that does not have it (or
its numpy). The code generator runs as a subprocess of ``$UTVM_PYTHON``, the Python that owns
the package this file ships in.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import os
import re
import subprocess
import sys
import traceback

import SCons.Action
import SCons.Builder
import SCons.Errors
import SCons.Util

_PKG = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))

#: The generated directory's list of the files the generator wrote (utvm_build/emit/output.py).
_MANIFEST = ".utvm-build-manifest.json"

# Keyword of UtvmModel -> option of `utvm-build compile` (the same set as the CMake function).
_CODEGEN_OPTIONS = {
    "name": "--name",
    "interface": "--interface",
    "workspace": "--workspace",
    "constants_section": "--constants-section",
    "workspace_section": "--workspace-section",
    "constants_align": "--constants-align",
    "workspace_align": "--workspace-align",
    "io": "--io",
    "state": "--state",
    "memory": "--memory",
    "ram_limit": "--ram-limit",
    "optimize_for": "--optimize",   # `optimize` is the C compile flags
    "cpu": "--target",   # `target` is the library's name, as in StaticLibrary
}
#: Keyword (a bool) -> flag of `utvm-build compile` given when it is True.
_FLAG_OPTIONS = {"profile": "--profile"}
_BUILD_OPTIONS = ("optimize", "output_dir", "tuning")
# The accepted values of the options with a fixed set (utvm_build/options.py has the same sets).
_CHOICES = {"interface": ("c", "packed"), "workspace": ("static", "user"), "io": ("caller", "workspace"),
            "state": ("static", "user"), "memory": ("fast", "balanced", "min"),
            "optimize_for": ("speed", "balanced", "size"),
            "cpu": ("generic", "cortex-m0plus", "cortex-m3", "cortex-m4", "cortex-m7", "cortex-m33",
                    "cortex-m55", "cortex-m85", "cortex-m52")}
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(TVM_CRT_[A-Z0-9_]+)[ \t]+\(?([0-9]+)\)?[ \t]*(?:/[*/].*)?$")


def _version() -> str:
    """The version of the package this tool ships in (read, not imported)."""
    try:
        with open(os.path.join(_PKG, "__init__.py"), encoding="utf-8") as f:
            m = re.search(r"^__version__\s*=\s*[\"']([^\"']+)[\"']", f.read(), re.M)
        return m.group(1) if m else "unknown"
    except OSError:
        return "unknown"


_VERSION = _version()


def _one_line_errors(fn):  # noqa: ANN001, ANN201
    """The tool's errors as one line, ``scons: *** utvm: ...`` and exit status 2: SCons would add
    a line pointing into this file, which tells a user nothing."""
    @functools.wraps(fn)
    def call(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        try:
            return fn(*args, **kwargs)
        except SCons.Errors.UserError as e:
            if not str(e).startswith("utvm: "):
                raise
            sys.stderr.write(f"scons: *** {e}\n")
            sys.exit(2)
    return call


def _error(msg: str) -> SCons.Errors.UserError:
    """A UserError naming the SConscript line that called the tool (SCons itself shows this file)."""
    where = ""
    for frame in traceback.extract_stack()[::-1]:
        if os.path.realpath(frame.filename) != os.path.realpath(__file__) and \
                f"{os.sep}SCons{os.sep}" not in frame.filename:
            where = f" (called from {frame.filename}, line {frame.lineno})"
            break
    return SCons.Errors.UserError(f"utvm: {msg}{where}")


# ---- the Python that owns the package ------------------------------------------------------

def _default_python() -> str:
    """$UTVM_PYTHON from the OS environment; the running interpreter if it imports this very
    package; the interpreter of the environment the package is installed in; python3 on PATH."""
    if os.environ.get("UTVM_PYTHON"):
        return os.environ["UTVM_PYTHON"]
    try:
        spec = importlib.util.find_spec("utvm_build")
        if spec and spec.origin and os.path.dirname(os.path.realpath(spec.origin)) == _PKG and sys.executable:
            return sys.executable
    except (ImportError, ValueError):
        pass
    m = re.match(r"^(.*)[/\\][Ll]ib[/\\](?:python[0-9.]+[/\\])?site-packages[/\\]utvm_build$", _PKG)
    if m:
        for exe in ("bin/python3", "bin/python", "python.exe", "Scripts/python.exe"):
            candidate = os.path.join(m.group(1), exe)
            if os.path.isfile(candidate):
                return candidate
    for exe in ("python3", "python"):
        found = SCons.Util.WhereIs(exe)
        if found:
            return found
    return ""


_PROBES: dict[str, tuple[bool, str]] = {}


def _probe(python: str) -> tuple[bool, str]:
    """(True, version) if ``python`` imports a utvm_build of this tool's version, else (False, why)."""
    if python not in _PROBES:
        code = "import os, utvm_build; print(utvm_build.__version__); print(os.path.realpath(utvm_build.__file__))"
        try:
            p = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=120)
        except OSError as e:
            _PROBES[python] = (False, f"cannot run UTVM_PYTHON '{python}': {e.strerror}")
        else:
            if p.returncode != 0:
                last = (p.stderr.strip().splitlines() or ["(no output)"])[-1]
                _PROBES[python] = (False, f"UTVM_PYTHON '{python}' cannot import utvm_build: {last}")
            else:
                version, where = (p.stdout.splitlines() + ["", ""])[:2]
                if version != _VERSION:
                    _PROBES[python] = (False, f"version mismatch: this SCons tool is utvm_build {_VERSION} ({_PKG}), "
                                              f"but UTVM_PYTHON '{python}' imports utvm_build {version} "
                                              f"({os.path.dirname(where)})")
                else:
                    _PROBES[python] = (True, version)
    return _PROBES[python]


def _python(env) -> str:
    python = env.subst("$UTVM_PYTHON")
    if not python:
        raise _error("no Python interpreter found to run the code generator; set the construction variable "
                     "UTVM_PYTHON (or the environment variable) to the Python that has utvm-build installed")
    return python


def _hint() -> str:
    return ("set UTVM_PYTHON (construction variable or environment variable) to the Python that has this "
            f"utvm-build installed, e.g. Environment(tools=['default', 'utvm'], UTVM_PYTHON='{sys.executable}')")


# ---- per-build state: one C runtime per $UTVM_DIR ------------------------------------------

def _state(env) -> dict:
    # Kept on the file system object, which all environments of a build share.
    states = env.fs.__dict__.setdefault("_utvm_states", {})
    d = env.Dir("$UTVM_DIR")
    return states.setdefault(d.get_abspath(), {"dir": d, "crt": None, "merged": None, "host": None,
                                                "crt_include": None, "configs": [], "names": {}, "dirs": {},
                                                "syslibs": {}})


def _paths_module():
    """utvm_build/paths.py loaded on its own (it imports nothing but the standard library)."""
    spec = importlib.util.spec_from_file_location("_utvm_build_paths", os.path.join(_PKG, "paths.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _crt_dir() -> str:
    try:
        return str(_paths_module().crt_dir())
    except (OSError, FileNotFoundError, AttributeError) as e:
        raise _error(f"the C runtime sources are missing ({e}); reinstall utvm-build") from None


# ---- files: what the tool reads, writes and deletes (docs/output.md) ------------------------

_CACHE_KIND = "utvm scons manifest cache"


def _safe_rel(rel) -> bool:  # noqa: ANN001
    """A manifest entry the tool may declare or delete: a relative path inside the generated
    directory (not absolute, no drive, no '..', no SCons '#' top-relative path, no backslash)."""
    if not isinstance(rel, str) or not rel or rel.startswith(("#", "/")) or "\\" in rel or "\0" in rel \
            or re.match(r"^[A-Za-z]:", rel):
        return False
    parts = rel.split("/")
    return all(p not in ("", ".", "..") for p in parts)


def _read_json(path: str, limit: int = 1 << 24):  # noqa: ANN201
    """The JSON document in the regular file ``path`` (never through a symlink); None if unreadable."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        import stat

        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(os.dup(fd), "rb") as f:
            return json.loads(f.read(limit))
    except (OSError, ValueError):
        return None
    finally:
        os.close(fd)


def _write_own(path: str, data: bytes, owned) -> None:  # noqa: ANN001
    """Write ``path`` atomically (a fresh temporary file beside it, O_EXCL|O_NOFOLLOW, fsync, rename):
    only where nothing is or over a regular file ``owned(content)`` accepts; never through a link."""
    import secrets
    import stat

    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    if st is not None:
        if not stat.S_ISREG(st.st_mode):
            raise _error(f"refusing to write {path}: it is a symlink or not a regular file")
        with open(path, "rb") as f:
            if not owned(f.read(1 << 24)):
                raise _error(f"refusing to overwrite {path}: the utvm tool did not write it")
    folder, name = os.path.split(path)
    os.makedirs(folder, exist_ok=True)
    tmp = os.path.join(folder, f".{name}.{secrets.token_hex(6)}.utvm-tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)   # replaces the name; never follows a link there
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _valid_manifest(manifest) -> bool:  # noqa: ANN001
    """A manifest (from the cache, which anyone could have edited) whose paths all stay inside."""
    try:
        meta = manifest["metadata"]
        paths = [*manifest["files"], *meta["sources"], *meta["include_dirs"]]
    except (KeyError, TypeError):
        return False
    return all(_safe_rel(p) for p in paths) and isinstance(meta.get("name"), str)


# ---- code generation -----------------------------------------------------------------------

_MCPU = re.compile(r"^-mcpu=([a-z0-9.+-]+)$")
_DERIVABLE = ("cortex-m0plus", "cortex-m3", "cortex-m4", "cortex-m7", "cortex-m33", "cortex-m55", "cortex-m85",
              "cortex-m52")


def _derive_cpu(flags: list[str]) -> str | None:
    """The kernel CPU named by the ``-mcpu=`` of ``flags`` when exactly one known CPU is named
    there, else None (the generic kernels); the same rule as CMake's _utvm_derive_target:
    ``+nodsp`` gives the generic kernels, ``+nomve`` on an M55/M85/M52 the Armv8-M DSP kernels
    (cortex-m33)."""
    cpus = []
    for flag in flags:
        m = _MCPU.match(str(flag))
        if not m:
            continue
        parts = m.group(1).split("+")
        cpu = parts[0]
        if "nomve" in parts[1:] and cpu in ("cortex-m55", "cortex-m85", "cortex-m52"):
            cpu = "cortex-m33"  # Helium removed: the Armv8-M DSP kernels
        if "nodsp" in parts[1:]:
            cpu = ""
        if cpu not in cpus:
            cpus.append(cpu)
    return cpus[0] if len(cpus) == 1 and cpus[0] in _DERIVABLE else None


def _compile_flags(env, kw: dict) -> list[str]:  # noqa: ANN001
    """The flags the model's sources are compiled with: the environment's CCFLAGS and CFLAGS (or
    the overrides' in ``kw``), then ``optimize``."""
    flags: list[str] = []
    for var in ("CCFLAGS", "CFLAGS"):
        value = kw[var] if var in kw else env.get(var, [])
        flags += _flat(env.subst(value) if isinstance(value, str) else [env.subst(str(v)) for v in _flat(value)])
    return flags + [str(v) for v in _flat(kw.get("optimize") or [])]


def _with_derived_cpu(env, kw: dict) -> dict:  # noqa: ANN001
    """``kw`` with ``cpu`` derived from the flags the model's sources are compiled with when it is
    not given."""
    if kw.get("cpu") is not None:
        return kw
    cpu = _derive_cpu(_compile_flags(env, kw))
    return {**kw, "cpu": cpu} if cpu else kw


_FRAME_POINTER = ("-fno-omit-frame-pointer", "-fomit-frame-pointer")


def _keeps_frame_pointer(flags: list[str]) -> bool:
    """Whether the last of -fno-omit-frame-pointer / -fomit-frame-pointer in ``flags`` keeps it."""
    last = [f for f in map(str, flags) if f in _FRAME_POINTER]
    return bool(last) and last[-1] == _FRAME_POINTER[0]


def _guard_frame_pointer(menv) -> None:  # noqa: ANN001
    """A build that keeps the frame pointer reserves r7, which one Helium assembly block needs: the
    model's sources get UTVM_FRAME_POINTER, and that block its C form (as CMake's
    _utvm_frame_pointer_guard; docs/kernel-guide.md, "C rules")."""
    if _keeps_frame_pointer(_compile_flags(menv, {})):
        menv.Append(CPPDEFINES=["UTVM_FRAME_POINTER"])


def _codegen_args(options: dict, what: str) -> list[str]:
    args = []
    for key, flag in _CODEGEN_OPTIONS.items():
        if key in options and options[key] is not None:
            value = options[key]
            if key.endswith("_align"):
                if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 4096 \
                        or value & (value - 1):
                    raise _error(f"{what}: {key}={value!r}: expected a power of two from 1 to 4096")
            elif key == "ram_limit":
                if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                    raise _error(f"{what}: {key}={value!r}: expected a number of bytes")
            elif key in _CHOICES and value not in _CHOICES[key]:
                raise _error(f"{what}: {key}={value!r}: expected one of {', '.join(map(repr, _CHOICES[key]))}")
            elif not isinstance(value, str):
                raise _error(f"{what}: {key} must be a string, not {value!r}")
            args.append(f"{flag}={value}")
    for key, flag in _FLAG_OPTIONS.items():
        value = options.get(key, False)
        if not isinstance(value, bool):
            raise _error(f"{what}: {key}={value!r}: expected True or False")
        if value:
            args.append(flag)
    return args


def _run_generator(python: str, argv: list[str], what: str, failed: str) -> dict:
    """`python -m utvm_build <argv>` (manifest / compile-group --manifest): its JSON manifest, after
    checking that the generator ran and is this tool's version (one-line errors otherwise)."""
    try:
        p = subprocess.run([python, "-m", "utvm_build", *argv], capture_output=True, text=True, timeout=600)
    except OSError as e:
        raise _error(f"{what}: cannot run UTVM_PYTHON '{python}': {e.strerror}; {_hint()}") from None
    if p.returncode != 0:
        ok, why = _probe(python)
        if not ok:
            raise _error(f"{what}: {why}; {_hint()}")
        detail = (p.stderr.strip() or p.stdout.strip() or f"exit code {p.returncode}").splitlines()[-1]
        raise _error(f"{what}: {failed}: {detail}")
    manifest = json.loads(p.stdout)
    version = manifest["metadata"].get("generator_version")
    if version != _VERSION:
        raise _error(f"{what}: version mismatch: this SCons tool is utvm_build {_VERSION} ({_PKG}), but "
                     f"UTVM_PYTHON '{python}' runs utvm_build {version}; {_hint()}")
    return manifest


def _manifest(python: str, model: str, args: list[str], cache: str, what: str) -> dict:
    """Files and metadata of the generated directory, from ``utvm-build manifest`` (in memory, writes
    nothing). Cached in ``cache`` under the model's hash, the options, the Python and the version."""
    try:
        with open(model, "rb") as f:
            data = f.read()
    except OSError as e:
        raise _error(f"{what}: cannot read the model {model}: {e.strerror}") from None
    key = {"python": python, "version": _VERSION, "model": os.path.basename(model),
           "sha256": hashlib.sha256(data).hexdigest(), "args": args}
    tuning = [a.split("=", 1)[1] for a in args if a.startswith("--tuning=")]
    if tuning:   # the record's content decides the generated C too
        try:
            with open(tuning[0], "rb") as f:
                key["tuning_sha256"] = hashlib.sha256(f.read()).hexdigest()
        except OSError as e:
            raise _error(f"{what}: cannot read the tuning record {tuning[0]}: {e.strerror}") from None
    cached = _read_json(cache)
    if isinstance(cached, dict) and cached.get("kind") == _CACHE_KIND and cached.get("key") == key \
            and _valid_manifest(cached.get("manifest")):
        return cached["manifest"]
    manifest = _run_generator(python, ["manifest", model, *args], what, f"code generation failed for {model}")
    if not _valid_manifest(manifest):
        raise _error(f"{what}: the code generator listed a file outside its directory")
    body = json.dumps({"kind": _CACHE_KIND, "key": key, "manifest": manifest}, sort_keys=True).encode()
    try:
        _write_own(cache, body, lambda old: _is_cache(old))
    except OSError as e:
        raise _error(f"{what}: cannot write the manifest cache {cache}: {e.strerror or e}") from None
    return manifest


def _is_cache(data: bytes) -> bool:
    """A manifest cache the tool wrote (this version's, or one from before it had a kind)."""
    try:
        doc = json.loads(data)
    except ValueError:
        return False
    return isinstance(doc, dict) and set(doc) <= {"kind", "key", "manifest"} and "manifest" in doc


def _codegen_emitter(target, source, env):
    """Declares every file of the generated directory (from the manifest, never a glob) as a target;
    the model, the options (in the command line) and the generator version are the dependencies."""
    out = env["UTVM_OUT"]
    manifest = _manifest(env["UTVM_PYTHON_RESOLVED"], source[0].srcnode().get_abspath(), env["UTVM_ARGS_RAW"],
                         env["UTVM_MANIFEST_CACHE"], env["UTVM_WHAT"])
    files = [out.File(rel) for rel in manifest["files"]]
    for node in files:
        node.attributes.utvm_manifest = manifest
    # SCons must not delete them before the generator runs: the generator replaces them itself,
    # atomically, and keeps unchanged files as they are.
    env.Precious(files)
    deps = [source[0], env.Value(f"utvm_build {_VERSION}")]
    if env.get("UTVM_TUNING"):
        deps.append(env.File(env["UTVM_TUNING"]))
    return files, deps


_CODEGEN = SCons.Builder.Builder(
    action=SCons.Action.Action(
        [["$UTVM_PYTHON", "-m", "utvm_build", "compile", "$SOURCE", "-o", "$UTVM_OUT", "--incremental",
          "$UTVM_ARGS"]],
        cmdstr="$UTVM_COMSTR"),
    emitter=_codegen_emitter,
)


def _generated_files(out) -> list:
    """The files an earlier run of the generator wrote into ``out``, from its manifest (never the
    directory itself: anything else in it is not ours to delete)."""
    doc = _read_json(os.path.join(out.get_abspath(), _MANIFEST))
    if not isinstance(doc, dict) or doc.get("kind") != "utvm-build generated directory" \
            or not isinstance(doc.get("files"), list):
        return []
    # Only relative, in-directory entries: never an absolute path, '..' or SCons' '#' (the top).
    return [out.File(rel) for rel in doc["files"] if _safe_rel(rel)]


def _prune_later(env, *folders: str) -> None:
    """At the end of the SCons run, remove these folders if they are empty: a generated directory's
    folders (SCons makes them for the targets before the generator runs, so a refused generation
    would leave them), the objects' folders and $UTVM_DIR's. Only folders this build made (under
    `scons -c`: those of the tool's files), never the project's top or a folder above it."""
    reg = env.fs.__dict__.setdefault("_utvm_prune", {})
    if not reg:
        import atexit

        atexit.register(_prune, reg, env.Dir("#").get_abspath(), bool(env.GetOption("clean")))
    for d in folders:
        reg.setdefault(os.path.abspath(d), os.path.isdir(d))   # value: it existed before this run


def _prune(reg: dict, top: str, clean: bool) -> None:
    for d in sorted(reg, key=lambda p: p.count(os.sep), reverse=True):
        if d == top or top.startswith(d.rstrip(os.sep) + os.sep) or os.path.islink(d):
            continue
        if reg[d] and not clean:
            continue   # there before this build: not ours to remove
        try:
            os.rmdir(d)   # only when empty
        except OSError:
            pass


def _model_folders(out, work, st, files) -> list:  # noqa: ANN001
    """The folders of a model: its generated directory and the folders of its files, its objects'
    folder and $UTVM_DIR."""
    folders = {out.get_abspath(), work.get_abspath(), st["dir"].get_abspath()}
    for rel in ["src/kernels/x", "include/x", *files]:
        if _safe_rel(rel):
            parts = rel.split("/")[:-1]
            for k in range(1, len(parts) + 1):
                folders.add(os.path.join(out.get_abspath(), *parts[:k]))
    return sorted(folders)


def _cached_objects(env, work) -> list:
    """The object files of the last good build, named after the sources in the manifest cache."""
    doc = _read_json(work.File("manifest.json").get_abspath())
    try:
        sources = doc["manifest"]["metadata"]["sources"]
    except (KeyError, TypeError):
        return []
    suffix = env.subst("$OBJSUFFIX")
    return [work.File(os.path.splitext(os.path.basename(s))[0] + suffix) for s in sources if _safe_rel(s)]


def _need_c_builders(env, what: str) -> None:
    for b in ("Object", "StaticLibrary"):
        if b not in env["BUILDERS"]:
            raise _error(f"{what}: the environment has no {b} builder; load a C toolchain too: "
                         "Environment(tools=['default', 'utvm'], ...)")


def _flat(value) -> list:
    if value is None:
        return []
    if SCons.Util.is_String(value):
        return value.split() if " " in value else [value]
    return list(SCons.Util.flatten(value))


@_one_line_errors
def UtvmModel(env, target, model, **kw):
    """The model's static library (a NodeList, like StaticLibrary). See docs/scons.md."""
    target = str(SCons.Util.flatten(target)[0]) if SCons.Util.is_List(target) else str(target)
    what = f"UtvmModel('{target}')"
    _need_c_builders(env, what)
    known = [*_CODEGEN_OPTIONS, *_FLAG_OPTIONS, *_BUILD_OPTIONS]
    unknown = [k for k in kw if k.islower() and k not in known]
    if unknown:
        raise _error(f"{what}: unknown option(s) {', '.join(sorted(unknown))}; options are {', '.join(known)}")
    overrides = {k: v for k, v in kw.items() if not k.islower()}
    args = _codegen_args(_with_derived_cpu(env, kw), what)
    tuning = None
    if kw.get("tuning") is not None:
        # A record of `utvm-build tune` (docs/kernel-guide.md): applied when its target and compiler
        # (name and version) are this build's, else the generator warns and ignores it.
        if not isinstance(kw["tuning"], str) and not hasattr(kw["tuning"], "srcnode"):
            raise _error(f"{what}: tuning must be the path of a tuning record, not {kw['tuning']!r}")
        tuning = env.File(kw["tuning"]).srcnode().get_abspath()
        if not os.path.isfile(tuning):
            raise _error(f"{what}: tuning record not found: {tuning}")
        cc = env.subst("$CC")
        args += [f"--tuning={tuning}"] + ([f"--tuning-compiler={cc}"] if cc else [])
    python = _python(env)
    st = _state(env)

    model_node = env.File(model)
    if not os.path.isfile(model_node.srcnode().get_abspath()):
        raise _error(f"{what}: model file not found: {model_node.srcnode().get_abspath()}")
    base = os.path.basename(target)
    out = env.Dir(kw["output_dir"]) if kw.get("output_dir") else st["dir"].Dir(base)
    work = out.up().Dir(out.name + ".build")  # objects and the manifest cache (the generator owns `out`)
    top = env.Dir("#").get_abspath()
    if top == out.get_abspath() or top.startswith(out.get_abspath().rstrip(os.sep) + os.sep):
        work = st["dir"].Dir(base + ".build")   # never beside the project (the generator refuses `out`)
    _prune_later(env, *_model_folders(out, work, st, []))
    # One generated directory per model in the whole build (the generator owns it: docs/output.md).
    owners = env.fs.__dict__.setdefault("_utvm_output_dirs", {})
    if out.get_abspath() in owners:
        raise _error(f"{what}: {out} is already the generated directory of {owners[out.get_abspath()]}; "
                     "give one of them another target name or output_dir")
    owners[out.get_abspath()] = what

    # The generated files, declared by the emitter.
    try:
        generated = env._UtvmCodegen(
            target=out.File("metadata.json"), source=model_node, UTVM_OUT=out,
            UTVM_ARGS=[a.replace("$", "$$") for a in args], UTVM_ARGS_RAW=args, UTVM_PYTHON_RESOLVED=python,
            UTVM_MANIFEST_CACHE=work.File("manifest.json").get_abspath(), UTVM_WHAT=what, UTVM_TUNING=tuning)
    except SCons.Errors.UserError:
        if not env.GetOption("clean"):
            raise
        # `scons -c` with a model that no longer compiles: still remove what an earlier build made.
        lib = env.File(os.path.join(os.path.dirname(target), env.subst("$LIBPREFIX") + base + env.subst("$LIBSUFFIX")))
        earlier = _generated_files(out)
        env.Clean(env.Dir("."), [lib, work.File("manifest.json"), *earlier, *_cached_objects(env, work)])
        _prune_later(env, *_model_folders(out, work, st, [os.path.relpath(n.get_abspath(), out.get_abspath())
                                                            .replace(os.sep, "/") for n in earlier]))
        lib.attributes.utvm_model = {"name": None, "include_dirs": [], "packed": False, "needs_crt": False,
                                     "generated_dir": out,
                                     "metadata": None, "state": st}
        return SCons.Util.NodeList([lib])
    manifest = generated[0].attributes.utvm_manifest
    _prune_later(env, *_model_folders(out, work, st, manifest["files"]))
    meta = manifest["metadata"]
    name = meta["name"]
    if name in st["names"]:
        raise _error(f"{what}: two models are named '{name}' in this build ({st['names'][name]}); "
                     f"give one of them name='other'")
    st["names"][name] = what
    packed = meta["options"]["interface"] == "packed"
    # The profile table's timer calls need the CRT's headers and its platform, as packed models do.
    needs_crt = packed or meta["options"].get("profile") is True
    include_dirs = [out.Dir(d) for d in meta["include_dirs"]]
    if "include/crt_config.h" in manifest["files"]:
        config = out.File("include/crt_config.h")
        st["configs"].append(config)
        if st["merged"] is not None:
            env.Depends(st["merged"], config)

    menv = env.Clone()
    crt_paths = []
    if needs_crt:  # the generated code includes the CRT headers and the build's crt_config.h
        if st["crt"] is None:
            _make_crt(env, None, None, f"UtvmModel ({'packed interface' if packed else 'profile'})")
        crt_paths = [st["merged"].dir, st["crt_include"]]
    menv.Prepend(CPPPATH=crt_paths[:1] + include_dirs + crt_paths[1:])
    if kw.get("optimize"):
        menv.Append(CCFLAGS=_flat(kw["optimize"]))
    if overrides:
        menv.Replace(**overrides)
    _guard_frame_pointer(menv)
    if packed:  # the program's system library (UtvmUsage) defines TVMSystemLibEntryPoint instead
        menv.Append(CPPDEFINES=[f"{meta['prefix'].upper()}_NO_SYSTEM_LIB_ENTRY"])
    objects = []
    for rel in meta["sources"]:
        stem = os.path.splitext(os.path.basename(rel))[0]
        objects += menv.Object(work.File(stem + menv.subst("$OBJSUFFIX")), out.File(rel))
    lib = menv.StaticLibrary(target, objects)
    # Only files the build made: the generator's (its manifest) and the manifest cache; never a
    # directory, which may hold files of the user's (output_dir='.').
    env.Clean(lib, [*[out.File(rel) for rel in manifest["files"]], work.File("manifest.json")])
    lib[0].attributes.utvm_model = {"name": name, "include_dirs": include_dirs, "packed": packed,
                                    "needs_crt": needs_crt,
                                    "generated_dir": out, "metadata": meta, "state": st,
                                    "metadata_node": out.File("metadata.json")}
    return lib


# ---- model groups (several models in one firmware: docs/scons.md) ---------------------------------

def _group_manifest(python: str, model_args: list[str], models: list[str], args: list[str], cache: str,
                    what: str) -> dict:
    """Files and metadata of a group's directory, from ``utvm-build compile-group --manifest`` (writes
    nothing); cached under the models' hashes, the options, the Python and the version."""
    hashes = []
    for model in models:
        try:
            with open(model, "rb") as f:
                hashes.append(hashlib.sha256(f.read()).hexdigest())
        except OSError as e:
            raise _error(f"{what}: cannot read the model {model}: {e.strerror}") from None
    key = {"python": python, "version": _VERSION, "models": [os.path.basename(m) for m in model_args],
           "sha256": hashes, "args": args}
    try:
        with open(cache, encoding="utf-8") as f:
            cached = json.load(f)
        if cached.get("key") == key:
            return cached["manifest"]
    except (OSError, ValueError, AttributeError):
        pass
    manifest = _run_generator(python, ["compile-group", *model_args, "-o", os.devnull, "--manifest", *args], what,
                              "code generation failed")
    os.makedirs(os.path.dirname(cache), exist_ok=True)
    tmp = f"{cache}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump({"key": key, "manifest": manifest}, f, sort_keys=True)
    os.replace(tmp, cache)
    return manifest


def _group_emitter(target, source, env):
    out = env["UTVM_OUT"]
    manifest = _group_manifest(env["UTVM_PYTHON_RESOLVED"], env["UTVM_MODEL_ARGS_RAW"],
                               [s.srcnode().get_abspath() for s in source], env["UTVM_ARGS_RAW"],
                               env["UTVM_MANIFEST_CACHE"], env["UTVM_WHAT"])
    files = [out.File(rel) for rel in manifest["files"]]
    for node in files:
        node.attributes.utvm_manifest = manifest
    env.Precious(files)
    return files, [*source, env.Value(f"utvm_build {_VERSION}")]


_GROUPGEN = SCons.Builder.Builder(
    action=SCons.Action.Action(
        [["$UTVM_PYTHON", "-m", "utvm_build", "compile-group", "$UTVM_MODEL_ARGS", "-o", "$UTVM_OUT",
          "--incremental", "$UTVM_ARGS"]],
        cmdstr="$UTVM_COMSTR"),
    emitter=_group_emitter,
)


@_one_line_errors
def UtvmModels(env, target, models, group=None, exclusive=None, **kw):
    """Several models in one firmware (``utvm-build compile-group``): one static library with every
    model, their shared workspace pools and the kernels several of them call, compiled once.
    ``models``: {name: model file} or a list of model files (names from the file names);
    ``exclusive``: lists of names of models that never run at the same time (one pool each list);
    ``group``: the group's C name (default: the target's base name). See docs/scons.md."""
    target = str(SCons.Util.flatten(target)[0]) if SCons.Util.is_List(target) else str(target)
    what = f"UtvmModels('{target}')"
    _need_c_builders(env, what)
    known = [k for k in (*_CODEGEN_OPTIONS, *_FLAG_OPTIONS, *_BUILD_OPTIONS)
             if k not in ("name", "workspace", "tuning")]   # tuning: per model (UtvmModel) for now
    unknown = [k for k in kw if k.islower() and k not in known]
    if unknown:
        raise _error(f"{what}: unknown option(s) {', '.join(sorted(unknown))}; options are {', '.join(known)}")
    if kw.get("interface") == "packed":
        raise _error(f"{what}: interface='packed' is not supported for a group in SCons yet; use the CMake "
                     "function utvm_add_models() or UtvmModel() per model")
    overrides = {k: v for k, v in kw.items() if not k.islower()}
    base = os.path.basename(target)
    group = group or base
    args = [f"--group={group}"] + [f"--exclusive={','.join(e)}" for e in (exclusive or [])] + \
        _codegen_args(_with_derived_cpu(env, kw), what)
    python = _python(env)
    st = _state(env)
    pairs = list(models.items()) if isinstance(models, dict) else [(None, m) for m in SCons.Util.flatten(models)]
    nodes, model_args = [], []
    for name, m in pairs:
        node = env.File(m)
        path = node.srcnode().get_abspath()
        if not os.path.isfile(path):
            raise _error(f"{what}: model file not found: {path}")
        nodes.append(node)
        model_args.append(f"{name}={path}" if name else path)
    out = env.Dir(kw["output_dir"]) if kw.get("output_dir") else st["dir"].Dir(base)
    work = out.up().Dir(out.name + ".build")
    owners = env.fs.__dict__.setdefault("_utvm_output_dirs", {})
    if out.get_abspath() in owners:
        raise _error(f"{what}: {out} is already the generated directory of {owners[out.get_abspath()]}")
    owners[out.get_abspath()] = what
    generated = env._UtvmGroupgen(
        target=out.File("metadata.json"), source=nodes, UTVM_OUT=out,
        UTVM_MODEL_ARGS=[a.replace("$", "$$") for a in model_args], UTVM_MODEL_ARGS_RAW=model_args,
        UTVM_ARGS=[a.replace("$", "$$") for a in args], UTVM_ARGS_RAW=args, UTVM_PYTHON_RESOLVED=python,
        UTVM_MANIFEST_CACHE=work.File("manifest.json").get_abspath(), UTVM_WHAT=what)
    manifest = generated[0].attributes.utvm_manifest
    meta = manifest["metadata"]
    sources = list(meta["sources"])
    include_dirs = [out.Dir(d) for d in meta["include_dirs"]]
    link_libraries = list(meta["link_libraries"])
    needs_crt = meta["options"].get("profile") is True
    for m in meta["models"]:
        member = manifest["members"][m["name"]]
        if m["name"] in st["names"]:
            raise _error(f"{what}: two models are named '{m['name']}' in this build ({st['names'][m['name']]})")
        st["names"][m["name"]] = what
        sources += [f"{m['dir']}/{s}" for s in member["sources"]]
        include_dirs += [out.Dir(m["dir"]).Dir(d) for d in member["include_dirs"]]
        link_libraries += [x for x in member["link_libraries"] if x not in link_libraries]
    config = out.File("include/crt_config.h")
    st["configs"].append(config)
    if st["merged"] is not None:
        env.Depends(st["merged"], config)
    menv = env.Clone()
    crt_paths = []
    if needs_crt:
        if st["crt"] is None:
            _make_crt(env, None, None, f"{what} (profile)")
        crt_paths = [st["merged"].dir, st["crt_include"]]
    menv.Prepend(CPPPATH=crt_paths[:1] + include_dirs + crt_paths[1:])
    if kw.get("optimize"):
        menv.Append(CCFLAGS=_flat(kw["optimize"]))
    if overrides:
        menv.Replace(**overrides)
    _guard_frame_pointer(menv)
    objects = []
    for rel in sources:   # objects by the source's path: file names may repeat across the models
        objects += menv.Object(work.File(os.path.splitext(rel)[0] + menv.subst("$OBJSUFFIX")), out.File(rel))
    lib = menv.StaticLibrary(target, objects)
    env.Clean(lib, [*[out.File(rel) for rel in manifest["files"]], work.File("manifest.json")])
    lib[0].attributes.utvm_model = {"name": group, "include_dirs": include_dirs, "packed": False,
                                    "needs_crt": needs_crt, "generated_dir": out,
                                    "metadata": {**meta, "link_libraries": link_libraries}, "state": st,
                                    "metadata_node": out.File("metadata.json")}
    return lib


def _merge_crt_config(target, source, env):
    """Each TVM_CRT_* value is the maximum over the base configuration and every model's crt_config.h."""
    headers = [source[0]] + sorted((d for d in target[0].depends if d.name == "crt_config.h"), key=str)
    values: dict[str, int] = {}
    for h in headers:
        for line in h.get_text_contents().splitlines():
            m = _DEFINE.match(line)
            if m:
                values[m.group(1)] = max(values.get(m.group(1), 0), int(m.group(2)))
    text = ("/* Generated by the utvm SCons tool. Do not edit.\n"
            " * The C runtime configuration of this build: each value is the maximum over the base\n"
            " * configuration and the crt_config.h of every model. */\n"
            "#ifndef TVM_RUNTIME_CRT_CONFIG_H_\n#define TVM_RUNTIME_CRT_CONFIG_H_\n\n"
            + "".join(f"#define {k} {v}\n" for k, v in values.items())
            + "\n#endif /* TVM_RUNTIME_CRT_CONFIG_H_ */\n")
    _write_own(target[0].get_abspath(), text.encode(), lambda old: old.startswith(_MERGED_BANNER))
    return 0


_MERGED_BANNER = b"/* Generated by the utvm SCons tool."


def _make_crt(env, target, config_base, what):
    st = _state(env)
    _need_c_builders(env, what)
    crt = _crt_dir()
    base = env.File(config_base) if config_base else env.File(os.path.join(crt, "config", "crt_config.h"))
    merged = env.Command(st["dir"].Dir("crt_config").File("crt_config.h"), base,
                         SCons.Action.Action(_merge_crt_config, "$UTVM_CRTCONFIGCOMSTR"))
    for config in st["configs"]:
        env.Depends(merged, config)
    st["merged"] = merged[0]
    st["crt_include"] = env.Dir(os.path.join(crt, "include"))
    cenv = env.Clone()
    cenv.Prepend(CPPPATH=[merged[0].dir, st["crt_include"], env.Dir(os.path.join(crt, "src"))])
    src = os.path.join(crt, "src")
    work = st["dir"].Dir("utvm_crt.build")
    _prune_later(env, st["dir"].get_abspath(), work.get_abspath(), st["dir"].Dir("crt_config").get_abspath())
    names = sorted(f for f in os.listdir(src) if f.endswith(".c"))

    def objs(files):
        suffix = cenv.subst("$OBJSUFFIX")
        return [cenv.Object(work.File(os.path.splitext(f)[0] + suffix), env.File(os.path.join(src, f))) for f in files]

    target = target or os.path.join(st["dir"].get_abspath(), "utvm_crt")
    st["crt"] = cenv.StaticLibrary(target, objs([f for f in names if not f.startswith("platform_")]))
    st["host"] = cenv.StaticLibrary(os.path.join(st["dir"].get_abspath(), "utvm_crt_host"), objs(["platform_host.c"])) \
        if "platform_host.c" in names else None
    return st["crt"]


@_one_line_errors
def UtvmCrt(env, target=None, config_base=None):
    """The C runtime of this build ($UTVM_DIR): a static library. One per build; packed models and
    UtvmUsage(crt=True) create it with the default configuration on first use."""
    st = _state(env)
    if st["crt"] is not None:
        raise _error("UtvmCrt: the C runtime of this build already exists (one per build; a model with "
                     "interface='packed' or UtvmUsage(crt=True) creates it on first use). Call UtvmCrt() "
                     "once, before the first model.")
    return _make_crt(env, target, config_base, "UtvmCrt")


def _system_lib(env, infos: list):
    """The static library defining TVMSystemLibEntryPoint with one registry of the packed models
    ``infos`` (written by ``utvm-build syslib``), one per set of models in the build."""
    st = _state(env)
    by_name = {i["name"]: i for i in infos}
    names = sorted(by_name)
    key = hashlib.sha256("\n".join(names).encode()).hexdigest()[:12]
    if key not in st["syslibs"]:
        work = st["dir"].Dir(f"utvm_system_lib_{key}.build")
        _prune_later(env, st["dir"].get_abspath(), work.get_abspath())
        source = env.Command(
            work.File("utvm_system_lib.c"), [by_name[n]["metadata_node"] for n in names],
            SCons.Action.Action([["$UTVM_PYTHON", "-m", "utvm_build", "syslib", "$SOURCES", "-o", "$TARGET"]],
                                cmdstr="$UTVM_COMSTR"))
        env.Depends(source, env.Value(f"utvm_build {_VERSION}"))
        senv = env.Clone()
        senv.Prepend(CPPPATH=[st["merged"].dir, st["crt_include"]])
        obj = senv.Object(work.File("utvm_system_lib" + senv.subst("$OBJSUFFIX")), source)
        lib = senv.StaticLibrary(os.path.join(st["dir"].get_abspath(), f"utvm_system_lib_{key}"), obj)
        st["syslibs"][key] = lib
    return st["syslibs"][key]


@_one_line_errors
def UtvmUsage(env, *models, crt=None, host_platform=False):
    """Construction variables for a program that uses ``models``: ``{'CPPPATH': [...], 'LIBS': [...]}``
    (the environment's own values included, so that ``env.Program(..., **usage)`` keeps them)."""
    infos = []
    for node in SCons.Util.flatten(list(models)):
        info = getattr(getattr(node, "attributes", None), "utvm_model", None)
        if info is None:
            raise _error(f"UtvmUsage: {node} is not a library returned by env.UtvmModel()")
        infos.append((node, info))
    st = _state(env)
    if crt or host_platform:
        if st["crt"] is None:
            _make_crt(env, None, None, "UtvmUsage")
    use_crt = st["crt"] is not None if crt is None else bool(crt or host_platform)
    use_crt = use_crt or any(i["needs_crt"] for _, i in infos)
    cpppath, libs = [], []
    if use_crt:
        cpppath.append(st["merged"].dir)
    for _, info in infos:
        cpppath += [d for d in info["include_dirs"] if d not in cpppath]
    libs += [node for node, _ in infos]
    if use_crt:
        cpppath.append(st["crt_include"])
        crt_libs = list(st["crt"])
        if host_platform:
            if st["host"] is None:
                raise _error("UtvmUsage: the C runtime has no host platform (platform_host.c)")
            crt_libs += list(st["host"])
        libs += crt_libs
        # The CRT calls TVMSystemLibEntryPoint, in the system library of the packed models, whose
        # registry references them: static libraries are searched in order, so the system library
        # comes after the CRT, then the packed models and the CRT once more.
        packed = [(node, i) for node, i in infos if i["packed"]]
        if packed:
            libs += list(_system_lib(env, [i for _, i in packed])) + [node for node, _ in packed] + crt_libs
    # System libraries the models' code needs (libm for the float kernels), after the models.
    for _, info in infos:
        for lib in (info["metadata"] or {}).get("link_libraries", []):
            if lib not in libs and lib not in _flat(env.get("LIBS")):
                libs.append(lib)
    return {"CPPPATH": cpppath + _flat(env.get("CPPPATH")), "LIBS": libs + _flat(env.get("LIBS"))}


# ---- the tool ------------------------------------------------------------------------------

def generate(env) -> None:
    """Adds the methods. Never fails and never overwrites a construction variable the user set;
    problems (no Python, wrong version, no C compiler) are reported when a method is used."""
    if "UTVM_PYTHON" not in env:
        try:
            python = _default_python()
        except Exception:  # noqa: BLE001 (a tool's generate() must not fail)
            python = ""
        env.SetDefault(UTVM_PYTHON=python)
    env.SetDefault(UTVM_DIR="utvm", UTVM_COMSTR="", UTVM_CRTCONFIGCOMSTR="Merging CRT configuration $TARGET",
                   UTVM_VERSION=_VERSION)
    env.Append(BUILDERS={"_UtvmCodegen": _CODEGEN, "_UtvmGroupgen": _GROUPGEN})
    env.AddMethod(UtvmModel, "UtvmModel")
    env.AddMethod(UtvmModels, "UtvmModels")
    env.AddMethod(UtvmCrt, "UtvmCrt")
    env.AddMethod(UtvmUsage, "UtvmUsage")


def exists(env):
    """The Python that runs the code generator, if it imports utvm_build of this tool's version."""
    python = env.get("UTVM_PYTHON") or _default_python()
    return python if python and _probe(env.subst(python))[0] else False
