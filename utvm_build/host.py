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


def host_cc() -> list[str]:
    cc = shlex.split(os.environ.get("CC", "")) or ["cc"]
    if shutil.which(cc[0]) is None:
        raise UtvmError(f"no C compiler found ('{cc[0]}'); install gcc or clang, or set CC")
    return cc


def build_shared_library(gen_dir: Path, output: Path, cflags: Sequence[str] = ("-O2",),
                         extra_sources: Sequence[Path] = ()) -> Path:
    """Compile a generated directory (plus extra sources) into a shared library."""
    meta = json.loads((gen_dir / "metadata.json").read_text())
    sources = [str(gen_dir / s) for s in meta["sources"]] + [str(s) for s in extra_sources]
    includes = [f"-I{gen_dir / d}" for d in meta["include_dirs"]]
    if meta["options"]["interface"] == "packed":   # the packed entry point needs the C runtime
        from .paths import crt_dir

        crt = crt_dir()
        includes.append(f"-I{crt / 'include'}")
        sources += sorted(str(p) for p in (crt / "src").glob("*.c"))
    cmd = host_cc() + STRICT_CFLAGS + list(cflags) + ["-fPIC", "-shared", *includes, *sources,
                                                      "-o", str(output), "-lm"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise UtvmError(f"compiling the generated C failed:\n{proc.stderr.strip()}")
    return output


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


def run_generated(gen_dir: Path, inputs: Sequence[np.ndarray] | None = None,
                  cflags: Sequence[str] = ("-O2",)) -> list[np.ndarray]:
    """Build an already generated directory for the host and run one inference."""
    gen_dir = Path(gen_dir)
    meta = json.loads((gen_dir / "metadata.json").read_text())
    ins = meta["inputs"]
    if inputs is None:
        inputs = [np.zeros(p["shape"], dtype=p["dtype"]) for p in ins]
    if len(inputs) != len(ins):
        raise UtvmError(f"the model has {len(ins)} inputs, {len(inputs)} given")
    arrays = [_coerce(v, p, k) for k, (v, p) in enumerate(zip(inputs, ins))]
    outs = [np.zeros(p["shape"], dtype=p["dtype"]) for p in meta["outputs"]]
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
        status = run(*args)
        del lib
    if status != 0:
        raise UtvmError(f"{meta['prefix']}_run returned {status}")
    return outs


def run_on_host(model: str | Path, inputs: Sequence[np.ndarray] | None = None,
                options: CompileOptions | None = None, output_dir: str | Path | None = None,
                cflags: Sequence[str] = ("-O2",)) -> list[np.ndarray]:
    """Compile ``model``, build it with the system C compiler and run one inference.

    ``inputs``: one array per model input, in model order (default: zeros). Returns the outputs in
    model order; with ``output_dir``, also writes them to ``output_<i>.npy`` there.
    """
    with tempfile.TemporaryDirectory(prefix="utvm-gen-") as tmp:
        gen = Path(tmp) / "gen"
        compile_model(model, gen, options)
        outs = run_generated(gen, inputs, cflags)
    if output_dir is not None:
        out = Path(output_dir)
        out.mkdir(parents=True, exist_ok=True)
        for i, o in enumerate(outs):
            np.save(out / f"output_{i}.npy", o)
    return outs
