"""Build the C runtime's RPC server with packed models in its system library: as a host program,
or as Cortex-M4 firmware for QEMU's mps2-an386 board with a launcher script."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

from ..errors import UtvmError
from ..host import STRICT_CFLAGS, _compile, host_cc

#: `--sanitize`: the server under ASan/UBSan (the fuzz and fault tests use it).
SANITIZE_CFLAGS = ["-O1", "-g", "-fno-omit-frame-pointer", "-fsanitize=address,undefined",
                   "-fno-sanitize-recover=all"]


def _generated_dir(model: Path, work: Path) -> Path:
    """A generated directory with the packed interface: ``model`` itself (a directory generated
    with --interface packed, or its metadata.json) or a .tflite compiled into ``work``."""
    if model.name == "metadata.json":
        model = model.parent
    if model.is_dir():
        meta = json.loads((model / "metadata.json").read_text())
        if meta["options"]["interface"] != "packed":
            raise UtvmError(f"{model}: generated with --interface {meta['options']['interface']}; "
                            "the RPC server needs --interface packed")
        return model
    from ..compiler import compile_model
    from ..options import CompileOptions

    out = work / model.stem
    compile_model(model, out, CompileOptions(interface="packed"))
    return out


def build_host_server(models: Sequence[str | Path], output: str | Path, *, sanitize: bool = False,
                      cflags: Sequence[str] = ("-O2",)) -> Path:
    """Compile the RPC server (crt/src/rpc_server.c, crt/host/rpc_server_host.c) with the models'
    packed entry points into the executable ``output``; ``tvm.rpc.PopenSession(output)`` and
    :func:`utvm_build.rpc.popen` start it. One model: its own system library; several: one system
    library for all (``utvm-build syslib``)."""
    from ..emit.system_lib import write_system_lib
    from ..paths import crt_dir

    if not models:
        raise UtvmError("rpc-server: give at least one model")
    crt = crt_dir()
    output = Path(output)
    with tempfile.TemporaryDirectory(prefix="utvm-rpc-") as tmp:
        work = Path(tmp)
        dirs = [_generated_dir(Path(m), work) for m in models]
        sources: list[str] = []
        includes: list[str] = []
        defines: list[str] = []
        for d in dirs:
            meta = json.loads((d / "metadata.json").read_text())
            sources += [str(d / s) for s in meta["sources"]]
            includes += [f"-I{d / i}" for i in meta["include_dirs"]]
            if len(dirs) > 1:
                defines.append(f"-DTVMGEN_{meta['name'].upper()}_NO_SYSTEM_LIB_ENTRY")
        if len(dirs) > 1:
            write_system_lib(dirs, work / "system_lib.c")
            sources.append(str(work / "system_lib.c"))
        sources += sorted(str(p) for p in (crt / "src").glob("*.c"))
        sources.append(str(crt / "host" / "rpc_server_host.c"))
        flags = SANITIZE_CFLAGS if sanitize else list(cflags)
        output.parent.mkdir(parents=True, exist_ok=True)
        cmd = host_cc() + STRICT_CFLAGS + flags + defines + includes + [f"-I{crt / 'include'}", *sources,
                                                                         "-o", str(output), "-lm"]
        _compile(cmd)
    return output


#: Cortex-M4 firmware flags (as crt/Makefile's size and test-qemu targets).
ARM_CFLAGS = ["-mthumb", "-Os", "-ffunction-sections", "-fdata-sections", "-mcpu=cortex-m4", "-mfloat-abi=hard",
              "-mfpu=fpv4-sp-d16", "-fno-tree-loop-distribute-patterns"]
QEMU_M4 = ["qemu-system-arm", "-M", "mps2-an386", "-cpu", "cortex-m4", "-display", "none", "-monitor", "none",
           "-serial", "stdio", "-semihosting-config", "enable=on,target=native"]


def build_qemu_server(models: Sequence[str | Path], output: str | Path, *, arena_bytes: int = 64 * 1024,
                      framed: bool = False) -> Path:
    """The RPC server as Cortex-M4 firmware (``output``.elf, crt/ports/mps2_an386) and ``output``, a
    launcher script: ``output RFD WFD`` runs QEMU mps2-an386 with the board's UART0 on those file
    descriptors, so ``tvm.rpc.PopenSession(output)`` and :func:`utvm_build.rpc.popen` drive it.
    ``framed``: the UART carries the frames of crt/include/tvm/runtime/crt/rpc_framing.h (then only
    ``utvm_build.rpc.popen(output, framing=True)`` speaks to it)."""
    from ..emit.system_lib import write_system_lib
    from ..paths import crt_dir

    for tool in ("arm-none-eabi-gcc", "qemu-system-arm"):
        if shutil.which(tool) is None:
            raise UtvmError(f"rpc-server --device qemu-m4 needs {tool} (Debian: gcc-arm-none-eabi, qemu-system-arm)")
    crt = crt_dir()
    output = Path(output)
    elf = output.with_name(output.name + ".elf")
    runtime = ["crt_string", "error", "func_registry", "module", "crt_backend_api", "stack_allocator",
               "tensor_args", "rpc_server"]
    with tempfile.TemporaryDirectory(prefix="utvm-rpc-") as tmp:
        work = Path(tmp)
        dirs = [_generated_dir(Path(m), work) for m in models]
        sources: list[str] = []
        includes: list[str] = []
        defines: list[str] = [f"-DUTVM_RPC_ARENA_BYTES={int(arena_bytes)}U", "-DUTVM_RPC_EXIT_ON_SHUTDOWN=1",
                              f"-DUTVM_RPC_FRAMED={int(framed)}"]
        for d in dirs:
            meta = json.loads((d / "metadata.json").read_text())
            sources += [str(d / s) for s in meta["sources"]]
            includes += [f"-I{d / i}" for i in meta["include_dirs"]]
            if len(dirs) > 1:
                defines.append(f"-DTVMGEN_{meta['name'].upper()}_NO_SYSTEM_LIB_ENTRY")
        if len(dirs) > 1:
            write_system_lib(dirs, work / "system_lib.c")
            sources.append(str(work / "system_lib.c"))
        sources += [str(crt / "src" / f"{n}.c") for n in runtime + (["rpc_framing"] if framed else [])]
        sources.append(str(crt / "ports" / "mps2_an386" / "rpc_main.c"))
        output.parent.mkdir(parents=True, exist_ok=True)
        cmd = (["arm-none-eabi-gcc", *STRICT_CFLAGS, *ARM_CFLAGS, *defines, *includes, f"-I{crt / 'include'}",
                *sources, "-nostartfiles", "-Wl,--gc-sections", f"-T{crt / 'ports' / 'mps2_an386' / 'mps2_an386.ld'}",
                "--specs=nano.specs", "--specs=nosys.specs", "-o", str(elf)])
        _compile(cmd)
    qemu = " ".join(QEMU_M4)
    output.write_text("#!/usr/bin/env bash\n"
                      "# RPC server on QEMU mps2-an386 (Cortex-M4): utvm-build rpc-server --device qemu-m4.\n"
                      "# Usage: $0 RFD WFD (as tvm.rpc.PopenSession runs it): the board's UART0 on those fds.\n"
                      f'exec {qemu} -kernel "$(dirname "$0")/{elf.name}" <&"$1" >&"$2"\n')
    output.chmod(0o755)
    return output
