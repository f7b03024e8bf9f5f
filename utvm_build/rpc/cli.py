"""`utvm-build rpc-server`: the C runtime's RPC server as a program, with models in its system library."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import UtvmError

DEVICES = ("host", "qemu-m4", "qemu-m55")


def add_commands(sub) -> None:
    p = sub.add_parser("rpc-server", help="build an RPC server program (tvm.rpc.PopenSession(PATH) or "
                                          "utvm_build.rpc.popen(PATH) starts it) with packed models")
    p.add_argument("models", type=Path, nargs="+", metavar="MODEL",
                   help=".tflite files (compiled with --interface packed) or directories generated with it")
    p.add_argument("--device", choices=DEVICES, default="host",
                   help="where the server runs (host: a process; qemu-m4 / qemu-m55: Cortex-M4 / M55 "
                        "firmware on QEMU mps2-an386 / mps3-an547, PATH is its launcher, PATH.elf the firmware)")
    p.add_argument("-o", "--output", type=Path, required=True, metavar="PATH", help="the program to write")
    p.add_argument("--sanitize", action="store_true", help="build with ASan/UBSan")
    p.add_argument("--minimal", action="store_true",
                   help="the smallest server: no time evaluator, no CopyAmongRemote, error codes instead of "
                        "messages (under 6 KB of flash on Cortex-M4, docs/rpc.md)")
    p.add_argument("--framed", action="store_true",
                   help="qemu-*: the UART carries the CRT's serial frames (CRC, resending; "
                        "utvm_build.rpc.popen(PATH, framing=True)); host programs take --framed when started")
    p.add_argument("--bridge", action="store_true",
                   help="qemu-*: framed firmware (its launcher PATH.qemu, PATH.qemu.elf) behind the serial bridge: "
                        "PATH relays TVM's unframed packets, so tvm.rpc.PopenSession(PATH) talks to it")
    pr = sub.add_parser("profile", help="time every operator on a device (host, QEMU Cortex-M4/M55) through RPC; "
                                        "on QEMU also instructions per operator, from a source checkout "
                                        "only (benchmarks/qemu_plugin, not in the installed package)")
    pr.add_argument("model", type=Path)
    pr.add_argument("--device", choices=DEVICES, default="host")
    pr.add_argument("--runs", type=int, default=10, metavar="N", help="timed runs after one warm-up (default 10)")
    pr.add_argument("--json", action="store_true", help="the figures as JSON")
    pr.add_argument("--input", type=Path, action="append", default=[], metavar="X.npy",
                    help="one per model input, in model order (default: --input-fill)")
    pr.add_argument("--input-fill", default="zero", metavar="zero|min|max|random:SEED")
    pr.add_argument("--target", default="generic", help="kernels of this CPU (as compile --target)")
    pr.add_argument("--name", help="C name of the model (default: from the file name)")
    t = sub.add_parser("tune", help="choose each layer's kernel variant by measuring them all on a device; "
                                    "writes a tuning record for compile --tuning (docs/kernel-guide.md)")
    t.add_argument("model", type=Path)
    t.add_argument("--device", default="host", metavar="host|qemu-m4|qemu-m55",
                   help="where the variants run (QEMU: instructions and estimated cycles per operator, "
                        "host: time)")
    t.add_argument("--metric", choices=("cycles", "instructions", "seconds"), default=None,
                   help="what each layer is chosen by (default: on QEMU the estimated cycles of "
                        "benchmarks/cycles.py, on the host time)")
    t.add_argument("--target", default=None,
                   help="kernels of this CPU (default: the device's, generic on the host)")
    t.add_argument("-o", "--output", type=Path, required=True, metavar="TUNING.json",
                   help="the record to write (an existing file is replaced only if it is a tuning record)")
    t.add_argument("--runs", type=int, default=None, metavar="N",
                   help="timed runs per build (default 1 on QEMU, whose counts are exact; 20 on the host)")
    t.add_argument("--input-fill", default="random:0", metavar="zero|min|max|random:SEED")
    t.add_argument("--optimize", choices=("speed", "balanced", "size"), default="balanced",
                   help="the --optimize of every build; speed measures each convolution with int16 and int8 "
                        "weights (compile with the same --optimize to apply the record)")
    b = sub.add_parser("rpc-bridge", help="relay TVM RPC packets (tvm.rpc.PopenSession or tvm.rpc.connect) to a "
                                          "device behind the serial framing (a serial port or a framed program)")
    from .bridge import add_arguments

    add_arguments(b)
    out = b.add_mutually_exclusive_group(required=True)
    out.add_argument("-o", "--output", type=Path, metavar="PATH",
                     help="write a program that tvm.rpc.PopenSession(PATH) starts")
    out.add_argument("--tcp", type=int, metavar="PORT",
                     help="serve tvm.rpc.connect sessions on 127.0.0.1:PORT now (0: a free port)")
    b.add_argument("--once", action="store_true", help="with --tcp: one session, then exit")
    from .bridge import add_tcp_arguments

    add_tcp_arguments(b)


def run(a: argparse.Namespace) -> bool:
    """Handle the command if it is one of ours; False otherwise."""
    if a.command == "rpc-bridge":
        return _bridge(a)
    if a.command == "profile":
        return _profile(a)
    if a.command == "tune":
        return _tune(a)
    if a.command != "rpc-server":
        return False
    from .build import MINIMAL, build_host_server, build_qemu_server, check_output

    defines = MINIMAL if a.minimal else ()
    # Before any work: an output that is a directory, a link or a file rpc-server did not write.
    if a.device.startswith("qemu-") and a.bridge:
        check_output(a.output, launcher=True)
        check_output(a.output.with_name(a.output.name + ".qemu"), launcher=True)
    else:
        check_output(a.output, launcher=a.device.startswith("qemu-"))
    for m in a.models:
        if not m.exists():
            raise UtvmError(f"{m}: no such file or directory")
    if a.device.startswith("qemu-"):
        if a.sanitize:
            raise UtvmError("rpc-server: --sanitize is for --device host")
        if a.bridge:
            from .bridge import write_launcher

            qemu = build_qemu_server(a.models, a.output.with_name(a.output.name + ".qemu"), framed=True,
                                     device=a.device, defines=defines)
            write_launcher(a.output, None, str(qemu.resolve()))
            out = a.output
        else:
            out = build_qemu_server(a.models, a.output, framed=a.framed, device=a.device, defines=defines)
    elif a.bridge:
        raise UtvmError("rpc-server: --bridge is for --device qemu-m4|qemu-m55 (a host server takes --framed)")
    else:
        out = build_host_server(a.models, a.output, sanitize=a.sanitize, defines=defines)
    print(f"{out}: RPC server ({a.device}) with {', '.join(str(m) for m in a.models)}; "
          f"start it with tvm.rpc.PopenSession('{out}') or utvm_build.rpc.popen('{out}')")
    return True


def _bridge(a: argparse.Namespace) -> bool:
    from .bridge import serve_tcp, write_launcher

    program = a.program
    if a.output is not None:
        from .build import check_output

        check_output(a.output, launcher=True)
        write_launcher(a.output, a.serial, str(Path(program).resolve()) if program else None)
        print(f"{a.output}: RPC bridge to {a.serial or program}; start it with tvm.rpc.PopenSession('{a.output}')")
    else:
        if not 1 <= a.timeout_ms <= 3_600_000:
            raise UtvmError("rpc-bridge: --timeout-ms: 1 .. 3600000")
        serve_tcp(a.tcp, a.once, a.serial, program, a.key, a.timeout_ms)
    return True


def _profile(a: argparse.Namespace) -> bool:
    import json

    import numpy as np

    from ..host import fill_inputs
    from ..options import CompileOptions
    from .profile import format_profile, profile_model

    if not a.model.exists():
        raise UtvmError(f"{a.model}: no such file or directory")
    opts = CompileOptions(name=a.name, target=a.target)
    opts.validate()
    if a.input:
        try:
            inputs = [np.load(p, allow_pickle=False) for p in a.input]
        except (OSError, ValueError) as e:
            raise UtvmError(f"cannot read an --input file: {e}") from None
    else:
        from ..compiler import compile_bytes, default_name, read_model_file

        meta = compile_bytes(read_model_file(a.model), a.name or default_name(a.model)).metadata
        inputs = fill_inputs(meta["inputs"], a.input_fill)
    doc = profile_model(a.model, inputs, device=a.device, runs=a.runs, options=opts)
    print(json.dumps(doc, indent=1) if a.json else format_profile(doc))
    return True


def _tune(a: argparse.Namespace) -> bool:
    from ..tuning import check_writable, write_record
    from .tune import tune_model

    if not a.model.exists():
        raise UtvmError(f"{a.model}: no such file or directory")
    check_writable(a.output)
    doc = tune_model(a.model, device=a.device, target=a.target, runs=a.runs, input_fill=a.input_fill,
                     optimize=a.optimize, metric=a.metric)
    write_record(a.output, doc)
    changed = sum(r["variant"] != "default" for r in doc["layers"])
    t = doc["model_total"]
    gain = f"model: {t['fixed_rules']:.6g} {doc['metric']} with the fixed rules, {t['tuned']:.6g} tuned"
    print(f"{a.output}: {len(doc['layers'])} tunable layer signatures, {changed} changed from the fixed rules, "
          f"{doc['builds']} builds; {gain}")
    return True
