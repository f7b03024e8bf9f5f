"""`utvm-build report MODEL -o report.html`: one self-contained HTML page (no script, no network).

The memory plan as a picture (each workspace buffer a bar from its first to its last operator
step, at its offset; the step where the most bytes are alive marked), per-operator MACs, flash
and scratch, the totals, and, when a benchmark result for the model is given or found, each
operator's instructions. Every number comes from :func:`utvm_build.info.model_report` (the same
document `info --json` prints), which the page also embeds as JSON.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

from .errors import UtvmError

#: How every report page begins (after the doctype): what `report -o` recognises as its own file.
REPORT_MARK = b"<title>utvm-build report: "

_COLORS = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f")


def find_benchmark(model_name: str, search: list[Path]) -> Path | None:
    """A benchmark run of the model (Cortex-M4 -Os, DSP kernels first) in benchmarks/results/runs."""
    for root in search:
        runs = root / "benchmarks" / "results" / "runs"
        for config in ("m4-Os-cortex-m4", "m4-Os"):
            p = runs / f"{model_name}--{config}.json"
            if p.is_file():
                return p
    return None


def load_instructions(path: Path) -> tuple[dict[int, int], str]:
    """Per-operator instructions of a benchmark run (``per_operator`` rows), and its label."""
    try:
        run = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise UtvmError(f"cannot read the benchmark result {path}: {e}") from None
    rows = run.get("per_operator") or []
    per_op = {int(r["index"]): int(r["instructions"]) for r in rows if int(r.get("index", -1)) >= 0}
    label = f"{run.get('config', path.stem)}: {run.get('instructions', '?')} instructions per inference"
    return per_op, label


def render_report(report: dict, instructions: dict[int, int] | None = None, bench_label: str = "") -> str:
    e = html.escape
    model = report["model"]
    title = f"utvm-build report: {model['file']}"
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">', f"<title>{e(title)}</title>",
             "<style>", _CSS, "</style></head><body>", f"<h1>{e(title)}</h1>",
             f"<p>{model['bytes']} bytes, target <code>{e(report['target'])}</code>, C name "
             f"<code>tvmgen_{e(report['name'])}</code>.</p>"]
    if not report["supported"]:
        parts.append(f'<p class="error" id="error">Cannot compile: {e(report["error"] or "unsupported operators")}</p>')
    if "totals" in report:
        t, mp = report["totals"], report["memory_plan"]
        rows = [("total-macs", "MACs per inference", t["macs"]),
                ("total-flash-constants", "flash: constants (bytes)", t["flash_constants_bytes"]),
                ("total-workspace", "RAM: workspace (bytes)", t["ram_workspace_bytes"]),
                ("total-lower-bound", "workspace lower bound (bytes)", mp["lower_bound_bytes"]),
                ("total-state", "RAM: state (bytes)", t["ram_state_bytes"]),
                ("total-io", "RAM: input/output buffers (bytes)", t["ram_io_buffers_bytes"]),
                ("total-ram", "RAM: total besides the stack (bytes)", t["ram_bytes"])]
        parts.append('<h2>Totals</h2><table class="totals">')
        parts += [f'<tr><th>{e(label)}</th><td id="{key}">{value}</td></tr>' for key, label, value in rows]
        parts.append("</table>")
        parts.append("<h2>Memory plan</h2>")
        parts.append(_plan_svg(report))
        parts += _transforms(mp.get("transforms"))
    parts.append("<h2>Operators</h2>")
    parts.append(_operator_table(report, instructions))
    if instructions:
        parts.append(f"<p>Instructions: {e(bench_label)}.</p>")
    data = embed_json(report)
    parts += [f'<script type="application/json" id="utvm-report-data">{data}</script>', "</body></html>", ""]
    return "\n".join(parts)


def embed_json(doc: object) -> str:
    """``doc`` as JSON that is safe inside a <script> element: no ``<``, ``>`` or ``&`` (so no
    ``</script>`` or ``<!--`` from a tensor name ends or changes the element) and no U+2028/U+2029;
    each is a ``\\uXXXX`` escape, which every JSON parser reads back as the character."""
    text = json.dumps(doc, sort_keys=True)   # ensure_ascii: every other non-ASCII character escaped
    for ch in ("<", ">", "&", "\u2028", "\u2029"):
        text = text.replace(ch, f"\\u{ord(ch):04x}")
    return text


def _operator_table(report: dict, instructions: dict[int, int] | None) -> str:
    e = html.escape
    head = ["#", "operator", "types", "kernels", "MACs", "flash (bytes)", "scratch (bytes)"]
    if instructions:
        head.append("instructions")
    rows = ["<table class=\"ops\" id=\"operators\"><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>"]
    for op in report["operators"]:
        kernels = ", ".join(k["kernel"] + ("" if k["variant"] == "generic" else f" ({k['variant']})")
                            for k in op.get("kernels", []))
        if not op["supported"]:
            kernels = f'<span class="error">{e(op["error"] or "not supported")}</span>'
        elif op.get("emitted") is False:
            kernels = "(folded: no code)"
        else:
            kernels = e(kernels)
        cells = [str(op["index"]), e(op["op"]), e("/".join(op["dtypes"])), kernels,
                 str(op.get("macs", "")), str(op.get("constants_bytes", "")), str(op.get("scratch_bytes", ""))]
        if instructions:
            cells.append(str(instructions.get(op["index"], "")))
        rows.append(f'<tr data-op="{op["index"]}">' + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    rows.append("</table>")
    return "\n".join(rows)


def _plan_svg(report: dict) -> str:
    """Buffers as bars: x = operator step, y = workspace offset; the peak step shaded."""
    mp = report["memory_plan"]
    steps, buffers, total = mp["steps"], mp["buffers"], max(1, mp["workspace_bytes"])
    n = max(1, len(steps))
    width, height, left, top = 900, 360, 70, 20
    sx, sy = (width - left - 10) / n, (height - top - 40) / total
    live = [sum(_alive(b, s) for b in buffers) for s in range(n)]
    peak = max(range(n), key=lambda s: live[s]) if live else 0
    e = html.escape
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" id="memory-plan" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" role="img" aria-label="memory plan">',
           f'<rect x="{left + peak * sx:.1f}" y="{top}" width="{sx:.1f}" height="{height - top - 40}" '
           f'class="peak" data-peak-step="{peak}" data-peak-bytes="{live[peak] if live else 0}"/>',
           f'<rect x="{left}" y="{top}" width="{width - left - 10}" height="{height - top - 40}" class="frame"/>']
    for k, b in enumerate(buffers):
        what = f"scratch of operator #{b['operator']}" if b["kind"] == "scratch" else \
            f"tensor #{b['tensor']} {b['name']}"
        # a buffer of views (--memory: stripes, in-place operators) is drawn piece by piece
        shared = ' class="buffer shared"' if "parts" in b else ' class="buffer"'
        for piece in b.get("parts", [b]):
            x = left + piece["first_step"] * sx
            w = (piece["last_step"] - piece["first_step"] + 1) * sx
            y = top + piece["offset"] * sy
            h = max(1.0, piece["bytes"] * sy)
            out.append(f'<rect{shared} x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" '
                       f'fill="{_COLORS[k % len(_COLORS)]}" data-offset="{piece["offset"]}" '
                       f'data-bytes="{piece["bytes"]}">'
                       f"<title>{e(what)}: {piece['bytes']} bytes at {piece['offset']}, steps "
                       f"{piece['first_step']}-{piece['last_step']}</title></rect>")
    for s, index in enumerate(steps):
        out.append(f'<text x="{left + (s + 0.5) * sx:.1f}" y="{height - 22}" class="tick">#{index}</text>')
    out += [f'<text x="{left - 6}" y="{top + 10}" class="axis" text-anchor="end">0</text>',
            f'<text x="{left - 6}" y="{height - 40}" class="axis" text-anchor="end">{total}</text>',
            f'<text x="{left + (width - left) / 2:.0f}" y="{height - 4}" class="axis">operator (execution order); '
            f"shaded: peak, {live[peak] if live else 0} bytes alive at operator "
            f"#{steps[peak] if steps else '-'}</text>",
            "</svg>"]
    return "\n".join(out)


def _alive(b: dict, step: int) -> int:
    """Bytes of a buffer alive at ``step`` (a buffer of views: the union of its live pieces)."""
    if "parts" not in b:
        return b["bytes"] if b["first_step"] <= step <= b["last_step"] else 0
    spans = sorted((p["offset"], p["offset"] + p["bytes"]) for p in b["parts"]
                   if p["first_step"] <= step <= p["last_step"])
    alive, end = 0, 0
    for lo, hi in spans:
        if hi > end:
            alive += hi - max(lo, end)
            end = hi
    return alive


def _transforms(plan: dict | None) -> list[str]:
    """What --memory did: the stripes and in-place operators (also drawn above: buffers shared by
    views have a dark outline, one rectangle per piece)."""
    if not plan:
        return []
    from .info import transform_lines

    e = html.escape
    lines = transform_lines(plan)
    return [f'<p id="memory-transforms">{e(lines[0])}</p>', '<ul class="transforms">',
            *[f"<li>{e(line.strip())}</li>" for line in lines[1:]], "</ul>"]


_CSS = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; }
table { border-collapse: collapse; margin: 8px 0 16px; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: right; }
th { background: #f3f3f3; text-align: left; }
td:nth-child(2), td:nth-child(3), td:nth-child(4) { text-align: left; }
.error { color: #b00020; }
svg .frame { fill: none; stroke: #999; }
svg .peak { fill: #ffe8a3; }
svg .buffer { stroke: #fff; stroke-width: 0.5; }
svg .pool { fill: #f3f3f3; stroke: #999; }
svg .shared { stroke: #333; }
svg .tick { font-size: 10px; text-anchor: middle; fill: #555; }
svg .axis { font-size: 11px; fill: #333; }
"""


def load_group(directory: Path) -> dict:
    """A group's generated directory (``compile-group``): its metadata, each model's metadata in
    ``members``. UtvmError (one line) when ``directory`` is not one."""
    try:
        meta = json.loads((directory / "metadata.json").read_text())
        if meta.get("kind") != "group":
            raise ValueError("not a group")
        meta["members"] = {m["name"]: json.loads((directory / m["dir"] / "metadata.json").read_text())
                           for m in meta["models"]}
    except (OSError, ValueError, KeyError, TypeError):
        raise UtvmError(f"{directory} is not a model group's generated directory (utvm-build compile-group); "
                        "give a .tflite model or such a directory") from None
    return meta


def render_group_report(group: dict) -> str:
    """The report of a model group: its workspace pools as a picture (each pool a band of the
    group's workspace, each model's workspace a bar inside its pool), the totals, the models and
    the kernel functions compiled once."""
    e = html.escape
    title = f"utvm-build report: model group {group['name']}"
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">', f"<title>{e(title)}</title>",
             "<style>", _CSS, "</style></head><body>", f"<h1>{e(title)}</h1>",
             f"<p>{len(group['models'])} models, target <code>{e(group['target'])}</code>, header "
             f"<code>{e(group['prefix'])}.h</code>.</p>"]
    rows = [("group-workspace", "RAM: workspace, every pool (bytes)", group["workspace_bytes"]),
            ("group-separate", "RAM: the models' workspaces, each alone (bytes)", group["separate_workspace_bytes"]),
            ("group-state", "RAM: the models' states (bytes)", group["state_bytes"]),
            ("group-ram", "RAM: total besides the stack and I/O buffers (bytes)", group["ram_bytes"]),
            ("group-constants", "flash: constants (bytes)",
             sum(m["constants_bytes"] for m in group["members"].values()))]
    parts.append('<h2>Totals</h2><table class="totals">')
    parts += [f'<tr><th>{e(label)}</th><td id="{key}">{value}</td></tr>' for key, label, value in rows]
    parts.append("</table>")
    parts.append("<h2>Workspace pools</h2>")
    parts.append("<p>Models of one pool never run at the same time (declared exclusive) and share its bytes; "
                 "models of different pools may run at once.</p>")
    parts.append(_pools_svg(group))
    parts.append('<h2>Models</h2><table class="ops" id="models"><tr><th>model</th><th>pool</th>'
                 "<th>workspace (bytes)</th><th>state (bytes)</th><th>constants (bytes)</th><th>operators</th></tr>")
    for m in group["models"]:
        member = group["members"][m["name"]]
        parts.append(f'<tr data-model="{e(m["name"])}"><td>{e(m["name"])}</td><td>{m["pool"]}</td>'
                     f'<td>{m["workspace_bytes"]}</td><td>{m["state_bytes"]}</td><td>{member["constants_bytes"]}</td>'
                     f'<td>{len(member["operators"])}</td></tr>')
    parts.append("</table>")
    shared = group["shared_kernel_functions"]
    parts.append("<h2>Kernel functions compiled once</h2>")
    listed = e(", ".join(shared)) if shared else "none (no kernel function is called by two models)"
    parts.append(f'<p id="shared-kernels">{listed}</p>')
    public = {k: v for k, v in group.items() if k != "members"}
    data = embed_json(public)
    parts += [f'<script type="application/json" id="utvm-report-data">{data}</script>', "</body></html>", ""]
    return "\n".join(parts)


def _pools_svg(group: dict) -> str:
    """The group's workspace top to bottom; in each pool, one bar per model (its workspace)."""
    e = html.escape
    total = max(1, group["workspace_bytes"])
    width, height, left, top = 900, 60 + 40 * len(group["pools"]), 70, 20
    sy = (height - top - 30) / total
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" id="pools" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" role="img" aria-label="workspace pools">',
           f'<rect x="{left}" y="{top}" width="{width - left - 10}" height="{height - top - 30}" class="frame"/>']
    sizes = {m["name"]: m["workspace_bytes"] for m in group["models"]}
    for k, pool in enumerate(group["pools"]):
        y = top + pool["offset"] * sy
        out.append(f'<rect class="pool" x="{left}" y="{y:.1f}" width="{width - left - 10}" '
                   f'height="{max(1.0, pool["bytes"] * sy):.1f}" data-pool="{k}" data-offset="{pool["offset"]}" '
                   f'data-bytes="{pool["bytes"]}"><title>pool {k}: {pool["bytes"]} bytes at {pool["offset"]}'
                   f"</title></rect>")
        lane = (width - left - 10) / max(1, len(pool["models"]))
        for j, name in enumerate(pool["models"]):
            out.append(f'<rect class="buffer" x="{left + j * lane + 2:.1f}" y="{y:.1f}" width="{lane - 4:.1f}" '
                       f'height="{max(1.0, sizes[name] * sy):.1f}" fill="{_COLORS[j % len(_COLORS)]}" '
                       f'data-model="{e(name)}" data-bytes="{sizes[name]}"><title>{e(name)}: {sizes[name]} bytes'
                       f"</title></rect>")
            out.append(f'<text x="{left + (j + 0.5) * lane:.1f}" y="{y + 14:.1f}" class="tick">{e(name)} '
                       f"({sizes[name]} B)</text>")
        out.append(f'<text x="{left - 6}" y="{y + 12:.1f}" class="axis" text-anchor="end">{pool["offset"]}</text>')
    out += [f'<text x="{left - 6}" y="{height - 30}" class="axis" text-anchor="end">{total}</text>', "</svg>"]
    return "\n".join(out)
