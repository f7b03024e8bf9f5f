"""The results README's estimated-cycles tables: every core model that runs a configuration's code,
beside its instructions (benchmarks/cycles.py; kept apart from report.py's tables)."""

from __future__ import annotations

from benchmarks.report import _n, cycles_of

#: the cores whose cycle models apply to a configuration's code (an Armv7E-M build runs on the M4,
#: M33 and M7 alike; an Armv8.1-M build on the M55 and M85)
CYCLE_CORES = {"m4": ("cortex-m4", "cortex-m33", "cortex-m7"), "m55": ("cortex-m55", "cortex-m85")}


def render_cycles(records: list[dict]) -> list[str]:
    """Estimated cycles on every core model that runs a configuration's code, beside its instructions."""
    from benchmarks import cycles

    out: list[str] = []
    for core, names in CYCLE_CORES.items():
        names = tuple(n for n in names if n in cycles.MODELS)
        rows = [r for r in records if r.get("config", "").startswith(f"{core}-") and "mix_classes" in r]
        if not rows or not names:
            continue
        out += [f"## Estimated cycles, {core} builds (every core that runs this code)", "",
                "From each run's instruction mix with the models of [`../cycles.py`](../cycles.py) "
                "([../README.md](../README.md#cycles-estimated-from-the-instruction-mix): assumptions and the check "
                "against published board figures).", "",
                "| model | config | instructions | " + " | ".join(f"{n[7:].upper()} cycles (est.)" for n in names)
                + " |", "|---|---|---:|" + "---:|" * len(names)]
        for r in rows:
            out.append(f"| {r['model']} | {r['config']} | {_n(r['instructions'])} | "
                       + " | ".join(_n(cycles_of(r, n)) for n in names) + " |")
        out.append("")
    return out
