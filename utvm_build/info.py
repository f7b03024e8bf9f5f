"""`utvm-build info`: a model's operators and tensors, and what utvm-build makes of them.

One source for the text and the ``--json`` forms (and for `utvm-build report`): :func:`model_report`.
Operators are numbered as in the model, like the generated functions (``tvmgen_<name>_op<k>_...``),
errors and ``metadata.json``.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from .compiler import compile_bytes, default_name, read_model_file
from .errors import UtvmError
from .frontend.tflite import read_tflite
from .graph import Graph
from .ops import handler_for
from .options import CompileOptions
from .passes import run_passes
from .passes.kernel_state import add_kernel_state
from .passes.variables import resolve_variables
from .text import printable
from .validate import validate_graph


def model_report(path: str | Path, options: CompileOptions | None = None) -> dict:
    """Everything `info` shows, as plain data (the ``--json`` document)."""
    opts = options or CompileOptions()
    data = read_model_file(path)
    g = read_tflite(data)
    name = opts.name or default_name(path)
    tensors = [_tensor(t) for t in g.tensors]
    every_op = list(g.all_operators())
    pass_error = None
    try:   # operators as compiled: after the passes (shapes resolved, constants folded)
        for sg in g.all_graphs:
            validate_graph(sg)
        for sg in g.all_graphs:
            run_passes(sg)
    except UtvmError as e:
        pass_error = str(e)
    try:   # kernel state (signal library), resource variables: operators are prepared as compiled
        if pass_error is None:
            add_kernel_state(g)
        resolve_variables(g)
    except UtvmError:
        pass   # the operator it names shows the error below, or the compile step does
    kept = {id(op) for op in (g.all_operators() if pass_error is None else every_op)}
    report: dict = {
        "model": {"file": Path(path).name, "bytes": len(data), "description": g.description},
        "name": name, "target": opts.target,
        "operators": [_operator(g.subgraph(op.subgraph), op, opts.target, id(op) in kept) for op in every_op],
        "tensors": tensors,
    }
    report["supported"] = pass_error is None and all(op["supported"] for op in report["operators"])
    report["error"] = pass_error
    if report["supported"]:
        try:
            compiled = compile_bytes(data, name, dataclasses.replace(opts, name=name), Path(path).name)
        except UtvmError as e:
            report["supported"], report["error"] = False, str(e)
        else:
            _add_compiled(report, compiled)
    return report


def _operator(g: Graph, op, target: str, kept: bool) -> dict:  # noqa: ANN001
    h = handler_for(op.op)
    entry = {"index": op.index, "op": op.op, "version": op.version,
             "dtypes": sorted({g.tensors[i].dtype for i in op.inputs if i >= 0}),
             "inputs": list(op.inputs), "outputs": list(op.outputs), "supported": h is not None or not kept,
             "error": None}
    if g.graphs:   # a model with several subgraphs: operators are numbered model-wide
        entry["subgraph"] = op.subgraph
    if not kept:
        entry["folded"] = True   # evaluated at compile time or removed by a graph pass: no code
    elif h is None:
        entry["error"] = "not supported"
    else:
        try:
            h.prepare(op, g, target)
        except UtvmError as e:
            entry["supported"], entry["error"] = False, str(e)
    return entry


def _tensor(t) -> dict:  # noqa: ANN001
    q = t.quant
    return {"index": t.index, "name": t.name, "dtype": t.dtype, "shape": list(t.shape), "bytes": t.nbytes,
            "constant": t.is_const, "variable": t.is_variable,
            "scale": None if q is None else [float(s) for s in q.scale],
            "zero_point": None if q is None else [int(z) for z in q.zero_point]}


def _add_compiled(report: dict, compiled) -> None:  # noqa: ANN001
    meta, plan, g = compiled.metadata, compiled.plan, compiled.graph
    up = meta["prefix"].upper()
    by_index = {r["index"]: r for r in meta["operators"]}
    stripes: dict[int, list[dict]] = {}   # operator -> its stripes (--memory: passes/patches.py)
    for r in meta["operators"]:
        if "patch" in r:
            stripes.setdefault(r["patch"]["of"], []).append(r)
    for op in report["operators"]:
        rec = by_index.get(op["index"])
        if rec is None and op["index"] in stripes:
            parts = stripes[op["index"]]
            variants = meta.get("kernel_variants", {})
            op.update({"emitted": True, "function": None, "macs": sum(r["macs"] for r in parts),
                       "stripes": [r["function"] for r in parts],
                       "kernels": [{"kernel": k, "variant": variants.get(k, "generic")} for k in parts[0]["kernels"]],
                       "constants_bytes": sum(r["constants_bytes"] for r in parts),
                       "scratch_bytes": max(r["scratch_bytes"] for r in parts),
                       "note": f"run in {len(parts)} stripes of rows (--memory)"})
            continue
        if rec is None:
            op.update({"emitted": False, "note": "no code: folded or removed by a graph pass"})
            continue
        variants = meta.get("kernel_variants", {})
        op.update({"emitted": True, "function": rec["function"], "macs": rec["macs"],
                   "kernels": [{"kernel": k, "variant": variants.get(k, "generic")} for k in rec["kernels"]],
                   "constants_bytes": rec["constants_bytes"], "scratch_bytes": rec["scratch_bytes"]})
    for kind in ("inputs", "outputs"):
        ports = []
        for k, p in enumerate(meta[kind]):
            stem = kind[:-1].upper()
            ports.append({**p, "position": k, "c_member": p["c_name"],
                          "size_macro": f"{up}_{stem}_{k}_SIZE", "named_size_macro": f"{up}_{p['c_name'].upper()}_SIZE",
                          "member_macro": f"{up}_{stem}_{k}(s)"})
        report[kind] = ports
    for t in report["tensors"]:
        loc = plan.locations.get(t["index"])
        t["location"] = None if loc is None else {"kind": loc.kind, "index": loc.index,
                                                  **({"offset": loc.offset} if loc.offset else {})}
    steps = [op.index for op in g.operators]
    buffers = []
    for b in sorted(plan.buffers, key=lambda b: (b.offset, b.first)):
        entry = {"offset": b.offset, "bytes": b.size, "first_step": b.first, "last_step": b.last}
        if b.parts is not None:   # views (--memory): the pieces and when each is alive
            entry["parts"] = [{"offset": b.offset + rel, "bytes": size, "first_step": first, "last_step": last}
                              for rel, size, first, last in b.parts]
        if b.key[0] == "scratch":
            entry.update({"kind": "scratch", "operator": steps[b.key[1]]})
        else:
            entry.update({"kind": "tensor", "tensor": b.key[1], "name": g.tensors[b.key[1]].name})
        buffers.append(entry)
    io_bytes = sum(p["bytes"] for p in meta["inputs"] + meta["outputs"]) if meta["options"]["io"] == "caller" else 0
    report["memory_plan"] = {"workspace_bytes": meta["workspace_bytes"],
                             "lower_bound_bytes": meta["workspace_lower_bound_bytes"],
                             "alignment": meta["options"]["workspace_align"],
                             "steps": steps, "buffers": buffers}
    if "memory_transforms" in meta:
        report["memory_plan"]["transforms"] = meta["memory_transforms"]
    # Each state item by what keeps it (e.g. "operator #0 UNIDIRECTIONAL_SEQUENCE_LSTM input 19 (cell
    # state)"): converter tensor names such as 'tfl.pseudo_qconst' say nothing.
    report["state_layout"] = [f"{printable(e['name'])}{' = ' + printable(e['owner']) if e.get('owner') else ''} "
                              f"{e['bytes']} B" for e in meta.get("state", [])]
    report["totals"] = {"macs": meta["macs"], "flash_constants_bytes": meta["constants_bytes"],
                        "ram_workspace_bytes": meta["workspace_bytes"], "ram_state_bytes": meta["state_bytes"],
                        "ram_io_buffers_bytes": io_bytes,
                        "ram_bytes": meta["workspace_bytes"] + meta["state_bytes"] + io_bytes}
    report["kernels"] = meta["kernels"]
    report["optimize"] = _optimize_cost(compiled, by_index)


def _optimize_cost(compiled, by_index: dict) -> dict:  # noqa: ANN001
    """What --optimize chose: the operators with int16 pre-widened weights and their extra flash."""
    from .ops.conv import widen_candidate

    widened = []
    extra = 0
    for sg in compiled.graph.all_graphs:
        for op in sg.operators:
            rec = by_index.get(op.index)
            cand = widen_candidate(sg, op)
            if rec is not None and cand is not None and "conv2d_s8_q15w" in rec["kernels"]:
                widened.append(op.index)
                extra += cand[1]
    return {"mode": compiled.metadata["options"].get("optimize", "balanced"), "widened_operators": widened,
            "extra_flash_bytes": extra}


def model_info(path: str | Path, options: CompileOptions | None = None) -> tuple[str, bool]:
    """The text form, and whether every operator is supported."""
    r = model_report(path, options)
    lines = [f"model: {printable(r['model']['file'])} ({r['model']['bytes']} bytes)"]
    if r["model"]["description"]:
        lines.append(f"description: {printable(r['model']['description'][:80])}")
    for kind in ("inputs", "outputs"):
        for p in r.get(kind, []):
            q = f", scale {p['scale']:.6g}, zero point {p['zero_point']}" if p["scale"] is not None else ""
            lines.append(f"{kind[:-1]} {p['position']}: '{printable(p['name'])}' {p['dtype']} {p['shape']}{q}")
            lines.append(f"    C: member .{p['c_member']}, {p['size_macro']} = {p['named_size_macro']} = "
                         f"{p['bytes']} bytes")
    lines.append(f"tensors: {len(r['tensors'])}")
    lines.append("operators:")
    for op in r["operators"]:
        status = "supported" if op["supported"] else f"NOT SUPPORTED: {printable(op['error'] or '')}"
        kernels = ", ".join(k["kernel"] + ("" if k["variant"] == "generic" else f" ({k['variant']})")
                            for k in op.get("kernels", []))
        detail = f"  -> {kernels}, {op['macs']} MACs" if op.get("emitted") else ""
        if op.get("emitted") and op.get("function") is None:
            detail = "  (calls subgraphs from the entry point)" if op["op"] in ("CALL_ONCE", "IF", "WHILE") \
                else "  (no code: resolved at compile time)"
        if op.get("stripes"):
            detail = f"  -> {kernels}, {op['macs']} MACs in {len(op['stripes'])} stripes"
        if op["supported"] and op.get("emitted") is False:
            detail = "  (no code: folded or removed by a graph pass)"
        where = f" [subgraph {op['subgraph']}]" if op.get("subgraph") else ""
        lines.append(f"  #{op['index']:<3} {op['op']:<20} {'/'.join(op['dtypes']):<16} {status}{detail}{where}")
    if r["error"]:
        lines.append(f"cannot compile: {printable(r['error'])}")
    if "totals" in r:
        t = r["totals"]
        lines.append(f"workspace: {r['memory_plan']['workspace_bytes']} bytes (lower bound "
                     f"{r['memory_plan']['lower_bound_bytes']}), state: {t['ram_state_bytes']} bytes"
                     f"{' (' + ', '.join(r['state_layout']) + ')' if r.get('state_layout') else ''}, "
                     f"constants (flash): {t['flash_constants_bytes']} bytes, MACs: {t['macs']}")
        lines += transform_lines(r["memory_plan"].get("transforms"))
        o = r["optimize"]
        lines.append(f"optimize: {o['mode']}: int16 pre-widened weights for {len(o['widened_operators'])} "
                     f"convolutions, {o['extra_flash_bytes']} bytes of flash more than int8 weights"
                     + (f" (operators {', '.join(f'#{k}' for k in o['widened_operators'])})"
                        if o["widened_operators"] else ""))
    return "\n".join(lines), bool(r["supported"])


def group_info(group: dict) -> str:
    """`utvm-build info` of a model group's generated directory (``report.load_group``)."""
    lines = [f"model group {printable(group['name'])} ({group['prefix']}.h), target {group['target']}, "
             f"{len(group['models'])} models:"]
    for m in group["models"]:
        member = group["members"][m["name"]]
        lines.append(f"  {printable(m['name'])}: tvmgen_{printable(m['name'])}_run, pool {m['pool']}, workspace "
                     f"{m['workspace_bytes']} B, state {m['state_bytes']} B, constants {member['constants_bytes']} B")
    lines.append("workspace pools (models of one pool never run at the same time; different pools may):")
    for p in group["pools"]:
        lines.append(f"  pool {p['index']}: {p['bytes']} B at byte {p['offset']}: "
                     f"{', '.join(printable(n) for n in p['models'])}")
    lines.append(f"RAM: workspace {group['workspace_bytes']} B (each model alone: "
                 f"{group['separate_workspace_bytes']} B) + states {group['state_bytes']} B = {group['ram_bytes']} B")
    shared = group["shared_kernel_functions"]
    lines.append(f"kernel functions compiled once for the group: {', '.join(shared) if shared else 'none'}")
    return "\n".join(lines)


def transform_lines(plan: dict | None) -> list[str]:
    """What --memory / --ram-limit did, in words (info's text form and the report)."""
    if not plan:
        return []
    macs = plan["model_macs"] or 1
    lines = [f"memory ({plan['mode']}): workspace {plan['workspace_before']} -> {plan['workspace_after']} bytes, "
             f"extra MACs {plan['extra_macs']} ({100.0 * plan['extra_macs'] / macs:.1f}%)"]
    for s in plan["segments"]:
        ops = ", ".join(f"#{i} {name}" for i, name in zip(s.get("operators", []), s.get("ops", [])))
        how = " in place" + (" (bottom-up)" if s.get("bottom_up") else "") if s.get("in_place") else ""
        lines.append(f"  {ops}: {s.get('stripes')} stripes of rows{how}, extra MACs {s.get('extra_macs')}, "
                     f"workspace then {s.get('workspace_after')} bytes")
    order = plan.get("order")
    if order:
        lines.append(f"  operator order ({order['method']}): peak {order['peak_before']} -> {order['peak_after']} "
                     f"bytes, workspace {order['workspace_before']} -> {order['workspace_after']}, "
                     f"{order['moved']} operators moved")
    for f in plan.get("fused_pads", []):
        lines.append(f"  #{f['operator']} {f['op']} folded into #{f['into']} {f['into_op']} (padding top, bottom, "
                     f"left, right {f['padding']}: no padded copy)")
    for c in plan.get("concat_slices", []):
        lines.append(f"  #{c['operator']} CONCATENATION: {len(c['inputs'])} producers write into the slices of "
                     f"'{printable(c['output'])}' (no copy)")
    for a in plan.get("in_place", []):
        lines.append(f"  #{a['operator']} {a['op']}: output '{printable(a['output'])}' written over its input "
                     f"'{printable(a['over'])}'")
    return lines
