"""Markdown tables from the benchmark records (benchmarks/results/README.md)."""

from __future__ import annotations

#: TensorFlow Lite Micro on the same compiler and emulator (../shared/docs/anchors.md):
#: Cortex-M4, -Os, instructions of one Invoke() counted by a TCG plugin between markers.
TFLM_M4_OS = {
    "kws_dscnn": {"instr_cmsis": 9.23e6, "instr_ref": 134.0e6, "flash": 127124, "weights": 24368,
                  "ram": 24540},
    "vww_mobilenet": {"instr_cmsis": 28.56e6, "instr_ref": 370.0e6, "flash": 406476,
                      "weights": 219064, "ram": 102428},
    "ic_resnet8": {"instr_cmsis": 41.07e6, "instr_ref": 539.0e6, "flash": 165040, "weights": 78744,
                   "ram": 56716},
    "ad_autoencoder": {"instr_cmsis": 0.84e6, "instr_ref": 4.07e6, "flash": 302500,
                       "weights": 270880, "ram": 4072},
    "micro_speech": {"instr_cmsis": 2.39e6, "instr_ref": 17.8e6, "flash": 67912, "weights": 16688,
                     "ram": 8536},
}


def _n(v: float | int | None) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.2f}"
    return f"{v:,}".replace(",", " ")


def _m(v: int | None) -> str:
    return "-" if v is None else f"{v / 1e6:.2f} M"


def render(records: list[dict], environment: dict) -> str:
    """records: one per (model, config) as written to the JSON files."""
    by_key = {(r["model"], r["config"]): r for r in records}
    models = list(dict.fromkeys(r["model"] for r in records))
    configs = list(dict.fromkeys(r["config"] for r in records if r["config"] != "host-O2"))
    out = ["# Benchmark results", "",
           "Produced by `python -m benchmarks` (see [../README.md](../README.md) for what is measured "
           "and how). One inference per model, deterministic pseudo-random input; every Cortex-M "
           "run's outputs are compared with the host build's.", "",
           "Environment: " + ", ".join(f"{k} `{v}`" for k, v in environment.items()), ""]
    for config in configs:
        out += [f"## {config}", "",
                "| model | MACs | instructions | instr/MAC | MACs/instr | flash | of which constants "
                "| code (model + runtime) | workspace | data+bss | stack | RAM total | outputs vs host |",
                "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
        for model in models:
            r = by_key.get((model, config))
            if r is None:
                continue
            macs, instr = r["macs"], r["instructions"]
            split = r["flash_split"]
            out.append("| " + " | ".join([
                model, _n(macs), _n(instr),
                _n(instr / macs) if macs else "-", f"{macs / instr:.3f}" if macs else "-",
                _n(r["flash_bytes"]), _n(split["constants"]), _n(split["model"] + split["runtime"]),
                _n(r["workspace_bytes"]), _n(r["data_bss_bytes"] - r["io_bytes"]) + f" (+{_n(r['io_bytes'])} I/O)",
                _n(r["stack_bytes"]), _n(r["ram_bytes"]), r["outputs_vs_host"]]) + " |")
        out.append("")
    host = [by_key[(m, "host-O2")] for m in models if (m, "host-O2") in by_key]
    if host:
        out += ["## Host (x86-64, gcc -O2, callgrind)", "",
                "| model | MACs | instructions of tvmgen_<name>_run | instr/MAC | outputs vs reference |",
                "|---|---:|---:|---:|---|"]
        for r in host:
            out.append(f"| {r['model']} | {_n(r['macs'])} | {_n(r.get('instructions'))} | "
                       f"{_n(r['instructions'] / r['macs']) if r['macs'] and r.get('instructions') else '-'} | "
                       f"{r.get('outputs_vs_reference', '-')} |")
        out.append("")
    tflm = [(m, by_key[(m, "m4-Os")]) for m in models if m in TFLM_M4_OS and (m, "m4-Os") in by_key]
    if tflm:
        out += ["## Against TensorFlow Lite Micro (Cortex-M4, -Os, same compiler and emulator)", "",
                "TFLM figures from `../shared/docs/anchors.md` (its MLPerf Tiny models have trained "
                "weights; ours are re-created architectures with synthetic weights, the same layer "
                "shapes). Flash overhead = flash minus weights and biases (ours: minus the whole constants "
                "section, which also holds the per-channel requantization tables).", "",
                "RAM = data + bss + workspace + stack, the model's input and output buffers included "
                "(TFLM keeps them in its arena; ours with `--io workspace` do too).", "",
                "| model | instr, ours | TFLM + CMSIS-NN | TFLM reference | ours / CMSIS-NN "
                "| flash overhead, ours | TFLM + CMSIS-NN | RAM, ours | ours, --io workspace | TFLM "
                "| stack, ours | TFLM + CMSIS-NN |",
                "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for m, r in tflm:
            t = TFLM_M4_OS[m]
            overhead = r["flash_bytes"] - r["flash_split"]["constants"]
            io = by_key.get((m, "m4-Os-io"))
            ram_io = f"{_n(io['ram_bytes'])} ({io['ram_bytes'] / t['ram']:.2f}x)" if io else "-"
            out.append(f"| {m} | {_m(r['instructions'])} | {_m(int(t['instr_cmsis']))} | "
                       f"{_m(int(t['instr_ref']))} | {r['instructions'] / t['instr_cmsis']:.2f}x | "
                       f"{_n(overhead)} | {_n(int(t['flash'] - t['weights']))} | {_n(r['ram_bytes'])} | "
                       f"{ram_io} | {_n(int(t['ram']))} | {_n(r['stack_bytes'])} | 1 148 |")
        out.append("")
    return "\n".join(out)
