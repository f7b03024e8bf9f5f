"""python -m benchmarks: build, run and measure every benchmark model on Cortex-M4 and -M55.

Writes one JSON file per (model, configuration) and a Markdown summary to --results
(default benchmarks/results/). Exit status 1 when a build or run fails or a Cortex-M output
differs from the host's; the figures themselves are never judged here.
"""

from __future__ import annotations

import argparse
import json
import platform
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

from benchmarks import qemu_plugin, reference, tflm_baseline
from benchmarks.compare import outputs_match
from benchmarks.cycles_report import render_cycles
from benchmarks.models import (
    EXAMPLE_MODELS,
    MLPERF_MODELS,
    REPO,
    STATEFUL_MODELS,
    THIRD_PARTY_MODELS,
    get_models,
    model_names,
    warmup,
)
from benchmarks.report import render
from benchmarks.runner import CORES, OPTS, BenchError, build, measure_host, measure_target, model_metadata
from benchmarks.tflm_arena import smallest_arena


def _version(cmd: list[str]) -> str:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, check=False).stdout
    except OSError:
        return "missing"
    return out.splitlines()[0].strip() if out else "unknown"


def environment() -> dict:
    import utvm_build

    return {
        "utvm-build": utvm_build.__version__,
        "arm-none-eabi-gcc": _version(["arm-none-eabi-gcc", "-dumpversion"]),
        "host gcc": _version(["cc", "-dumpversion"]),
        "qemu": _version(["qemu-system-arm", "--version"]).replace("QEMU emulator version ", ""),
        "host": platform.machine(),
    }


def model_record(meta: dict, name: str, origin: str) -> dict:
    return {
        "model": name,
        "origin": origin,
        "macs": meta["macs"],
        "operators": len(meta["operators"]),
        "workspace_bytes": meta["workspace_bytes"],
        "workspace_lower_bound_bytes": meta["workspace_lower_bound_bytes"],
        "constants_bytes": meta["constants_bytes"],
        "io": meta["options"]["io"],
        # the caller's input and output buffers (in .bss here); none with --io workspace
        "io_bytes": 0 if meta["options"]["io"] == "workspace" else sum(
            t["bytes"] for t in meta["inputs"] + meta["outputs"]),
        # state across calls (its own region, in .bss with --state static) and its items
        "state_bytes": meta.get("state_bytes", 0),
        "state": meta.get("state", []),
        "warmup_calls": warmup(meta),
        "scratch": [{"index": o["index"], "op": o["op"], "bytes": o["scratch_bytes"]}
                    for o in meta["operators"] if o.get("scratch_bytes")],
    }


def tflm_arena(m, meta: dict) -> dict:
    """TFLM's host (64-bit) arena for a model with state or post-processing (benchmarks/tflm_arena.py),
    fed the benchmark program's calls; {"error": ...} when it cannot be had."""
    try:
        calls = reference.bench_inputs(meta, warmup(meta) + 1)
        tflm_outputs = len(meta["outputs"]) if m.name in reference._TFLM_ONLY else 0
        masks = reference.detection_slots(m.path, meta, reference.reference_sequence(m.path, calls, tflm_outputs))
        return smallest_arena(m.path, calls, masks)
    except (RuntimeError, ImportError, OSError) as e:
        return {"error": str(e).splitlines()[0]}


def merged_records(runs: Path, records: list[dict]) -> list[dict]:
    """The records of this run and those of earlier runs in ``runs`` that it did not redo (so that
    `--models A B` regenerates the tables with every model), in the harness's model order."""
    mine = {(r["model"], r["config"]) for r in records}
    old = []
    for path in sorted(runs.glob("*--*.json")):
        rec = json.loads(path.read_text())
        if (rec.get("model"), rec.get("config")) not in mine:
            old.append(rec)
    names = [*EXAMPLE_MODELS, "digits", *MLPERF_MODELS, *THIRD_PARTY_MODELS, *STATEFUL_MODELS]
    order = {n: k for k, n in enumerate(names)}
    merged = old + records
    return sorted(merged, key=lambda r: (order.get(r["model"], len(order)), r["model"], config_key(r["config"])))


def codegen_suffix(codegen_args: str) -> str:
    """The configuration-name suffix of extra compile options: "--memory min" -> "+memory-min"."""
    words = [w.lstrip("-") for w in shlex.split(codegen_args)]
    slug = re.sub(r"[^A-Za-z0-9.]+", "-", "-".join(w for w in words if w)).strip("-")
    return f"+{slug}" if slug else ""


def config_key(config: str) -> tuple:
    """The order in which the harness runs configurations: host, then per core and level the
    generic and DSP builds, then the --io workspace builds."""
    if config.startswith("host"):
        return (0,)
    parts = config.split("-")
    core, opt, rest = parts[0], parts[1] if len(parts) > 1 else "", parts[2:]
    cores, opts = list(CORES), list(OPTS)
    return (2 if "io" in rest else 1, cores.index(core) if core in cores else len(cores),
            opts.index(opt) if opt in opts else len(opts), len(rest), config)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0])
    ap.add_argument("--models", nargs="*", help="model names (default: all)")
    ap.add_argument("--cores", nargs="*", default=list(CORES), choices=list(CORES))
    ap.add_argument("--opts", nargs="*", default=list(OPTS), choices=list(OPTS))
    ap.add_argument("--io-opts", nargs="*", default=["Os"], choices=list(OPTS),
                    help="optimization levels also measured with --io workspace (default: Os)")
    ap.add_argument("--targets", nargs="*", default=["generic", "dsp"], choices=["generic", "dsp"],
                    help="utvm-build --target of the Cortex-M builds: generic (portable C kernels) and/or "
                         "dsp (the core's own target: cortex-m4, kernels/arm_dsp / cortex-m55, kernels/arm_mve then "
                         "arm_dsp); "
                         "--io workspace builds are generic")
    ap.add_argument("--io-targets", nargs="*", default=["generic"], choices=["generic", "dsp"],
                    help="utvm-build --target of the --io workspace builds (default: generic)")
    ap.add_argument("--codegen-args", default="", metavar="ARGS",
                    help="extra utvm-build compile options for every model and build, e.g. \"--memory min\" "
                         "(CMake: BENCH_CODEGEN_ARGS); the configurations are named with a suffix from them "
                         "(m4-Os-io+memory-min)")
    ap.add_argument("--work-dir", type=Path, default=REPO / "build" / "benchmarks")
    ap.add_argument("--results", type=Path, default=REPO / "benchmarks" / "results")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per QEMU run")
    ap.add_argument("--no-reference", action="store_true",
                    help="skip comparing the host outputs with the TFLite reference kernels")
    args = ap.parse_args(argv)

    t0 = time.monotonic()
    names = model_names()
    if args.models:
        unknown = set(args.models) - set(names)
        if unknown:
            print(f"benchmarks: unknown model(s): {', '.join(sorted(unknown))}; "
                  f"have {', '.join(names)}", file=sys.stderr)
            return 2
        names = [n for n in names if n in args.models]
    models = get_models(names, args.work_dir)

    failures: list[str] = []
    records: list[dict] = []
    try:
        qemu_plugin.build_plugin()
        suffix = codegen_suffix(args.codegen_args)
        host_dir = args.work_dir / f"host-O2{suffix}"
        print(f"== host -O2{suffix}: building {len(models)} models", flush=True)
        build(models, None, "O2", host_dir, codegen_args=args.codegen_args)
        host: dict[str, dict] = {}
        metas: dict[str, dict] = {}
        arenas: dict[str, dict] = {}
        for m in models:
            metas[m.name] = model_metadata(host_dir, m)
            host[m.name] = measure_host(host_dir, m)
            rec = model_record(metas[m.name], m.name, m.origin) | {"config": f"host-O2{suffix}"} | host[m.name]
            if m.name in STATEFUL_MODELS:
                arenas[m.name] = tflm_arena(m, metas[m.name])
                a = arenas[m.name]
                print(f"   {m.name}: TFLM host arena {a.get('arena_bytes', a.get('error'))}", flush=True)
            if not args.no_reference:
                rec["outputs_vs_reference"] = reference.check(m, metas[m.name], host[m.name]["outputs"])
                if not rec["outputs_vs_reference"].startswith(("identical", "within", "no reference")):
                    failures.append(f"{m.name} host: {rec['outputs_vs_reference']}")
            records.append(rec)
            print(f"   {m.name}: {rec.get('instructions', '-')} instructions (callgrind), "
                  f"{rec.get('outputs_vs_reference', 'not checked')} vs reference", flush=True)
        configs = [(CORES[c], opt, "caller", t) for c in args.cores for opt in args.opts for t in args.targets]
        configs += [(CORES[c], opt, "workspace", t) for c in args.cores for opt in args.io_opts
                    for t in args.io_targets]
        for core, opt, io, tgt in configs:
            target = "generic" if tgt == "generic" else core.cpu
            config = f"{core.name}-{opt}" + ("-io" if io == "workspace" else "")
            config += (f"-{target}" if tgt != "generic" else "") + suffix
            print(f"== {config}: building (--target {target})", flush=True)
            build_dir = args.work_dir / config
            build(models, core, opt, build_dir, io, target, args.codegen_args)
            for m in models:
                r = measure_target(build_dir, m, core, args.timeout)
                dtypes = [t["dtype"] for t in metas[m.name]["outputs"]]
                ok, how = outputs_match(r["outputs"], host[m.name]["outputs"], dtypes)
                if not ok or r["rc"] != 0:
                    failures.append(f"{m.name} {config}: rc {r['rc']}, {how}")
                rec = model_record(model_metadata(build_dir, m), m.name, m.origin) | {"config": config,
                                                                                       "target": target} | r
                rec["outputs_vs_host"] = how
                macs = {o["index"]: o["macs"] for o in model_metadata(build_dir, m)["operators"]}
                for row in rec["per_operator"]:
                    row["macs"] = macs.get(row["index"], 0)
                records.append(rec)
                est = "cortex-m55" if core.name == "m55" else "cortex-m4"
                print(f"   {m.name}: {r['instructions']} instructions, ~{r['cycles'][est]} {est[7:].upper()} cycles, "
                      f"flash {r['flash_bytes']}, stack {r['stack_bytes']}, outputs {how}", flush=True)
    except (BenchError, qemu_plugin.InsnCountError) as e:
        print(f"benchmarks: {e}", file=sys.stderr)
        return 1

    for rec in records:
        if rec["model"] in arenas:
            rec["tflm_host_arena"] = arenas[rec["model"]]
    runs = args.results / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    for rec in records:
        path = runs / f"{rec['model']}--{rec['config']}.json"
        path.write_text(json.dumps(rec, indent=2, sort_keys=True) + "\n")
    env = environment()
    merged = merged_records(runs, records)
    (args.results / "README.md").write_text("\n".join([render(merged, env), *render_cycles(merged)]) + "\n")
    # the TFLM baseline's section (python -m benchmarks.tflm_baseline), kept from its own records
    tflm_baseline.update_readme(args.results / "README.md", args.results / "tflm", runs)
    print(f"== wrote {len(records)} records to {args.results} in {time.monotonic() - t0:.0f} s")
    for f in failures:
        print(f"FAILED: {f}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
