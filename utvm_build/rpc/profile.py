"""`utvm-build profile MODEL --device host|qemu-m4|qemu-m55`: time every operator on the device.

The model is compiled with ``profile=True`` and the packed interface: the entry point times each
operator with ``TVMPlatformTimerStart/Stop`` into a table on the device, and the packed function
``tvmgen_<name>_profile_read`` hands the table over RPC (emit/profile.py). One warm-up run, the
table cleared, then ``runs`` runs: per operator the mean time per call and its share, and the
total. On QEMU, when the instruction-counting plugin of ``benchmarks/qemu_plugin`` is at hand (a
source checkout), QEMU runs with it: instructions per operator and call (exact, deterministic), and
their mix, from which ``benchmarks/cycles.py`` estimates the core's cycles per operator (the figure
a board's timer would give)."""

from __future__ import annotations

import json
import shlex
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from ..errors import UtvmError


def _benchmarks_module(name: str):
    """benchmarks.<name> (the QEMU plugin, the cycle model), or None outside a source checkout."""
    import importlib
    import sys

    from ..paths import crt_dir

    root = crt_dir().parent
    if not (root / "benchmarks" / "qemu_plugin" / "__init__.py").is_file():
        return None
    if str(root) not in sys.path:
        sys.path.append(str(root))
    try:
        return importlib.import_module(f"benchmarks.{name}")
    except ImportError:
        return None


def _plugin():
    return _benchmarks_module("qemu_plugin")


def _cycle_model(device: str):
    """The cycle model of the device's core (benchmarks/cycles.py), or None without the checkout."""
    from .build import BOARDS

    cycles = _benchmarks_module("cycles")
    return None if cycles is None else cycles.MODELS.get(BOARDS[device].cpu)


def _nm(elf: Path) -> dict[str, int]:
    p = subprocess.run(["arm-none-eabi-nm", "--defined-only", str(elf)], capture_output=True, text=True)
    out = {}
    for line in p.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "Tt":
            out[parts[2]] = int(parts[0], 16) & ~1
    return out


def _qemu_with_plugin(server: Path, device: str, meta: dict, work: Path) -> tuple[Path, Path, list[int]] | None:
    """A launcher that runs the firmware under the counting plugin: (launcher, result file, the
    operators' function addresses); None when the plugin is not at hand."""
    from .build import BOARDS

    plugin_mod = _plugin()
    if plugin_mod is None:
        return None
    try:
        plugin = plugin_mod.build_plugin(work / "plugin")
    except Exception:  # noqa: BLE001 - instructions are optional: time is still measured
        return None
    elf = server.with_name(server.name + ".elf")
    syms = _nm(elf)
    prefix = meta["prefix"]
    try:
        start, end = syms[f"{prefix}_profile_begin"], syms[f"{prefix}_profile_end"]
        marks = [syms[r["function"]] for r in meta["operators"] if r["function"]]
    except KeyError:
        return None
    (work / "marks.txt").write_text("".join(f"{a:#x}\n" for a in marks))
    result = work / "insn.txt"
    opts = f"{plugin},start={start:#x},end={end:#x},out={result},marks={work / 'marks.txt'},mix=on"
    if "," in str(work):
        return None
    launcher = work / "qemu_plugin_launcher"
    qemu = " ".join(shlex.quote(a) for a in BOARDS[device].qemu())
    launcher.write_text("#!/usr/bin/env bash\n"   # bash: descriptors above 9 in <&"$1"
                        f'exec {qemu} -kernel {shlex.quote(str(elf))} -plugin {shlex.quote(opts)} <&"$1" >&"$2"\n')
    launcher.chmod(0o755)
    return launcher, result, marks


def profile_model(model: str | Path, inputs: Sequence[np.ndarray] | None = None, *, device: str = "host",
                  runs: int = 10, options=None, timeout: float = 120.0, instructions: bool = True) -> dict:
    """Per-operator device time of ``model`` (see the module docstring); a JSON-ready dict."""
    from ..compiler import compile_model
    from ..options import CompileOptions
    from .build import BOARDS, build_host_server, build_qemu_server
    from .client import popen

    if device != "host" and device not in BOARDS:
        raise UtvmError(f"profile: unknown device {device!r} (one of host, {', '.join(BOARDS)})")
    if runs < 1:
        raise UtvmError("profile: --runs must be at least 1")
    opts = replace(options or CompileOptions(), interface="packed", profile=True, workspace="static")
    with tempfile.TemporaryDirectory(prefix="utvm-profile-") as tmp:
        work = Path(tmp)
        gen = work / "gen"
        compile_model(model, gen, opts)
        meta = json.loads((gen / "metadata.json").read_text())
        # The profile table has a slot per operator function (VAR_HANDLE and the like have none).
        ins, outs, ops = meta["inputs"], meta["outputs"], [r for r in meta["operators"] if r["function"]]
        values = list(inputs) if inputs is not None else [np.zeros(p["shape"], p["dtype"]) for p in ins]
        if len(values) != len(ins):
            raise UtvmError(f"the model has {len(ins)} inputs, {len(values)} given")
        counted = None
        if device == "host":
            server = build_host_server([gen], work / "rpc_server")
        else:
            server = build_qemu_server([gen], work / "rpc_server", device=device)
            counted = _qemu_with_plugin(server, device, meta, work) if instructions else None
            if counted is not None:
                server = counted[0]
        s = popen(server, timeout=timeout)
        try:
            lib = s.system_lib()
            run = lib.get_function(f"{meta['prefix']}_run")
            read = lib.get_function(f"{meta['prefix']}_profile_read")
            args = [s.tensor(np.ascontiguousarray(np.asarray(v, p["dtype"]).reshape(p["shape"])))
                    for v, p in zip(values, ins)]
            args += [s.empty(p["shape"], p["dtype"]) for p in outs]
            table = s.empty((len(ops) + 1, 2), "float64")
            run(*args)                     # warm-up
            read(table)                    # ... and the table cleared
            for _ in range(runs):
                run(*args)
            read(table)
            t = table.numpy()
        finally:
            s.close()
            proc = getattr(s._t, "proc", None)
            if proc is not None:           # the plugin writes its counts when QEMU exits
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
        insns = cycles = None
        if counted is not None and counted[1].exists():
            res = _plugin().parse_result(counted[1].read_text())
            per_mark = {addr: (n, mix) for addr, n, mix in res.segments}
            # every run counted, the warm-up too
            insns = [per_mark.get(addr, (0, {}))[0] // (runs + 1) for addr in counted[2]]
            model = _cycle_model(device)
            if model is not None and all(per_mark.get(addr, (0, {}))[1] for addr in counted[2]):
                est = _benchmarks_module("cycles").estimate
                cycles = [est(per_mark[addr][1], model) // (runs + 1) for addr in counted[2]]
    if t[len(ops), 0] != 0:
        raise UtvmError(f"profile: the device's timer failed {int(t[len(ops), 0])} times")
    total = float(sum(t[k, 0] for k in range(len(ops)))) / runs
    rows = []
    for k, r in enumerate(ops):
        calls = int(t[k, 1])
        if calls != runs:
            raise UtvmError(f"profile: operator {r['index']} ({r['op']}) timed {calls} times, expected {runs}")
        sec = float(t[k, 0]) / runs
        row = {"index": r["index"], "op": r["op"], "function": r["function"], "seconds": sec,
               "share": sec / total if total > 0 else 0.0, "macs": r["macs"]}
        if insns is not None:
            row["instructions"] = insns[k]
        if cycles is not None:
            row["cycles"] = cycles[k]
        rows.append(row)
    doc = {"model": meta["name"], "device": device, "runs": runs, "operators": rows, "total_seconds": total,
           "clock": "TVMPlatformTimerStart/Stop on the device" + (" (QEMU: emulated time)" if device != "host" else "")}
    if insns is not None:
        doc["total_instructions"] = sum(insns)
    if cycles is not None:
        doc["total_cycles"] = sum(cycles)
        model = _cycle_model(device)
        doc["cycle_model"] = f"{model.name}: {model.source}"
    return doc


def format_profile(doc: dict) -> str:
    # the counted columns, when QEMU ran with the plugin: (heading, row key, total key)
    counted = [c for c in (("instructions", "instructions", "total_instructions"),
                           ("est. cycles", "cycles", "total_cycles")) if c[2] in doc]
    lines = [f"{doc['model']} on {doc['device']}: mean of {doc['runs']} runs, {doc['clock']}",
             f"{'op':>4}  {'operator':<22} {'function':<44} {'time [us]':>10} {'share':>7}"
             + "".join(f" {h:>13}" for h, _, _ in counted)]
    for r in doc["operators"]:
        lines.append(f"{r['index']:>4}  {r['op']:<22} {r['function']:<44} {r['seconds'] * 1e6:>10.1f} "
                     f"{r['share'] * 100:>6.1f}%" + "".join(f" {r[k]:>13}" for _, k, _ in counted))
    lines.append(f"{'':>4}  {'total':<22} {'':<44} {doc['total_seconds'] * 1e6:>10.1f} {100:>6.1f}%"
                 + "".join(f" {doc[t]:>13}" for _, _, t in counted))
    if "cycle_model" in doc:
        lines.append(f"est. cycles: benchmarks/cycles.py ({doc['cycle_model']}; zero wait states)")
    return "\n".join(lines)
