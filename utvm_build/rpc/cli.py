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
    p.add_argument("--framed", action="store_true",
                   help="qemu-*: the UART carries the CRT's serial frames (CRC, resending; "
                        "utvm_build.rpc.popen(PATH, framing=True)); host programs take --framed when started")


def run(a: argparse.Namespace) -> bool:
    """Handle the command if it is one of ours; False otherwise."""
    if a.command != "rpc-server":
        return False
    from .build import build_host_server, build_qemu_server

    for m in a.models:
        if not m.exists():
            raise UtvmError(f"{m}: no such file or directory")
    if a.device.startswith("qemu-"):
        if a.sanitize:
            raise UtvmError("rpc-server: --sanitize is for --device host")
        out = build_qemu_server(a.models, a.output, framed=a.framed, device=a.device)
    else:
        out = build_host_server(a.models, a.output, sanitize=a.sanitize)
    print(f"{out}: RPC server ({a.device}) with {', '.join(str(m) for m in a.models)}; "
          f"start it with tvm.rpc.PopenSession('{out}') or utvm_build.rpc.popen('{out}')")
    return True
