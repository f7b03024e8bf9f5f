"""Build the C runtime's RPC server with packed models in its system library: as a host program,
or as Cortex-M4 / M55 firmware for QEMU (mps2-an386, mps3-an547) with a launcher script."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
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


def model_limits(dirs: Sequence[Path], defines: Sequence[str] = ()) -> list[str]:
    """``-D`` flags raising the server's per-call limits (crt/include/tvm/runtime/crt/rpc_server.h)
    to what calling each model's run takes (all its inputs and outputs as tensors: e.g. a detection
    model's four outputs), unless ``defines`` sets them; nothing for models within the defaults."""
    ports = [json.loads((d / "metadata.json").read_text()) for d in dirs]
    ports = [m["inputs"] + m["outputs"] for m in ports]
    tensors = max(len(p) for p in ports)
    dims = max(sum(max(1, len(t["shape"])) for t in p) for p in ports)
    want = {"TVM_CRT_RPC_MAX_TENSOR_ARGS": (tensors, 4), "TVM_CRT_RPC_MAX_ARGS": (tensors, 12),
            "TVM_CRT_RPC_MAX_SHAPE_DIMS": (dims, 16), "TVM_CRT_RPC_MAX_ALLOCS": (tensors + 4, 16),
            # the system library getter and module, each model's run, reset and profile_read (+2 spare)
            "TVM_CRT_RPC_MAX_HANDLES": (3 * len(ports) + 4, 8)}
    given = {d.split("=")[0] for d in defines}
    return [f"-D{k}={n}" for k, (n, default) in want.items() if n > default and k not in given]


#: The minimal server (docs/rpc.md): no time evaluator, no CopyAmongRemote, error codes for texts.
MINIMAL = ("TVM_CRT_RPC_TIME_EVALUATOR=0", "TVM_CRT_RPC_COPY_AMONG_REMOTE=0", "TVM_CRT_RPC_ERROR_MESSAGES=0")


def build_host_server(models: Sequence[str | Path], output: str | Path, *, sanitize: bool = False,
                      cflags: Sequence[str] = ("-O2",), defines: Sequence[str] = ()) -> Path:
    """Compile the RPC server (crt/src/rpc_server.c, crt/host/rpc_server_host.c) with the models'
    packed entry points into the executable ``output``; ``tvm.rpc.PopenSession(output)`` and
    :func:`utvm_build.rpc.popen` start it. One model: its own system library; several: one system
    library for all (``utvm-build syslib``). ``defines``: more ``-D`` flags (e.g. :data:`MINIMAL`)."""
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
        flags_d: list[str] = [f"-D{d}" for d in defines]
        for d in dirs:
            meta = json.loads((d / "metadata.json").read_text())
            sources += [str(d / s) for s in meta["sources"]]
            includes += [f"-I{d / i}" for i in meta["include_dirs"]]
            if len(dirs) > 1:
                flags_d.append(f"-DTVMGEN_{meta['name'].upper()}_NO_SYSTEM_LIB_ENTRY")
        flags_d += model_limits(dirs, defines)
        if len(dirs) > 1:
            write_system_lib(dirs, work / "system_lib.c")
            sources.append(str(work / "system_lib.c"))
        sources += sorted(str(p) for p in (crt / "src").glob("*.c"))
        sources.append(str(crt / "host" / "rpc_server_host.c"))
        flags = SANITIZE_CFLAGS if sanitize else list(cflags)
        program = work / "rpc_server"   # linked here, then installed (install_program)
        cmd = host_cc() + STRICT_CFLAGS + flags + flags_d + includes + [f"-I{crt / 'include'}", *sources,
                                                                         "-o", str(program), "-lm"]
        _compile(cmd)
        install_program(output, program.read_bytes() + PROGRAM_MARK)
    return output


#: The last bytes of every program and firmware rpc-server writes: how it recognises a file of its
#: own to replace (loaders ignore bytes after the last section). Launcher scripts: LAUNCHER_MARKS.
PROGRAM_MARK = b"\n\0utvm-build rpc-server program\0\n"
LAUNCHER_MARKS = (b"# RPC server on QEMU ", b"# The RPC bridge (utvm-build rpc-bridge)")


def check_output(output: str | Path, launcher: bool = False) -> None:
    """Refuse, before building, an output that is a directory, a link or a file rpc-server did not write."""
    from ..safe_fs import check_file_target

    try:
        check_file_target(output, owned=_owned(launcher), what="the program")
        if launcher:
            check_file_target(Path(output).with_name(Path(output).name + ".elf"), owned=_owned(False),
                              what="the firmware")
    except OSError as e:
        raise UtvmError(f"cannot write {output}: {e.strerror or e}") from None


def _owned(launcher: bool):  # noqa: ANN202, ARG001
    """A file rpc-server or rpc-bridge wrote, of either kind: `-o srv` may switch between a host
    program and a QEMU launcher (`--device host` after `--device qemu-m4`)."""
    from ..safe_fs import owned_by_prefix, owned_by_suffix

    launcher_file, program_file = owned_by_prefix(*LAUNCHER_MARKS), owned_by_suffix(PROGRAM_MARK)
    return lambda data: launcher_file(data) or program_file(data)


def install_program(output: str | Path, data: bytes, launcher: bool = False) -> None:
    """Write an executable rpc-server made (docs/output.md: atomically, never over a file it did not
    write, never through a link)."""
    from ..safe_fs import write_file

    try:
        write_file(output, data, owned=_owned(launcher), what="the program", mode=0o755)
    except OSError as e:
        raise UtvmError(f"cannot write {output}: {e.strerror or e}") from None


#: Flags of every Cortex-M firmware (as crt/Makefile's size target).
ARM_CFLAGS = ["-mthumb", "-Os", "-ffunction-sections", "-fdata-sections", "-fno-tree-loop-distribute-patterns"]


@dataclass(frozen=True)
class Board:
    """A QEMU board the RPC firmware runs on (crt/ports/<port>: board.h and the linker script)."""
    device: str
    machine: str
    cpu: str
    port: str
    cpu_flags: tuple[str, ...]

    def qemu(self) -> list[str]:
        return ["qemu-system-arm", "-M", self.machine, "-cpu", self.cpu, "-display", "none", "-monitor", "none",
                "-serial", "stdio", "-semihosting-config", "enable=on,target=native"]


BOARDS = {
    "qemu-m4": Board("qemu-m4", "mps2-an386", "cortex-m4", "mps2_an386",
                     ("-mcpu=cortex-m4", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16")),
    "qemu-m55": Board("qemu-m55", "mps3-an547", "cortex-m55", "mps3_an547", ("-mcpu=cortex-m55", "-mfloat-abi=hard")),
}
QEMU_M4 = BOARDS["qemu-m4"].qemu()


def check_cross_tools(device: str) -> None:
    for tool in ("arm-none-eabi-gcc", "qemu-system-arm"):
        if shutil.which(tool) is None:
            raise UtvmError(f"--device {device} needs {tool} (Debian: gcc-arm-none-eabi, qemu-system-arm)")


def build_qemu_server(models: Sequence[str | Path], output: str | Path, *, arena_bytes: int = 64 * 1024,
                      framed: bool = False, device: str = "qemu-m4", defines: Sequence[str] = (),
                      launcher: bool = True) -> Path:
    """The RPC server as firmware for a QEMU board (``output``.elf; ``device`` qemu-m4: Cortex-M4 on
    mps2-an386, qemu-m55: Cortex-M55 on mps3-an547; crt/ports/) and ``output``, a launcher script:
    ``output RFD WFD`` runs QEMU with the board's UART0 on those file descriptors, so
    ``tvm.rpc.PopenSession(output)`` and :func:`utvm_build.rpc.popen` drive it. ``framed``: the UART
    carries the frames of crt/include/tvm/runtime/crt/rpc_framing.h (then our client with
    ``framing=True``, or TVM's through ``utvm-build rpc-bridge``). ``defines``: more ``-D`` flags
    (the server's crt_config options, e.g. ``TVM_CRT_RPC_TIME_EVALUATOR=0``)."""
    from ..emit.system_lib import write_system_lib
    from ..paths import crt_dir

    if device not in BOARDS:
        raise UtvmError(f"unknown device {device!r} (one of {', '.join(BOARDS)})")
    board = BOARDS[device]
    check_cross_tools(device)
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
        flags: list[str] = [f"-DUTVM_RPC_ARENA_BYTES={int(arena_bytes)}U", "-DUTVM_RPC_EXIT_ON_SHUTDOWN=1",
                            f"-DUTVM_RPC_FRAMED={int(framed)}", *(f"-D{d}" for d in defines)]
        libs: list[str] = []
        for d in dirs:
            meta = json.loads((d / "metadata.json").read_text())
            sources += [str(d / s) for s in meta["sources"]]
            includes += [f"-I{d / i}" for i in meta["include_dirs"]]
            libs += [f"-l{lib}" for lib in meta.get("link_libraries", []) if f"-l{lib}" not in libs]
            if len(dirs) > 1:
                flags.append(f"-DTVMGEN_{meta['name'].upper()}_NO_SYSTEM_LIB_ENTRY")
        flags += model_limits(dirs, defines)
        if len(dirs) > 1:
            write_system_lib(dirs, work / "system_lib.c")
            sources.append(str(work / "system_lib.c"))
        sources += [str(crt / "src" / f"{n}.c") for n in runtime + (["rpc_framing"] if framed else [])]
        sources.append(str(crt / "ports" / "cmsdk_rpc_main.c"))
        port = crt / "ports" / board.port
        linked = work / "firmware.elf"   # linked here, then installed (install_program)
        cmd = (["arm-none-eabi-gcc", *STRICT_CFLAGS, *ARM_CFLAGS, *board.cpu_flags, *flags, *includes,
                f"-I{crt / 'include'}", f"-I{port}", *sources, "-nostartfiles", "-Wl,--gc-sections",
                f"-T{port / (board.port + '.ld')}", "--specs=nano.specs", "--specs=nosys.specs", "-o", str(linked),
                *libs])
        _compile(cmd)
        install_program(elf, linked.read_bytes() + PROGRAM_MARK)
    if launcher:
        qemu = " ".join(board.qemu())
        install_program(output, ("#!/usr/bin/env bash\n"
                                 f"# RPC server on QEMU {board.machine} ({board.cpu}): utvm-build rpc-server "
                                 f"--device {device}.\n"
                                 "# Usage: $0 RFD WFD (as tvm.rpc.PopenSession runs it): the board's UART0 on "
                                 "those fds.\n"
                                 f'exec {qemu} -kernel "$(dirname "$0")/{elf.name}" <&"$1" >&"$2"\n').encode(),
                        launcher=True)
    return output
