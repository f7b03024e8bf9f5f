"""`utvm-build info`: a model's operators and tensors, and what utvm-build makes of them."""

from __future__ import annotations

from pathlib import Path

from .compiler import compile_bytes, default_name, read_model_file
from .errors import UtvmError
from .frontend.tflite import read_tflite
from .ops import handler_for
from .text import printable


def model_info(path: str | Path) -> str:
    data = read_model_file(path)
    g = read_tflite(data)
    lines = [f"model: {printable(Path(path).name)} ({len(data)} bytes)"]
    if g.description:
        lines.append(f"description: {printable(g.description[:80])}")
    for kind, ids in (("input", g.inputs), ("output", g.outputs)):
        for k, t in enumerate(ids):
            tensor = g.tensors[t]
            q = f", scale {tensor.quant.s:.6g}, zero point {tensor.quant.zp}" if tensor.quant else ""
            lines.append(f"{kind} {k}: '{printable(tensor.name)}' {tensor.dtype} {list(tensor.shape)}{q}")
    lines.append(f"tensors: {len(g.tensors)}, constants: {sum(t.is_const for t in g.tensors)} "
                 f"({sum(t.nbytes for t in g.tensors if t.is_const)} bytes)")
    lines.append("operators:")
    all_ok = True
    for op in g.operators:
        h = handler_for(op.op)
        status = "supported"
        if h is None:
            status, all_ok = "NOT SUPPORTED", False
        else:
            try:
                h.validate(op, g)
            except UtvmError as e:
                status, all_ok = f"NOT SUPPORTED: {printable(str(e))}", False
        dtypes = "/".join(sorted({g.tensors[i].dtype for i in op.inputs if i >= 0}))
        lines.append(f"  #{op.index:<3} {op.op:<20} {dtypes:<16} {status}")
    if all_ok:
        try:
            c = compile_bytes(data, default_name(path)).metadata
            lines.append(f"workspace: {c['workspace_bytes']} bytes (lower bound "
                         f"{c['workspace_lower_bound_bytes']}), constants: {c['constants_bytes']} bytes, "
                         f"MACs: {c['macs']}")
        except UtvmError as e:
            lines.append(f"cannot compile: {printable(str(e))}")
    return "\n".join(lines)
