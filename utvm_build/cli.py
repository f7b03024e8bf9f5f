"""The `utvm-build` command line."""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from . import __version__
from .errors import UtvmError
from .options import INTERFACES, IO_PLACEMENTS, MEMORY_MODES, OPTIMIZE_MODES, STATES, WORKSPACES, CompileOptions
from .targets import TARGETS
from .text import printable

_PKG = Path(__file__).resolve().parent


def _add_codegen_options(p: argparse.ArgumentParser) -> None:
    d = CompileOptions()
    p.add_argument("--name", help="C name of the model (default: from the file name)")
    p.add_argument("--interface", choices=INTERFACES, default=d.interface,
                   help="c: typed entry point; packed: also a packed function in the system library")
    p.add_argument("--workspace", choices=WORKSPACES, default=d.workspace,
                   help="static: workspace is a static buffer; user: the caller passes it")
    p.add_argument("--constants-section", default=d.constants_section, metavar="SECTION",
                   help=f"linker section of constants (default {d.constants_section}; '' = none)")
    p.add_argument("--workspace-section", default=d.workspace_section, metavar="SECTION",
                   help=f"linker section of the workspace (default {d.workspace_section}; '' = none)")
    p.add_argument("--constants-align", type=int, default=d.constants_align, metavar="BYTES")
    p.add_argument("--workspace-align", type=int, default=d.workspace_align, metavar="BYTES")
    p.add_argument("--target", choices=list(TARGETS), default=d.target,
                   help="CPU whose kernels to use (default generic: portable C99); see docs/kernel-guide.md")
    p.add_argument("--profile", action="store_true",
                   help="time every operator call with TVMPlatformTimerStart/Stop into tvmgen_<name>_profile[] "
                        "(needs the C runtime's headers and a platform timer; docs/rpc.md)")
    p.add_argument("--io", choices=IO_PLACEMENTS, default=d.io,
                   help="caller: inputs/outputs are the caller's buffers; workspace: planned in the "
                        "workspace (less RAM)")
    p.add_argument("--state", choices=STATES, default=d.state,
                   help="static: the state (variables kept across calls) is a static region; user: the "
                        "caller passes it to run and reset (several instances of one model); docs/state.md")
    p.add_argument("--memory", choices=MEMORY_MODES, default=d.memory,
                   help="fast: layer by layer (default); balanced / min: run chains of convolutions in stripes "
                        "of rows (patch-based execution) for less RAM, at most 2%% / 10%% more MACs")
    p.add_argument("--ram-limit", type=int, default=d.ram_limit, metavar="BYTES",
                   help="largest workspace wanted: stripes with the fewest extra MACs that meet it (0: none)")
    p.add_argument("--optimize", choices=OPTIMIZE_MODES, default=d.optimize,
                   help="flash against speed in the kernels' data: speed: int16 pre-widened weights for the DSP "
                        "convolutions (about 2x their weight bytes); balanced (default): only for the layers "
                        "where each extra byte saves enough instructions; size: never (`info` shows the cost)")
    p.add_argument("--tuning", type=Path, metavar="FILE.json",
                   help="kernel variants per layer measured by `utvm-build tune` (a record for another target "
                        "or toolchain is ignored with a warning); docs/kernel-guide.md")
    p.add_argument("--tuning-compiler", metavar="CC",
                   help="with --tuning: the C compiler of the build (its name and version must match the "
                        "record's, else the record is ignored with a warning)")


def _options(a: argparse.Namespace) -> CompileOptions:
    tuning = None
    if a.tuning is not None:
        from .tuning import applicable_choices

        tuning = applicable_choices(a.tuning, a.target, a.tuning_compiler, optimize=a.optimize)
    elif a.tuning_compiler:
        raise UtvmError("--tuning-compiler is given without --tuning")
    return CompileOptions(name=a.name, interface=a.interface, workspace=a.workspace,
                          constants_section=a.constants_section, workspace_section=a.workspace_section,
                          constants_align=a.constants_align, workspace_align=a.workspace_align, io=a.io,
                          target=a.target, state=a.state, profile=a.profile, memory=a.memory,
                          ram_limit=a.ram_limit, tuning=tuning, optimize=a.optimize)


class _Parser(argparse.ArgumentParser):
    """Usage mistakes are one line too (no usage dump), exit status 2: build systems show it as is."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {printable(message)} (see {self.prog} --help)\n")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="utvm-build", description="TensorFlow Lite models to ahead-of-time C "
                                "for microcontrollers.")
    p.add_argument("--version", action="store_true", help="print the version")
    p.add_argument("--cmake-dir", action="store_true", help="print the directory of the CMake package")
    p.add_argument("--scons-toolpath", action="store_true", help="print the SCons toolpath of the 'utvm' tool")
    p.add_argument("--crt-dir", action="store_true", help="print the directory of the C runtime sources")
    sub = p.add_subparsers(dest="command")
    c = sub.add_parser("compile", help="generate C for a model")
    c.add_argument("model", type=Path)
    c.add_argument("-o", "--output", type=Path, required=True, help="generated directory (replaced)")
    c.add_argument("--incremental", action="store_true",
                   help="rewrite only files whose content changed (for build systems)")
    _add_codegen_options(c)
    cg = sub.add_parser("compile-group", help="several models for one firmware: one CRT, shared workspace "
                        "pools, shared kernels compiled once (docs/output.md, model groups)")
    cg.add_argument("models", nargs="+", metavar="[NAME=]MODEL.tflite",
                    help="the models (C name from the file name unless NAME= is given)")
    cg.add_argument("-o", "--output", type=Path, required=True,
                    help="the group's generated directory (replaced; one folder per model in models/)")
    cg.add_argument("--group", required=True, metavar="NAME", help="C name of the group (tvmgen_<NAME>.h)")
    cg.add_argument("--exclusive", action="append", default=[], metavar="A,B[,...]",
                    help="these models never run at the same time: they share one workspace pool "
                         "(repeat for several sets; other models get a pool of their own)")
    cg.add_argument("--incremental", action="store_true",
                    help="rewrite only files whose content changed (for build systems)")
    cg.add_argument("--manifest", action="store_true",
                    help="print, as JSON, the files it would write and the metadata of the group and of each "
                         "model; write nothing (for build systems)")
    _add_codegen_options(cg)
    r = sub.add_parser("run", help="compile, build with the system C compiler and run one inference")
    r.add_argument("model", type=Path)
    r.add_argument("--input", type=Path, action="append", default=[], metavar="X.npy",
                   help="one per model input, in model order (default: zeros)")
    r.add_argument("--output-dir", type=Path, help="write output_<i>.npy here")
    r.add_argument("--input-fill", default="zero", metavar="zero|min|max|random:SEED",
                   help="inputs when no --input is given: zeros, the type's minimum or maximum, or random "
                        "values from SEED (default zero)")
    r.add_argument("--sequence", action="store_true",
                   help="the leading axis of every input is time: run one model instance over it (state "
                        "carried) and write outputs with the same leading axis")
    r.add_argument("--steps", type=int, default=1, metavar="N",
                   help="with --sequence and --input-fill: the number of steps (default 1)")
    r.add_argument("--device", default=None, metavar="host|qemu-m4|qemu-m55|serial:PORT",
                   help="run through the RPC server on this device (docs/rpc.md): the model's packed entry "
                        "called with uploaded inputs (with --sequence: once per step, one session); default: a "
                        "direct host build")
    r.add_argument("--sanitize", action="store_true",
                   help="build with -fsanitize=address,undefined and fail on any report")
    _add_codegen_options(r)
    m = sub.add_parser("manifest", help="print, as JSON, the files `compile` would write and the metadata "
                       "(writes nothing; for build systems)")
    m.add_argument("model", type=Path)
    _add_codegen_options(m)
    s = sub.add_parser("syslib", help="one system library (TVMSystemLibEntryPoint) for several packed models "
                       "(for build systems; compile each model with TVMGEN_<NAME>_NO_SYSTEM_LIB_ENTRY)")
    s.add_argument("models", type=Path, nargs="+", metavar="DIR",
                   help="directories generated with --interface packed (or their metadata.json)")
    s.add_argument("-o", "--output", type=Path, required=True, metavar="FILE.c",
                   help="the C file to write (rewritten only when its content changes)")
    rp = sub.add_parser("report", help="one self-contained HTML page: the memory plan as a picture, "
                        "per-operator MACs, flash, scratch (and instructions from a benchmark run)")
    rp.add_argument("model", type=Path, help="a .tflite model, or a model group's generated directory "
                    "(compile-group: its workspace pools)")
    rp.add_argument("-o", "--output", type=Path, required=True, metavar="REPORT.html")
    rp.add_argument("--bench", type=Path, metavar="RUN.json",
                    help="a benchmark result (benchmarks/results/runs/...) for per-operator instructions "
                         "(default: found there by the model's name, if present)")
    _add_codegen_options(rp)
    ar = sub.add_parser("export-arduino", help="the model as an Arduino library (library.properties, src/); "
                        "docs/platforms/arduino.md")
    ar.add_argument("model", type=Path)
    ar.add_argument("-o", "--output", type=Path, required=True, metavar="DIR",
                    help="the library directory (new, empty or an earlier export; e.g. ~/Arduino/libraries/kws)")
    _add_codegen_options(ar)
    ar.set_defaults(constants_section="", workspace_section="")   # the boards' own linker scripts
    i = sub.add_parser("info", help="what the model contains and whether utvm-build supports it (exit 2 if not)")
    i.add_argument("model", type=Path, nargs="?",
                   help="a .tflite model, or a model group's generated directory (compile-group)")
    i.add_argument("--json", action="store_true", help="operators, tensors, the memory plan and totals as JSON")
    i.add_argument("--operators", action="store_true",
                   help="list the TFLite operators utvm-build compiles (no model needed; types: docs/operators.md)")
    _add_codegen_options(i)
    from .rpc import cli as rpc_cli  # host-driven execution: rpc-server (docs/rpc.md)

    rpc_cli.add_commands(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Exit status: 0 success, 2 a problem the user can act on (one line on stderr), 3 a bug in
    utvm-build (one line too; never a traceback), 130 interrupted."""
    parser = _parser()
    a = parser.parse_args(argv)
    try:
        with warnings.catch_warnings():
            # A NumPy overflow or invalid-value warning while compiling means arithmetic went wrong:
            # it stops the run (as an internal error) instead of printing lines and going on.
            warnings.simplefilter("ignore")
            warnings.simplefilter("error", RuntimeWarning)
            return _command(parser, a)
    except UtvmError as e:
        print(f"utvm-build: error: {printable(str(e))}", file=sys.stderr)
        return 2
    except BrokenPipeError:   # `utvm-build info ... | head`: the reader left, nothing to report
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        print("utvm-build: interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # noqa: BLE001 - the promise is one line, never a traceback
        print(f"utvm-build: internal error (a bug in utvm-build {__version__}; please report it with the "
              f"model): {type(e).__name__}: {printable(str(e))}", file=sys.stderr)
        return 3


def _command(parser: argparse.ArgumentParser, a: argparse.Namespace) -> int:
    if a.version:
        print(__version__)
    elif a.cmake_dir:
        from .paths import cmake_dir

        print(cmake_dir())
    elif a.crt_dir:
        from .paths import crt_dir

        try:
            print(crt_dir())
        except FileNotFoundError as e:
            raise UtvmError(str(e)) from None
    elif a.scons_toolpath:
        print(_PKG / "scons")
    elif a.command == "compile":
        from .compiler import compile_model

        compiled = compile_model(a.model, a.output, _options(a), incremental=a.incremental)
        m = compiled.metadata
        print(f"{a.output}: tvmgen_{m['name']}_run, workspace {m['workspace_bytes']} B, "
              f"constants {m['constants_bytes']} B, {len(m['operators'])} operators")
    elif a.command == "compile-group":
        _compile_group(a)
    elif a.command == "export-arduino":
        from .arduino import export_arduino

        m = export_arduino(a.model, a.output, _options(a))
        print(f"{a.output}: Arduino library utvm_{m['name']} (#include <tvmgen_{m['name']}.h>), workspace "
              f"{m['workspace_bytes']} B, constants {m['constants_bytes']} B")
    elif a.command == "manifest":
        _manifest(a)
    elif a.command == "run":
        _run(a)
    elif a.command == "syslib":
        from .emit.system_lib import write_system_lib

        names, written = write_system_lib(a.models, a.output)
        print(f"{a.output}: system library of {', '.join(f'tvmgen_{n}_run' for n in names)}"
              f"{'' if written else ' (unchanged)'}")
    elif a.command in ("rpc-server", "rpc-bridge", "profile", "tune"):
        from .rpc import cli as rpc_cli

        rpc_cli.run(a)
    elif a.command == "info":
        return _info(a)
    elif a.command == "report":
        return _report(a)
    else:
        parser.print_help()
        return 2
    return 0


def _info(a: argparse.Namespace) -> int:
    """Exit 0 when every operator is supported, 2 otherwise (the report is printed either way)."""
    if a.operators and a.model is None:
        from .ops import supported_operators

        print("\n".join(supported_operators()))
        return 0
    if a.model is None:
        raise UtvmError("info: give a model (or --operators for the list of supported operators)")
    if a.model.is_dir():   # a model group's generated directory (compile-group)
        from .info import group_info
        from .report import load_group

        group = load_group(a.model)
        if a.json:
            import json

            print(json.dumps(group, indent=1, sort_keys=True))
        else:
            print(group_info(group))
        return 0
    if a.json:
        import json

        from .info import model_report

        report = model_report(a.model, _options(a))
        print(json.dumps(report, indent=1, sort_keys=True))   # json escapes control characters
        ok = report["supported"]
    else:
        from .info import model_info

        text, ok = model_info(a.model, _options(a))
        print(text)
    if not ok:
        print(f"utvm-build: error: {printable(str(a.model))}: not every operator can be compiled (see above; "
              "supported operators: `utvm-build info --operators`)", file=sys.stderr)
    return 0 if ok else 2


def _report(a: argparse.Namespace) -> int:
    from .compiler import default_name
    from .info import model_report
    from .report import REPORT_MARK, find_benchmark, load_group, load_instructions, render_group_report, render_report
    from .safe_fs import check_file_target, owned_by_prefix, write_file

    owned = owned_by_prefix(REPORT_MARK)   # a report page, the only file `report` overwrites
    try:
        check_file_target(a.output, owned=owned, what="the report")
    except OSError as e:
        raise UtvmError(f"cannot write {a.output}: {e.strerror or e}") from None
    if a.model.is_dir():   # a model group's generated directory (compile-group): its pools
        bench, instructions = None, {}
        text = render_group_report(load_group(a.model)).encode()
    else:
        report = model_report(a.model, _options(a))
        bench = a.bench or find_benchmark(a.name or default_name(a.model), [Path.cwd(), _PKG.parent])
        instructions, label = load_instructions(bench) if bench else ({}, "")
        text = render_report(report, instructions, label).encode()
    try:
        write_file(a.output, text, owned=owned, what="the report")
    except OSError as e:
        raise UtvmError(f"cannot write {a.output}: {e.strerror or e}") from None
    extra = f", instructions from {bench}" if instructions else ""
    print(f"{a.output}: report of {printable(a.model.name)}{extra}")
    return 0


def _compile_group(a: argparse.Namespace) -> None:
    import json

    from .emit.output import MANIFEST
    from .group import compile_group, parse_model_arg, render_group

    exclusive = [[n.strip() for n in e.split(",") if n.strip()] for e in a.exclusive]
    models = [parse_model_arg(m) for m in a.models]
    if a.manifest:
        g = render_group(models, a.group, exclusive, _options(a))
        print(json.dumps({"files": sorted([*g.files, MANIFEST]), "metadata": g.metadata,
                          "members": {c.name: c.metadata for c in g.members}}, sort_keys=True))
        return
    g = compile_group(models, a.output, a.group, exclusive, _options(a), incremental=a.incremental)
    m = g.metadata
    pools = "; ".join(f"pool {p['index']} {p['bytes']} B ({', '.join(p['models'])})" for p in m["pools"])
    print(f"{a.output}: group {m['name']} of {', '.join(x['name'] for x in m['models'])}: workspace "
          f"{m['workspace_bytes']} B [{pools}] (each alone: {m['separate_workspace_bytes']} B), state "
          f"{m['state_bytes']} B, RAM {m['ram_bytes']} B; {len(m['shared_kernel_functions'])} kernel "
          f"function(s) compiled once")


def _manifest(a: argparse.Namespace) -> None:
    """``{"files": [relative paths], "metadata": {...}}``: what ``compile`` would write, computed in
    memory. The SCons tool declares these files as the targets of the code generator."""
    import json

    from .compiler import compile_bytes, default_name, read_model_file
    from .emit.output import MANIFEST

    opts = _options(a)
    compiled = compile_bytes(read_model_file(a.model), opts.name or default_name(a.model), opts, a.model.name)
    files = sorted([*compiled.files, MANIFEST])   # the manifest of the generated directory too
    print(json.dumps({"files": files, "metadata": compiled.metadata}, sort_keys=True))


def _run(a: argparse.Namespace) -> None:
    import numpy as np

    from .host import run_on_host

    inputs = None
    if a.input:
        try:
            inputs = [np.load(p, allow_pickle=False) for p in a.input]
        except (OSError, ValueError) as e:
            raise UtvmError(f"cannot read an --input file: {e}") from None
    if inputs is not None and a.input_fill != "zero":
        raise UtvmError("give either --input files or --input-fill, not both")
    if a.steps < 1 or (a.steps != 1 and (not a.sequence or inputs is not None)):
        raise UtvmError("--steps N (N >= 1) goes with --sequence and --input-fill (with --input files the "
                        "leading axis gives the steps)")
    if a.device is not None:
        if a.sanitize:
            raise UtvmError("--device runs the model through RPC; --sanitize is for host runs")
        from .host import fill_sequence, write_outputs
        from .rpc.run import run_on_device

        if inputs is None and (a.input_fill != "zero" or a.sequence):
            from .compiler import compile_bytes, default_name, read_model_file

            meta = compile_bytes(read_model_file(a.model), a.name or default_name(a.model)).metadata
            inputs = fill_sequence(meta["inputs"], a.input_fill, a.steps if a.sequence else None)
        outs = run_on_device(a.model, inputs, device=a.device, sequence=a.sequence)
        if a.output_dir:
            write_outputs(outs, a.output_dir)
    else:
        outs = run_on_host(a.model, inputs, _options(a), output_dir=a.output_dir, sanitize=a.sanitize,
                           input_fill=a.input_fill, sequence=a.sequence, steps=a.steps)
    for k, o in enumerate(outs):
        flat = o.ravel()
        shown = np.array2string(flat[:16], separator=", ", max_line_width=200)
        more = f" ... ({flat.size} values)" if flat.size > 16 else ""
        print(f"output {k} {o.dtype} {list(o.shape)}: {shown}{more}")
    if a.output_dir:
        print(f"wrote {len(outs)} output(s) to {a.output_dir}")
