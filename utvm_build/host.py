"""Run a model on the PC: build the generated C with the system compiler, call it with ctypes."""

from __future__ import annotations

import ctypes
import json
import os
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .compiler import compile_model
from .errors import UtvmError
from .options import CompileOptions

#: Flags every generated file must compile cleanly with.
STRICT_CFLAGS = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"]
#: `run --sanitize`: AddressSanitizer and UndefinedBehaviorSanitizer (plus float-to-integer
#: conversions out of range, which C leaves undefined), stopping at the first report.
SANITIZE_CFLAGS = ["-O1", "-g", "-fno-omit-frame-pointer", "-fsanitize=address,undefined,float-cast-overflow",
                   "-fno-sanitize-recover=all"]
#: How ``input_fill`` makes inputs when none are given.
INPUT_FILLS = ("zero", "min", "max", "random:SEED")


def host_cc() -> list[str]:
    cc = shlex.split(os.environ.get("CC", "")) or ["cc"]
    if shutil.which(cc[0]) is None:
        raise UtvmError(f"no C compiler found ('{cc[0]}'); install gcc or clang, or set CC")
    return cc


def build_shared_library(gen_dir: Path, output: Path, cflags: Sequence[str] = ("-O2",),
                         extra_sources: Sequence[Path] = ()) -> Path:
    """Compile a generated directory (plus extra sources) into a shared library."""
    meta = json.loads((gen_dir / "metadata.json").read_text())
    sources, includes = _sources_and_includes(gen_dir, meta)
    sources += [str(s) for s in extra_sources]
    cmd = host_cc() + STRICT_CFLAGS + list(cflags) + ["-fPIC", "-shared", *includes, *sources,
                                                      "-o", str(output), "-lm"]
    _compile(cmd)
    return output


def _compile(cmd: list[str]) -> None:
    from .build_cache import cached_build  # a no-op unless UTVM_BUILD_CACHE is set (the tests)

    cached_build(cmd, _run_compiler)


def _run_compiler(cmd: list[str]) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise UtvmError(f"compiling the generated C failed: {_first_error(proc.stderr)}")


def _first_error(log: str) -> str:
    """The line of a compiler's or sanitizer's output that says what went wrong."""
    lines = [ln.strip() for ln in log.splitlines() if ln.strip()]
    for needle in ("runtime error:", "ERROR: AddressSanitizer", "error:", "ERROR"):
        for ln in lines:
            if needle in ln:
                return ln
    return lines[0] if lines else "(no output)"


def _sources_and_includes(gen_dir: Path, meta: dict) -> tuple[list[str], list[str]]:
    sources = [str(gen_dir / s) for s in meta["sources"]]
    includes = [f"-I{gen_dir / d}" for d in meta["include_dirs"]]
    if meta["options"]["interface"] == "packed" or meta["options"].get("profile"):   # these need the C runtime
        from .paths import crt_dir

        crt = crt_dir()
        includes.append(f"-I{crt / 'include'}")
        if meta["options"]["interface"] == "packed":
            sources += sorted(str(p) for p in (crt / "src").glob("*.c"))
        else:   # --profile alone: the platform's timer only
            sources.append(str(crt / "src" / "platform_host.c"))
    return sources, includes


def fill_inputs(ports: Sequence[dict], how: str = "zero") -> list[np.ndarray]:
    """Inputs for a model's input ``ports`` (metadata): ``zero``, ``min``/``max`` (the type's
    extremes; for float32 the largest finite values) or ``random:SEED`` (the integer type's whole
    range; float32 standard normal)."""
    kind, _, seed = how.partition(":")
    if kind not in ("zero", "min", "max", "random") or (kind == "random") != bool(seed) \
            or (seed and not seed.isdigit()):
        raise UtvmError(f"--input-fill {how!r}: expected one of {', '.join(INPUT_FILLS)}")
    rng = np.random.default_rng(int(seed) if seed else 0)
    out = []
    for p in ports:
        dt = np.dtype(p["dtype"])
        shape = p["shape"]
        if kind == "zero":
            out.append(np.zeros(shape, dt))
            continue
        info: np.iinfo | np.finfo = np.finfo(dt) if dt.kind == "f" else (
            np.iinfo(np.uint8) if dt.kind == "b" else np.iinfo(dt))
        lo, hi = (0, 1) if dt.kind == "b" else (info.min, info.max)
        if kind == "random":
            if dt.kind == "f":
                out.append(rng.standard_normal(shape).astype(dt))
            else:
                out.append(rng.integers(lo, hi, size=shape, endpoint=True).astype(dt))
        else:
            out.append(np.full(shape, lo if kind == "min" else hi).astype(dt))
    return out


def _fill_for_step(how: str, t: int) -> str:
    """Random fills differ from step to step of a sequence (seed + step), the others do not."""
    kind, _, seed = how.partition(":")
    return f"random:{int(seed) + t}" if kind == "random" and seed.isdigit() else how


def fill_sequence(ports: Sequence[dict], how: str = "zero", steps: int | None = None) -> list[np.ndarray]:
    """:func:`fill_inputs`, or with ``steps``, that many steps stacked on a leading (time) axis
    (random fills differ from step to step)."""
    if steps is None:
        return fill_inputs(ports, how)
    filled = [fill_inputs(ports, _fill_for_step(how, t)) for t in range(max(1, steps))]
    return [np.stack([f[k] for f in filled]) for k in range(len(ports))]


def run_sanitized(gen_dir: Path, inputs: Sequence[np.ndarray], *, sequence: bool = False) -> list[np.ndarray]:
    """Build a generated directory into a host program with ASan/UBSan and run it once (or once
    per step of a sequence, one model instance); any sanitizer report is a UtvmError (one line:
    the report's first line)."""
    from .emit.host_main import render_host_main

    gen_dir = Path(gen_dir)
    meta = json.loads((gen_dir / "metadata.json").read_text())
    ins = meta["inputs"]
    if len(inputs) != len(ins):
        raise UtvmError(f"the model has {len(ins)} inputs, {len(inputs)} given")
    steps = _steps(inputs, ins) if sequence else 1
    if sequence:   # the program reads a file of `steps` records per input
        arrays = [np.concatenate([_coerce(np.asarray(v)[t], p, k).reshape(-1) for t in range(steps)])
                  for k, (v, p) in enumerate(zip(inputs, ins))]
    else:
        arrays = [_coerce(v, p, k) for k, (v, p) in enumerate(zip(inputs, ins))]
    sources, includes = _sources_and_includes(gen_dir, meta)
    with tempfile.TemporaryDirectory(prefix="utvm-sanitize-") as tmp_name:
        tmp = Path(tmp_name)
        (tmp / "main.c").write_text(render_host_main(meta))
        exe = tmp / "model"
        _compile(host_cc() + STRICT_CFLAGS + SANITIZE_CFLAGS + [*includes, *sources, str(tmp / "main.c"),
                                                                "-o", str(exe), "-lm"])
        in_files = [tmp / f"in_{k}.bin" for k in range(len(arrays))]
        out_files = [tmp / f"out_{k}.bin" for k in range(len(meta["outputs"]))]
        for f, a in zip(in_files, arrays):
            f.write_bytes(a.tobytes())
        env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0:abort_on_error=0:exitcode=86",
                   UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=86")
        try:
            proc = subprocess.run([str(exe), *map(str, in_files), *map(str, out_files)], capture_output=True,
                                  text=True, env=env, timeout=600)
        except subprocess.TimeoutExpired:
            raise UtvmError("the sanitized run did not finish within 600 s") from None
        if proc.returncode != 0:
            what = "sanitizer report" if proc.returncode == 86 or "Sanitizer" in proc.stderr \
                or "runtime error" in proc.stderr else f"exit status {proc.returncode}"
            raise UtvmError(f"the sanitized run failed ({what}): {_first_error(proc.stderr)}")
        lead = [steps] if sequence else []
        return [np.frombuffer(f.read_bytes(), dtype=p["dtype"]).reshape(lead + p["shape"]).copy()
                for f, p in zip(out_files, meta["outputs"])]


def _struct(fields: list[str]) -> type[ctypes.Structure]:
    return type("Ports", (ctypes.Structure,), {"_fields_": [(f, ctypes.c_void_p) for f in fields]})


def _coerce(value: np.ndarray, port: dict, k: int) -> np.ndarray:
    arr = np.asarray(value)
    if arr.dtype != np.dtype(port["dtype"]):
        raise UtvmError(f"input {k} '{port['name']}' must be {port['dtype']}, got {arr.dtype}")
    if arr.size * arr.itemsize != port["bytes"]:
        raise UtvmError(f"input {k} '{port['name']}' must have shape {port['shape']} "
                        f"({port['bytes']} bytes), got {list(arr.shape)}")
    return np.ascontiguousarray(arr.reshape(port["shape"]))


def _steps(inputs: Sequence[np.ndarray], ports: list[dict]) -> int:
    """The number of invocations of a sequence: every input's leading axis, the same for all."""
    counts = {np.asarray(v).shape[0] if np.asarray(v).ndim else -1 for v in inputs}
    if len(counts) != 1 or -1 in counts:
        raise UtvmError("--sequence: every input needs the same leading (time) axis, got shapes "
                        + ", ".join(str(list(np.asarray(v).shape)) for v in inputs))
    (n,) = counts
    if n < 1:
        raise UtvmError("--sequence: the inputs hold no step (leading axis 0)")
    return int(n)


def run_generated(gen_dir: Path, inputs: Sequence[np.ndarray] | None = None,
                  cflags: Sequence[str] = ("-O2",), *, sequence: bool = False) -> list[np.ndarray]:
    """Build an already generated directory for the host and run one inference, or, with
    ``sequence``, one per step of the inputs' leading axis on one model instance (its state
    carried from step to step); outputs then get the same leading axis."""
    gen_dir = Path(gen_dir)
    meta = json.loads((gen_dir / "metadata.json").read_text())
    ins = meta["inputs"]
    if inputs is None:
        inputs = [np.zeros(([1] if sequence else []) + p["shape"], dtype=p["dtype"]) for p in ins]
    if len(inputs) != len(ins):
        raise UtvmError(f"the model has {len(ins)} inputs, {len(inputs)} given")
    steps = _steps(inputs, ins) if sequence else 1
    per_step = [[np.asarray(v)[t] for v in inputs] for t in range(steps)] if sequence else [list(inputs)]
    arrays = [np.zeros(p["shape"], dtype=p["dtype"]) for p in ins]
    outs = [np.zeros(p["shape"], dtype=p["dtype"]) for p in meta["outputs"]]
    results: list[list[np.ndarray]] = []
    with tempfile.TemporaryDirectory(prefix="utvm-host-") as tmp:
        lib_path = build_shared_library(gen_dir, Path(tmp) / f"lib{meta['name']}.so", cflags)
        lib = ctypes.CDLL(str(lib_path))
        run = getattr(lib, f"{meta['prefix']}_run")
        run.restype = ctypes.c_int32
        in_s = _struct([p["c_name"] for p in ins])(*[a.ctypes.data for a in arrays])
        out_s = _struct([p["c_name"] for p in meta["outputs"]])(*[o.ctypes.data for o in outs])
        args = [ctypes.byref(in_s), ctypes.byref(out_s)]
        ws = None
        if meta["options"]["workspace"] == "user":
            align = meta["options"]["workspace_align"]
            ws = ctypes.create_string_buffer(meta["workspace_bytes"] + align)
            base = ctypes.addressof(ws)
            pools = _struct(["global_workspace"])((base + align - 1) // align * align)
            args.append(ctypes.byref(pools))
        state = None
        if meta["options"].get("state") == "user":   # one instance, reset first
            state = (ctypes.c_uint64 * max(1, (meta["state_bytes"] + 7) // 8))()   # aligned to 8 >= STATE_ALIGNMENT
            reset = getattr(lib, f"{meta['prefix']}_reset")
            reset.restype = ctypes.c_int32
            if reset(state) != 0:
                raise UtvmError(f"{meta['prefix']}_reset failed")
            args.append(state)
        if meta["options"]["interface"] == "packed":   # through TVMFuncCall, as a host-driven runtime calls it
            from .packed_call import PackedRunner

            packed = PackedRunner(lib, f"{meta['prefix']}_run")
            run = lambda *_: packed(arrays + outs) or 0  # noqa: E731 - same call shape as the typed entry
        for t, step_inputs in enumerate(per_step):
            for k, (dst, (v, p)) in enumerate(zip(arrays, zip(step_inputs, ins))):
                dst[...] = _coerce(v, p, k)
            status = run(*args)
            if status != 0:
                raise UtvmError(f"{meta['prefix']}_run returned {status}" + (f" at step {t}" if sequence else ""))
            results.append([o.copy() for o in outs])
        del lib
    if sequence:
        return [np.stack([r[k] for r in results]) for k in range(len(outs))]
    return results[0]


def run_on_host(model: str | Path, inputs: Sequence[np.ndarray] | None = None,
                options: CompileOptions | None = None, output_dir: str | Path | None = None,
                cflags: Sequence[str] = ("-O2",), *, sanitize: bool = False,
                input_fill: str = "zero", sequence: bool = False, steps: int = 1) -> list[np.ndarray]:
    """Compile ``model``, build it with the system C compiler and run one inference.

    ``inputs``: one array per model input, in model order (default: made by ``input_fill``, see
    :func:`fill_inputs`). ``sanitize``: build a host program with ASan/UBSan instead and fail on
    any report. ``sequence``: the inputs' leading axis is time, run one model instance over it
    (state carried; ``steps`` of filled inputs when none are given) and return outputs with the
    same leading axis. Returns the outputs in model order; with ``output_dir``, also writes them to
    ``output_<i>.npy`` there.
    """
    with tempfile.TemporaryDirectory(prefix="utvm-gen-") as tmp:
        gen = Path(tmp) / "gen"
        compile_model(model, gen, options)
        if inputs is None:
            ports = json.loads((gen / "metadata.json").read_text())["inputs"]
            inputs = fill_sequence(ports, input_fill, steps if sequence else None)
        if sanitize:
            outs = run_sanitized(gen, inputs, sequence=sequence)
        else:
            outs = run_generated(gen, inputs, cflags, sequence=sequence)
    if output_dir is not None:
        write_outputs(outs, output_dir)
    return outs


def write_outputs(outs: Sequence[np.ndarray], output_dir: str | Path) -> None:
    """``output_<i>.npy`` in ``output_dir`` (created), one per output: each written atomically, over
    an existing file only when it is one a run wrote there (``.utvm-build-outputs.json`` records
    their digests; docs/output.md), never through a symlink."""
    import io

    from .safe_fs import write_recorded

    files = {}
    for i, o in enumerate(outs):
        buf = io.BytesIO()
        np.save(buf, o, allow_pickle=False)
        files[f"output_{i}.npy"] = buf.getvalue()
    try:
        write_recorded(output_dir, files, record=".utvm-build-outputs.json", what="the outputs")
    except OSError as e:
        raise UtvmError(f"cannot write the outputs to {output_dir}: {e.strerror or e}") from None
