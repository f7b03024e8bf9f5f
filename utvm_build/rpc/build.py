"""Build the C runtime's RPC server as a host program with packed models in its system library."""

from __future__ import annotations

import json
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
