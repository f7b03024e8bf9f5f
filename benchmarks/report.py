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


#: the bar of ../shared/docs/anchors.md: instructions at most 0.6x TFLM + CMSIS-NN, flash besides the
#: weights at most 0.3x its, stack of one inference at most 512 B
BAR_INSTR, BAR_FLASH, BAR_STACK = 0.6, 0.3, 512


def _cyc(r: dict, core: str) -> str:
    c = cycles_of(r, core)
    return "-" if c is None else _n(c)


def cycles_of(r: dict, core: str) -> int | None:
    """A record's estimated cycles on a core: from its stored mix with the current model (so the
    tables follow benchmarks/cycles.py), else the figure stored with it."""
    from benchmarks import cycles

    if "mix_classes" in r and core in cycles.MODELS:
        return cycles.estimate(r["mix_classes"], cycles.MODELS[core])
    return r.get("cycles", {}).get(core)


def render_dsp(by_key: dict, models: list[str], core: str = "m4", opt: str = "Os") -> list[str]:
    """generic vs the core's DSP target on one core and level, against TFLM + CMSIS-NN and the bar;
    the DSP build's instruction mix and per-operator figures."""
    gen_cfg, dsp_cfg = f"{core}-{opt}", f"{core}-{opt}-cortex-{core}"
    pairs = [(m, by_key[(m, gen_cfg)], by_key[(m, dsp_cfg)]) for m in models
             if (m, gen_cfg) in by_key and (m, dsp_cfg) in by_key]
    if not pairs:
        return []
    out = [f"## {gen_cfg}: generic kernels vs --target cortex-{core} (kernels/arm_dsp)", "",
           "Cycles are estimates from the executed instruction mix (Cortex-M4 TRM table; Cortex-M7: a coarse "
           "dual-issue model; see [../README.md](../README.md#cycles-estimated-from-the-instruction-mix)). "
           f"Bar ({'../shared/docs/anchors.md'}): instructions <= {BAR_INSTR}x TFLM + CMSIS-NN, flash besides the "
           f"weights <= {BAR_FLASH}x its, stack <= {BAR_STACK} B, outputs identical.", "",
           "| model | MACs | instr, generic | instr, DSP | DSP / generic | M4 cycles (est.), generic | "
           "M4 cycles (est.), DSP | M7 cycles (est.), DSP | DSP instr / TFLM + CMSIS-NN | bar | "
           "flash overhead, DSP | / TFLM + CMSIS-NN | stack, DSP | outputs |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---|"]
    for m, g, d in pairs:
        t = TFLM_M4_OS.get(m)
        overhead = d["flash_bytes"] - d["flash_split"]["constants"]
        ratio = flash_ratio = "-"
        verdict = "-"
        if t and core == "m4" and opt == "Os":
            r = d["instructions"] / t["instr_cmsis"]
            fr = overhead / (t["flash"] - t["weights"])
            ratio, flash_ratio = f"{r:.2f}x", f"{fr:.2f}x"
            ok = r <= BAR_INSTR and fr <= BAR_FLASH and (d["stack_bytes"] or 0) <= BAR_STACK
            verdict = "met" if ok else f"not met (<= {_m(int(BAR_INSTR * t['instr_cmsis']))})"
        out.append("| " + " | ".join([
            m, _n(d["macs"]), _n(g["instructions"]), _n(d["instructions"]),
            f"{d['instructions'] / g['instructions']:.2f}x", _cyc(g, "cortex-m4"), _cyc(d, "cortex-m4"),
            _cyc(d, "cortex-m7"), ratio, verdict, _n(overhead), flash_ratio, _n(d["stack_bytes"]),
            d["outputs_vs_host"]]) + " |")
    out += ["", f"### Instruction mix, {dsp_cfg}", "",
            "loads/stores: single LDR/STR (and LDRD/STRD, LDM/STM instructions) not right after another single "
            "load or store; `ld/st next`: single loads and stores right after one (pipelined on Cortex-M4); "
            "LDM/STM regs: registers moved by LDM/STM/PUSH/POP. Branches: every branch-like instruction, "
            "taken or not.", "",
            "| model | instructions | loads | stores | ld/st next | LDM/STM regs | MUL/MLA/long | DSP MAC "
            "| DSP SIMD | DIV | branches | taken | not taken | ALU, other |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for m, _, d in pairs:
        x = d.get("mix", {})
        out.append("| " + " | ".join([m, _n(d["instructions"])] + [_n(x.get(k)) for k in (
            "loads", "stores", "ld_st_next", "ld_st_multiple_regs", "mul_mac", "dsp_mac", "dsp_simd", "div",
            "branches", "taken", "not_taken", "alu_other")]) + " |")
    out += ["", f"### Per operator, {gen_cfg} vs {dsp_cfg}", "",
            "Instructions from the operator function's entry to the next one's (the call and return in "
            "`tvmgen_<name>_run` included); MACs from metadata.json (elementwise operators: one per output).", ""]
    for m, g, d in pairs:
        if m not in TFLM_M4_OS:
            continue
        gops = {o["op"]: o for o in g.get("per_operator", [])}
        out += [f"**{m}** (DSP {_m(d['instructions'])}, TFLM + CMSIS-NN {_m(int(TFLM_M4_OS[m]['instr_cmsis']))}, "
                f"bar {_m(int(BAR_INSTR * TFLM_M4_OS[m]['instr_cmsis']))})", "",
                "| operator | MACs | instr, generic | instr, DSP | DSP instr/MAC | M4 cycles (est.), DSP "
                "| share of the DSP run |",
                "|---|---:|---:|---:|---:|---:|---:|"]
        for o in d.get("per_operator", []):
            if o["op"] == "entry":
                continue
            go = gops.get(o["op"], {})
            macs = o.get("macs", 0)
            out.append(f"| {o['op']} | {_n(macs)} | {_n(go.get('instructions'))} | {_n(o['instructions'])} | "
                       f"{_n(o['instructions'] / macs) if macs else '-'} | {_n(o['cycles']['cortex-m4'])} | "
                       f"{100 * o['instructions'] / d['instructions']:.1f} % |")
        out.append("")
    return out


def render_stateful(by_key: dict, models: list[str], config: str = "m4-Os") -> list[str]:
    """Models with state across calls (and the detection model): flash split, RAM split into
    workspace + state + I/O + stack, instructions of a steady-state call, next to TFLM's arena on
    the host; then each model's state items and workspace, as TFLM's print_allocations lists its arena."""
    rows = [by_key[(m, config)] for m in models if (m, config) in by_key and "tflm_host_arena" in by_key[(m, config)]]
    if not rows:
        return []
    out = [f"## Models with state or post-processing ({config})", "",
           "Streaming keyword spotter (`tf.Variable` ring buffers, CALL_ONCE), Keras LSTMs (two stacked "
           "UNIDIRECTIONAL_SEQUENCE_LSTM, state in variable tensors) and an SSD head with "
           "TFLite_Detection_PostProcess (tests/data/). A model with state is called "
           "twice before the measured call (on fresh inputs; the first call also runs the state's "
           "initialisation), so *instructions* are those of a steady-state call; the stack is the peak over "
           "all calls. The measured call's outputs are checked against the reference fed the same calls.", "",
           "RAM = workspace + state + I/O + stack + other (.data/.bss of the program, runtime and libc). "
           "TFLM: we cannot build it for Cortex-M here, so its figure is the `tflite_micro` package's "
           "interpreter on the host (x86-64: 64-bit pointers make its structures larger than on a "
           "Cortex-M): the smallest `arena_size` that allocates and reproduces the outputs of the same calls "
           "(bisection, 16 B steps), and its RecordingMicroAllocator's total at that size (head: planned "
           "tensors; tail: persistent tensor structures, operator data, variables). TFLM's arena holds the "
           "inputs and outputs too; its code, stack and the interpreter object are not in it.", "",
           "| model | instr per call | M4 cycles (est.) | flash | constants | model code | runtime "
           "| program + libc | workspace | state | I/O | stack | other | RAM total | TFLM host arena "
           "(smallest that works) | TFLM recorded total (head + tail) | outputs vs host |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        split, t = r["flash_split"], r["tflm_host_arena"]
        other = r["data_bss_bytes"] - r["state_bytes"] - r["io_bytes"]
        if "error" in t:
            arena, recorded = f"- ({t['error']})", "-"
        else:
            arena = _n(t["arena_bytes"])
            recorded = f"{_n(t['total'])} ({_n(t['head'])} + {_n(t['tail'])})" if t.get("total") else "-"
        out.append("| " + " | ".join([
            r["model"], _n(r["instructions"]), _cyc(r, "cortex-m4"), _n(r["flash_bytes"]), _n(split["constants"]),
            _n(split["model"]), _n(split["runtime"]), _n(split["program"] + split["libc"]),
            _n(r["workspace_bytes"]), _n(r["state_bytes"]), _n(r["io_bytes"]), _n(r["stack_bytes"]), _n(other),
            _n(r["ram_bytes"]), arena, recorded, r["outputs_vs_host"]]) + " |")
    out += ["", f"### Allocations ({config}; from metadata.json, print_allocations-style)", ""]
    for r in rows:
        scratch = ", ".join(f"#{s['index']} {s['op']} {_n(s['bytes'])} B" for s in r.get("scratch", [])) or "none"
        out += [f"**{r['model']}**: workspace {_n(r['workspace_bytes'])} B planned (peak of the buffers alive "
                f"at one step: {_n(r['workspace_lower_bound_bytes'])} B; operator scratch in it: {scratch}); "
                f"state {_n(r['state_bytes'])} B in {len(r['state'])} item(s); I/O {_n(r['io_bytes'])} B "
                "(the caller's buffers).", ""]
        if r["state"]:
            out += ["| offset | bytes | kind | name | whose | dtype, shape | initial byte |",
                    "|---:|---:|---|---|---|---|---:|"]
            for e in r["state"]:
                out.append(f"| {e['offset']} | {e['bytes']} | {e['kind']} | `{e['name']}` | {e.get('owner', '')} | "
                           f"{e['dtype']} {e['shape']} | {e['initial_byte']} |")
            out.append("")
        lines = r["tflm_host_arena"].get("lines", [])
        if lines:
            out += ["<details><summary>TFLM (host) print_allocations</summary>", "", "```",
                    *[ln.replace("[RecordingMicroAllocator] ", "") for ln in lines], "```", "", "</details>", ""]
    return out


def render(records: list[dict], environment: dict) -> str:
    """records: one per (model, config) as written to the JSON files."""
    by_key = {(r["model"], r["config"]): r for r in records}
    models = list(dict.fromkeys(r["model"] for r in records))
    configs = list(dict.fromkeys(r["config"] for r in records if not r["config"].startswith("host")))
    out = ["# Benchmark results", "",
           "Produced by `python -m benchmarks` (see [../README.md](../README.md) for what is measured "
           "and how). One inference per model, deterministic pseudo-random input; every Cortex-M "
           "run's outputs are compared with the host build's.", "",
           "Environment: " + ", ".join(f"{k} `{v}`" for k, v in environment.items()), ""]
    for config in configs:
        out += [f"## {config}", "",
                "| model | MACs | instructions | instr/MAC | MACs/instr | M4 cycles (est.) | "
                f"{'M55' if config.startswith('m55') else 'M7'} cycles (est.) "
                "| flash | of which constants "
                "| code (model + runtime) | workspace | data+bss | stack | RAM total | outputs vs host |",
                "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
        for model in models:
            r = by_key.get((model, config))
            if r is None:
                continue
            macs, instr = r["macs"], r["instructions"]
            split = r["flash_split"]
            out.append("| " + " | ".join([
                model, _n(macs), _n(instr),
                _n(instr / macs) if macs else "-", f"{macs / instr:.3f}" if macs else "-",
                _cyc(r, "cortex-m4"), _cyc(r, "cortex-m55" if config.startswith("m55") else "cortex-m7"),
                _n(r["flash_bytes"]), _n(split["constants"]),
                _n(split["model"] + split["runtime"]),
                _n(r["workspace_bytes"]), _n(r["data_bss_bytes"] - r["io_bytes"]) + f" (+{_n(r['io_bytes'])} I/O)",
                _n(r["stack_bytes"]), _n(r["ram_bytes"]), r["outputs_vs_host"]]) + " |")
        out.append("")
    out += render_dsp(by_key, models)
    out += render_stateful(by_key, models)
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
    out += render_memory(by_key, models, configs)
    return "\n".join(out)


def render_memory(by_key: dict, models: list[str], configs: list[str]) -> list[str]:
    """Each configuration measured with extra compile options (``--codegen-args``, a "+..." suffix)
    next to the same configuration without them: RAM and instructions before and after."""
    out: list[str] = []
    for config in configs:
        if "+" not in config:
            continue
        base = config.split("+", 1)[0]
        rows = [(m, by_key[(m, base)], by_key[(m, config)]) for m in models
                if (m, base) in by_key and (m, config) in by_key]
        if not rows:
            continue
        out += [f"## {config} against {base}", "",
                f"The same build with `{' '.join(config.split('+', 1)[1].rsplit('-', 1))}` (docs/architecture.md, "
                "\"Memory below the activation bound\"). RAM total = workspace + data/bss + stack; TFLM: "
                "`../shared/docs/anchors.md` (its arena + stack).", "",
                "| model | workspace | RAM total | RAM vs TFLM | instructions | ratio | flash | outputs vs host |",
                "|---|---:|---:|---:|---:|---:|---:|---|"]
        for m, a, b in rows:
            t = TFLM_M4_OS.get(m)
            vs = f"{a['ram_bytes'] / t['ram']:.2f}x -> {b['ram_bytes'] / t['ram']:.2f}x" if t else "-"
            out.append(f"| {m} | {_n(a['workspace_bytes'])} -> {_n(b['workspace_bytes'])} | "
                       f"{_n(a['ram_bytes'])} -> {_n(b['ram_bytes'])} | {vs} | "
                       f"{_m(a['instructions'])} -> {_m(b['instructions'])} | "
                       f"{b['instructions'] / a['instructions']:.3f}x | {_n(a['flash_bytes'])} -> "
                       f"{_n(b['flash_bytes'])} | {b['outputs_vs_host']} |")
        out.append("")
    return out
