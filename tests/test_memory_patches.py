"""--memory balanced|min: patch-based execution in stripes, in-place operators (passes/patches.py,
passes/inplace.py, the planner's buffers with parts).

Every transformation keeps each output element's arithmetic, so every case is compared byte for
byte with TFLite's reference kernels: generated chains of CONV_2D / DEPTHWISE_CONV_2D over shapes,
strides, dilations and paddings (with residual ADDs and RELUs), once as the planner chooses and
once per candidate rewrite (each segment, stripe count, in place or not), host (ASan/UBSan) and
Cortex-M4 on QEMU. The CI runs a seeded sample; UTVM_TEST_FULL=1 runs every case.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
from harness import Case, check_against_oracle, run_cases
from system_tools import need

from utvm_build import compiler
from utvm_build.compiler import compile_bytes, lower
from utvm_build.ops.conv import window
from utvm_build.options import CompileOptions
from utvm_build.passes import patches

FULL = os.environ.get("UTVM_TEST_FULL") == "1"


def _layer(mb, rng: np.random.Generator, x, shape: list[int], kind: str, f: int, s: int, d: int, pad: str,
           act: str, oc: int = 0):  # noqa: ANN001, ANN202
    n, h, w, c = shape
    oc = c if kind == "dw" else oc or int(rng.integers(2, 9))
    wt = rng.integers(-127, 128, [1, f, f, oc] if kind == "dw" else [oc, f, f, c]).astype(np.int8)
    s_in = 0.05
    s_w = rng.uniform(0.002, 0.02, oc).astype(np.float32)
    taps = f * f * (1 if kind == "dw" else c)
    s_out = float(s_in * 0.01 * np.sqrt(taps) * 60.0 / 40.0)
    tw = mb.tensor(wt.shape, "int8", data=wt, scale=s_w, zero_point=[0] * oc,
                   quantized_dimension=3 if kind == "dw" else 0)
    bias = rng.integers(-2000, 2000, oc).astype(np.int64)
    tb = mb.tensor([oc], "int32", data=bias, scale=(np.float32(s_in) * s_w).astype(np.float32), zero_point=[0] * oc)
    oh, _ = window(pad, h, f, s, d)
    ow, _ = window(pad, w, f, s, d)
    out = [n, oh, ow, oc]
    y = mb.tensor(out, "int8", scale=s_out, zero_point=int(rng.integers(-20, 20)))
    opts = {"padding": pad, "stride_h": s, "stride_w": s, "dilation_h_factor": d, "dilation_w_factor": d,
            "fused_activation_function": act}
    if kind == "dw":
        opts["depth_multiplier"] = 1
    mb.operator("DEPTHWISE_CONV_2D" if kind == "dw" else "CONV_2D", [x, tw, tb], [y], opts)
    return y, out


def chain_model(seed: int) -> tuple[bytes, list[np.ndarray]]:
    """A random chain of 2-5 windowed layers, sometimes with a residual ADD (in place) and a RELU."""
    from tflite_writer import ModelBuilder

    rng = np.random.default_rng(seed)
    mb = ModelBuilder(f"memory chain {seed}")
    shape = [1, int(rng.integers(6, 24)), int(rng.integers(3, 12)), int(rng.integers(1, 9))]
    x0 = mb.tensor(shape, "int8", scale=0.05, zero_point=int(rng.integers(-10, 10)))
    x, cur = x0, shape
    for _ in range(int(rng.integers(2, 6))):
        kind = "dw" if rng.random() < 0.5 else "conv"
        f = int(rng.choice([1, 2, 3, 5]))
        s = int(rng.choice([1, 1, 2]))
        d = int(rng.choice([1, 1, 2])) if s == 1 else 1
        pad = "SAME" if rng.random() < 0.7 else "VALID"
        if window(pad, cur[1], f, s, d)[0] < 1 or window(pad, cur[2], f, s, d)[0] < 1:
            continue
        x, cur = _layer(mb, rng, x, cur, kind, f, s, d, pad, str(rng.choice(["NONE", "RELU", "RELU6"])))
    if rng.random() < 0.5:   # a residual block: y = x + dw(x), in place over a dying input
        y, _ = _layer(mb, rng, x, cur, "dw", 3, 1, 1, "SAME", "NONE")
        z = mb.tensor(cur, "int8", scale=0.07, zero_point=3)
        mb.operator("ADD", [x, y], [z], {"fused_activation_function": "RELU"})
        x = z
    model = mb.build([x0], [x])
    return model, [rng.integers(-128, 128, shape).astype(np.int8)]


SEEDS = list(range(40 if FULL else 3))


def prefix_model(seed: int) -> tuple[bytes, list[np.ndarray]]:
    """A MobileNetV1-like prefix (VWW, person_detect): a strided 3x3 convolution of a few input
    channels to more, whose output is smaller than its input (its stripes run in place over the
    input: a line buffer), then depthwise / pointwise pairs, one strided."""
    from tflite_writer import ModelBuilder

    rng = np.random.default_rng(seed)
    mb = ModelBuilder(f"memory prefix {seed}")
    c = int(rng.integers(1, 4))
    shape = [1, int(rng.integers(24, 49)) // 4 * 4, int(rng.integers(8, 17)), c]
    x0 = mb.tensor(shape, "int8", scale=0.05, zero_point=int(rng.integers(-10, 10)))
    pad = str(rng.choice(["SAME", "VALID"]))
    x, cur = _layer(mb, rng, x0, shape, "conv", 3, 2, 1, pad, "RELU6", oc=int(rng.integers(c + 1, 4 * c)))
    for kind, f, s, oc in (("dw", 3, 1, 0), ("conv", 1, 1, 2 * cur[3]), ("dw", 3, 2, 0), ("conv", 1, 1, 0)):
        x, cur = _layer(mb, rng, x, cur, kind, f, s, 1, "SAME", "RELU6", oc=oc)
    return mb.build([x0], [x]), [rng.integers(-128, 128, shape).astype(np.int8)]


def _options(**kw) -> CompileOptions:  # noqa: ANN003
    return CompileOptions(**kw)


def test_chosen_plans_match_the_reference() -> None:
    """fast, balanced and min (inputs in the caller's buffers and in the workspace) on every model,
    byte-identical to the reference; min must actually rewrite most models."""
    cases, rewritten = [], 0
    for seed in SEEDS:
        model, inputs = chain_model(seed)
        for memory in ("fast", "balanced", "min"):
            for io in ("caller", "workspace") if memory != "fast" else ("caller",):
                opts = _options(memory=memory, io=io)
                cases.append(Case(model, inputs, f"seed {seed} {memory} io {io}", opts))
                if memory == "min" and io == "workspace":
                    plan = compile_bytes(model, "m", opts).metadata["memory_transforms"]
                    rewritten += bool(plan["segments"] or plan["in_place"])
                    assert plan["workspace_after"] <= plan["workspace_before"], (seed, plan)
    check_against_oracle(cases)
    assert rewritten >= len(SEEDS) // 2, f"only {rewritten} of {len(SEEDS)} models were rewritten"


def _forced(monkeypatch: pytest.MonkeyPatch) -> None:
    """compile_bytes applies the candidate named in the model's description ("force <k>")."""
    def choose(g, mode, ram_limit, model_macs, scratch, alignment, io_in_workspace):  # noqa: ANN001, ANN202
        k = int(g.description.split("force ")[1])
        everyone = {op.index for op in g.operators}
        cands = list(patches._candidates(g, io_in_workspace, float("inf"), everyone))
        first = max(op.index for op in g.operators) + 1
        patches.apply(g, cands[k], first)
        report = patches.PatchReport(mode, model_macs=model_macs)
        report.segments.append({"forced": k})
        return report

    monkeypatch.setattr(compiler, "choose_patches", choose)


def _with_description(model: bytes, old: str, new: str) -> bytes:
    assert len(old) == len(new) and model.count(old.encode()) == 1
    return model.replace(old.encode(), new.encode())


def every_candidate(seeds: list[int], per_model: int) -> list[Case]:
    """One case per candidate rewrite (a spread sample of ``per_model`` per model unless FULL)."""
    cases = []
    for seed in seeds:
        model, inputs = chain_model(seed)
        for io in ("workspace", "caller"):
            g = lower(model)
            cands = list(patches._candidates(g, io == "workspace", float("inf"), {op.index for op in g.operators}))
            picks = range(len(cands)) if FULL or len(cands) <= per_model else \
                [int((i + 0.5) * len(cands) / per_model) for i in range(per_model)]
            # and the first of each kind, so that the sample has them all
            firsts = [next((k for k, c in enumerate(cands) if test(c)), None)
                      for test in (lambda c: c.reverse, lambda c: c.in_place and not c.reverse,
                                   lambda c: not c.in_place)]
            for k in sorted(set(picks) | {k for k in firsts if k is not None}):
                c = cands[k]
                tag = f"memory chain {seed}"
                forced = _with_description(model, tag, f"force {k}".ljust(len(tag)))
                label = (f"seed {seed} io {io}: operators {[op.index for op in c.ops]} in {c.stripes} stripes"
                         f"{' in place' if c.in_place else ''}{' bottom-up' if c.reverse else ''}")
                cases.append(Case(forced, inputs, label, _options(memory="min", io=io)))
    return cases


def test_every_candidate_matches_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each candidate the planner weighs (segment, stripe count, in place, top-down or bottom-up),
    forced one at a time, is byte-identical to the reference."""
    _forced(monkeypatch)
    cases = every_candidate(SEEDS if FULL else [0, 7], 4)
    assert len(cases) >= 16
    assert any("in place" in c.label for c in cases) and any("bottom-up" in c.label for c in cases)
    assert any("in place" not in c.label for c in cases)
    check_against_oracle(cases)


def test_stripes_cover_exactly_the_receptive_field() -> None:
    """stripe_rows against a brute force: the input rows a stripe gets are exactly those its output
    rows' windows touch (clipped to the tensor), for every operator of the chain."""
    rng = np.random.default_rng(3)
    for _ in range(200):
        geos = []
        h = int(rng.integers(4, 40))
        for _ in range(int(rng.integers(1, 4))):
            f, s, d = int(rng.integers(1, 6)), int(rng.integers(1, 3)), int(rng.integers(1, 3))
            out, pad = window(str(rng.choice(["SAME", "VALID"])), h, f, s, d)
            if out < 1:
                break
            geos.append(patches._Geo(h, out, s, d, f, pad, 1))
            h = out
        if not geos or geos[-1].out_h < 2:
            continue
        n = int(rng.integers(2, geos[-1].out_h + 1))
        rows = patches.stripe_rows(geos, n)
        assert rows is not None
        assert [r[-1][2:4] for r in rows] == [(geos[-1].out_h * k // n, geos[-1].out_h * (k + 1) // n)
                                              for k in range(n)]
        for stripe in rows:
            for geo, (i0, i1, o0, o1, pad) in zip(geos, stripe):
                touched = {o * geo.stride - geo.pad + t * geo.dilation for o in range(o0, o1) for t in range(geo.filt)}
                inside = sorted(r for r in touched if 0 <= r < geo.in_h)
                # from the first row a window touches to the last (or the tensor's end): dilated
                # taps may skip rows in between, which the stripe then carries unread
                assert (i0, i1) == (max(0, min(touched)), min(geo.in_h, max(touched) + 1)), (geo, stripe)
                assert i0 <= inside[0] and inside[-1] < i1
                assert pad == i0 - (o0 * geo.stride - geo.pad)
            for a, b in zip(stripe, stripe[1:]):
                assert a[2:4] == b[0:2]   # each operator makes the rows the next one reads


def test_fast_is_unchanged_and_options_are_checked() -> None:
    model, _ = chain_model(1)
    fast = compile_bytes(model, "m", _options())
    assert "memory_transforms" not in fast.metadata and "memory" not in fast.metadata["options"]
    assert compile_bytes(model, "m", _options(memory="fast")).files == fast.files
    from utvm_build.errors import UtvmError
    with pytest.raises(UtvmError, match="memory mode"):
        compile_bytes(model, "m", _options(memory="smallest"))
    with pytest.raises(UtvmError, match="ram-limit 16"):
        compile_bytes(model, "m", _options(ram_limit=16))


def test_ram_limit_meets_the_limit_with_fewest_macs() -> None:
    model, _ = chain_model(4)
    lo = compile_bytes(model, "m", _options(memory="min", io="workspace")).metadata
    fast = compile_bytes(model, "m", _options(io="workspace")).metadata
    assert lo["workspace_bytes"] < fast["workspace_bytes"]
    limited = compile_bytes(model, "m", _options(ram_limit=lo["workspace_bytes"], io="workspace")).metadata
    assert limited["workspace_bytes"] <= lo["workspace_bytes"]
    assert limited["macs"] <= lo["macs"]


def test_cli_info_shows_the_plan(tmp_path: Path) -> None:
    import json

    model, _ = chain_model(4)
    path = tmp_path / "m.tflite"
    path.write_bytes(model)
    r = subprocess.run(["python", "-m", "utvm_build", "info", str(path), "--memory", "min", "--io", "workspace",
                        "--json"], capture_output=True, text=True, env={**os.environ})
    assert r.returncode == 0, r.stderr
    plan = json.loads(r.stdout)["memory_plan"]["transforms"]
    assert plan["mode"] == "min" and plan["workspace_after"] < plan["workspace_before"]
    r = subprocess.run(["python", "-m", "utvm_build", "info", str(path), "--memory", "min", "--io", "workspace"],
                       capture_output=True, text=True)
    assert r.returncode == 0 and "stripes" in r.stdout, r.stdout


@pytest.mark.parametrize("core,target,machine", [("m4", "cortex-m4", "mps2-an386"),
                                                 ("m55", "cortex-m55", "mps3-an547")])
def test_on_cortex_m_qemu(tmp_path: Path, core: str, target: str, machine: str) -> None:
    """--target cortex-m4 / cortex-m55 --memory min (DSP and Helium kernels on sub-windows: short
    stripes, a per-stripe top padding, in place) on QEMU against the generic --memory fast build on
    the host, and the host against the reference."""
    need("arm-none-eabi-gcc", "qemu-system-arm", "cmake", "cc")
    from test_kernels_arm_dsp import _qemu

    from benchmarks import reference
    from benchmarks.compare import outputs_match
    from benchmarks.models import BenchModel
    from benchmarks.runner import CORES, build, model_metadata, parse_program_output

    models = []
    for seed in (4, 7) if not FULL else SEEDS:
        path = tmp_path / f"chain{seed}.tflite"
        path.write_bytes(chain_model(seed)[0])
        models.append(BenchModel(f"chain{seed}", path, "test"))
    path = tmp_path / "prefix0.tflite"   # the first convolution in place, then segments
    path.write_bytes(prefix_model(0)[0])
    models.append(BenchModel("prefix0", path, "test"))
    build(models, None, "O2", tmp_path / "host", target="generic")
    build(models, CORES[core], "Os", tmp_path / core, io="workspace", target=target,
          codegen_args="--memory min")
    for m in models:
        meta = model_metadata(tmp_path / core, m)
        assert meta["memory_transforms"]["segments"], m.name
        host = parse_program_output(subprocess.run([str(tmp_path / "host" / f"bench_{m.name}")],
                                                   capture_output=True, text=True, timeout=300).stdout)
        assert reference.check(m, model_metadata(tmp_path / "host", m), host.outputs).startswith("identical")
        rc, out = _qemu(tmp_path / core / f"bench_{m.name}.elf", tmp_path, machine=machine)
        target = parse_program_output(out)
        assert rc == 0 and target.rc == 0, out[-2000:]
        ok, how = outputs_match(target.outputs, host.outputs, [t["dtype"] for t in meta["outputs"]])
        assert ok and how == "identical", f"{m.name}: {how}"


def test_planner_parts_never_overlap_live_bytes() -> None:
    """In every rewritten plan, two buffers' parts that are alive at the same step never share a byte."""
    for seed in SEEDS:
        model, _ = chain_model(seed)
        plan = compile_bytes(model, "m", _options(memory="min", io="workspace")).plan
        spans = [(b.offset + rel, b.offset + rel + size, first, last, b.key)
                 for b in plan.buffers for rel, size, first, last in b.pieces()]
        for i, (a0, a1, af, al, ak) in enumerate(spans):
            for b0, b1, bf, bl, bk in spans[i + 1:]:
                if ak != bk and af <= bl and bf <= al:
                    assert a1 <= b0 or b1 <= a0, (seed, ak, bk)


def test_run_cases_smoke() -> None:
    """The harness runs a rewritten model (a guard that the forced tests really compile something)."""
    model, inputs = chain_model(2)
    outs = run_cases([Case(model, inputs, "min", _options(memory="min"))])
    assert outs and outs[0][0].dtype == np.int8


def test_prefix_line_buffer_then_segments(monkeypatch: pytest.MonkeyPatch) -> None:
    """A strided first convolution whose output is smaller than its input runs in place in stripes
    (passes/patches.choose's line buffers), and the segments after it read its output in the
    shared buffer: chosen by min and by --ram-limit, and forced (the line buffer, then each
    candidate of the rest), byte-identical to the reference."""
    cases, lines = [], 0
    for seed in range(6 if FULL else 2):
        model, inputs = prefix_model(seed)
        meta = compile_bytes(model, "m", _options(memory="min", io="workspace")).metadata
        plan = meta["memory_transforms"]
        lines += any(s["operators"] == [0] and s["in_place"] and not s["extra_macs"] for s in plan["segments"])
        assert plan["workspace_after"] < plan["workspace_before"]
        cases.append(Case(model, inputs, f"prefix {seed} min", _options(memory="min", io="workspace")))
        limit = (plan["workspace_after"] + plan["workspace_before"]) // 2
        cases.append(Case(model, inputs, f"prefix {seed} ram-limit {limit}", _options(ram_limit=limit, io="workspace")))
        g = lower(model)
        line = next((c for c in patches._candidates(g, True, 0, {g.operators[0].index})
                     if c.in_place and len(c.ops) == 1), None)
        if line is None:   # the first convolution's window leaves no row to overwrite
            continue
        patches.apply(g, line, 1000)
        rest = list(patches._candidates(g, True, float("inf"), {op.index for op in g.operators}))
        assert any(c.in_place and c.ops[0].inputs[0] in g.aliases for c in rest)
        chained = [k for k, c in enumerate(rest) if c.in_place and len(c.ops) > 1][:1]
        picks = range(len(rest)) if FULL else sorted({int((i + 0.5) * len(rest) / 4) for i in range(4)} | set(chained))
        tag = f"memory prefix {seed}"
        for k in picks:
            forced = _with_description(model, tag, f"pair {k}".ljust(len(tag)))
            cases.append(Case(forced, inputs, f"prefix {seed}: line buffer, then candidate {k}",
                              _options(memory="min", io="workspace")))

    def choose(g, mode, ram_limit, model_macs, scratch, alignment, io_in_workspace):  # noqa: ANN001, ANN202
        if not g.description.startswith("pair "):
            return real(g, mode, ram_limit, model_macs, scratch, alignment, io_in_workspace)
        k = int(g.description.split()[1])
        line = next(c for c in patches._candidates(g, True, 0, {g.operators[0].index})
                    if c.in_place and len(c.ops) == 1)
        patches.apply(g, line, 1000)
        rest = list(patches._candidates(g, io_in_workspace, float("inf"), {op.index for op in g.operators}))
        patches.apply(g, rest[k], 2000)
        report = patches.PatchReport(mode, model_macs=model_macs)
        report.segments.append({"forced": k})
        return report

    real = compiler.choose_patches
    monkeypatch.setattr(compiler, "choose_patches", choose)
    check_against_oracle(cases)
    assert lines, "min never ran the first convolution in place"
    assert any(": line buffer, then" in c.label for c in cases)


def test_report_draws_the_plan(tmp_path: Path) -> None:
    """`utvm-build report` with --memory: the stripes and in-place operators listed (one item
    each, as in info --json), and the buffers shared by views drawn piece by piece."""
    import json
    import re

    model, _ = chain_model(4)
    path = tmp_path / "m.tflite"
    path.write_bytes(model)
    args = [str(path), "--memory", "min", "--io", "workspace"]
    r = subprocess.run(["python", "-m", "utvm_build", "info", *args, "--json"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    plan = json.loads(r.stdout)["memory_plan"]
    transforms = plan["transforms"]
    assert transforms["segments"]
    r = subprocess.run(["python", "-m", "utvm_build", "report", *args, "-o", str(tmp_path / "r.html")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    page = (tmp_path / "r.html").read_text()
    assert f"workspace {transforms['workspace_before']} -&gt; {transforms['workspace_after']} bytes" in page
    items = re.findall(r"<li>(.*?)</li>", page.split('<ul class="transforms">')[1].split("</ul>")[0])
    assert len([i for i in items if "stripes of rows" in i]) == len(transforms["segments"])
    assert len([i for i in items if "written over its input" in i]) == len(transforms["in_place"])
    pieces = sum(len(b["parts"]) for b in plan["buffers"] if "parts" in b)
    assert pieces and page.count('class="buffer shared"') == pieces
