"""--memory balanced|min: the operators' order chosen for memory (passes/order.py).

Generated branching models (parallel branches of CONV_2D / DEPTHWISE_CONV_2D from one input,
written interleaved in the file, merged by a CONCATENATION or an ADD, sometimes a second model
output) are compiled with the file's order and with the chosen one, byte-identical to TFLite's
reference kernels; the search is compared with a brute force over every topological order on
small graphs. The CI runs a seeded sample; UTVM_TEST_FULL=1 runs every case.
"""

from __future__ import annotations

import itertools
import os

import numpy as np
from harness import Case, check_against_oracle

from utvm_build.compiler import compile_bytes, lower
from utvm_build.options import CompileOptions
from utvm_build.passes import order

FULL = os.environ.get("UTVM_TEST_FULL") == "1"
SEEDS = list(range(30 if FULL else 4))


#: the quantisation of the branch ends and of their CONCATENATION (int8 concatenation does not requantize)
END_Q = (0.08, -1)


def _conv(mb, rng: np.random.Generator, x: int, shape: list[int], oc: int, f: int, depthwise: bool = False,
          end: bool = False):  # noqa: ANN001, ANN202
    """A SAME, stride-1 CONV_2D (or DEPTHWISE_CONV_2D) with random weights; returns (tensor, shape);
    ``end``: a branch end (output quantisation END_Q)."""
    c = shape[3]
    oc = c if depthwise else oc
    wt = rng.integers(-127, 128, [1, f, f, oc] if depthwise else [oc, f, f, c]).astype(np.int8)
    s_w = rng.uniform(0.002, 0.02, oc).astype(np.float32)
    s_in = 0.05
    tw = mb.tensor(wt.shape, "int8", data=wt, scale=s_w, zero_point=[0] * oc, quantized_dimension=3 if depthwise else 0)
    tb = mb.tensor([oc], "int32", data=rng.integers(-2000, 2000, oc), scale=(np.float32(s_in) * s_w).astype(np.float32),
                   zero_point=[0] * oc)
    taps = f * f * (1 if depthwise else c)
    out = [shape[0], shape[1], shape[2], oc]
    y = mb.tensor(out, "int8", scale=END_Q[0], zero_point=END_Q[1]) if end else \
        mb.tensor(out, "int8", scale=float(s_in * 0.015 * np.sqrt(taps)), zero_point=int(rng.integers(-20, 20)))
    opts = {"padding": "SAME", "stride_h": 1, "stride_w": 1, "fused_activation_function": "RELU"}
    if depthwise:
        opts["depth_multiplier"] = 1
    mb.operator("DEPTHWISE_CONV_2D" if depthwise else "CONV_2D", [x, tw, tb], [y], opts)
    return y, out


def branch_model(seed: int, concat_axis: int = 3) -> tuple[bytes, list[np.ndarray]]:
    """2-4 branches from one input, each a chain of 1-3 layers (some wide, some narrow), written
    interleaved at random; merged by a CONCATENATION on ``concat_axis`` (or an ADD when the
    branches agree); sometimes one branch is also a model output."""
    from tflite_writer import ModelBuilder

    rng = np.random.default_rng(seed)
    mb = ModelBuilder(f"memory order {seed}")
    h, w, c = int(rng.integers(2, 10)), int(rng.integers(2, 10)), int(rng.integers(1, 6))
    shape = [1, h, w, c]
    x0 = mb.tensor(shape, "int8", scale=0.05, zero_point=int(rng.integers(-10, 10)))
    n_branches = int(rng.integers(2, 5))
    last_oc = int(rng.integers(1, 6))
    plans = []
    for _ in range(n_branches):
        depth = int(rng.integers(1, 4))
        ocs = [int(rng.choice([2, 4, 12, 24])) for _ in range(depth - 1)] + [last_oc]
        plans.append([(oc, int(rng.choice([1, 3])), bool(rng.random() < 0.3)) for oc in ocs])
    heads = [(x0, shape) for _ in plans]
    steps = [0] * len(plans)
    while any(s < len(p) for s, p in zip(steps, plans)):   # interleaved: the file's order is a random one
        k = int(rng.choice([i for i, p in enumerate(plans) if steps[i] < len(p)]))
        oc, f, dw = plans[k][steps[k]]
        last = steps[k] == len(plans[k]) - 1
        x, cur = heads[k]
        heads[k] = _conv(mb, rng, x, cur, last_oc if last else oc, f, depthwise=dw and not last, end=last)
        steps[k] += 1
    # the branch ends of equal shape: a depthwise at the end would keep its input's channels
    outs = []
    if rng.random() < 0.3:
        extra = heads.pop(0)   # a second model output
        outs.append(extra[0])
    tensors = [t for t, _ in heads]
    if len(tensors) == 1:
        merged = tensors[0]
    elif len(tensors) == 2 and rng.random() < 0.4:
        merged = mb.tensor(heads[0][1], "int8", scale=0.1, zero_point=2)
        mb.operator("ADD", tensors, [merged], {"fused_activation_function": "NONE"})
    else:
        out_shape = list(heads[0][1])
        out_shape[concat_axis] *= len(tensors)
        merged = mb.tensor(out_shape, "int8", scale=END_Q[0], zero_point=END_Q[1])
        mb.operator("CONCATENATION", tensors, [merged], {"axis": concat_axis, "fused_activation_function": "NONE"})
    model = mb.build([x0], [merged] + outs)
    return model, [rng.integers(-128, 128, shape).astype(np.int8)]


def _orders(p: order._Problem):  # noqa: ANN202
    """Every topological order (brute force, small graphs only)."""
    for perm in itertools.permutations(range(p.n)):
        done = 0
        for k in perm:
            if p.preds[k] & ~done:
                break
            done |= 1 << k
        else:
            yield list(perm)


def test_search_is_exact_on_small_graphs() -> None:
    """The exact search's peak equals the brute force's minimum over every topological order, the
    order it returns is topological, and a narrow beam is never better than exact."""
    checked = 0
    for seed in range(40 if FULL else 12):
        model, _ = branch_model(seed)
        g = lower(model)
        if len(g.operators) > 8:
            continue
        for io in (False, True):
            p = order._problem(g, {op.index: 16 * (op.index % 3) for op in g.operators}, io)
            best, exact = order.best_order(p)
            assert exact
            done = 0
            for k in best:
                assert not p.preds[k] & ~done, (seed, best)
                done |= 1 << k
            assert order.peak_of(p, best) == min(order.peak_of(p, o) for o in _orders(p)), seed
            narrow, _ = order.best_order(p, beam=1)
            assert order.peak_of(p, narrow) >= order.peak_of(p, best)
            checked += 1
    assert checked >= 8


def test_chosen_orders_match_the_reference() -> None:
    """fast (the file's order) and min (the chosen order), inputs in the caller's buffers and in the
    workspace, byte-identical to the reference; the order must lower the peak of some models, and
    never raises the workspace."""
    cases, moved = [], 0
    for seed in SEEDS:
        model, inputs = branch_model(seed)
        cases.append(Case(model, inputs, f"seed {seed} fast", CompileOptions()))
        for io in ("caller", "workspace"):
            opts = CompileOptions(memory="min", io=io)
            cases.append(Case(model, inputs, f"seed {seed} min io {io}", opts))
            meta = compile_bytes(model, "m", opts).metadata["memory_transforms"]
            o = meta["order"]
            assert o["peak_after"] <= o["peak_before"] and o["workspace_after"] <= o["workspace_before"], (seed, o)
            moved += o["moved"] > 0
    check_against_oracle(cases)
    assert moved >= 1, "no model was reordered"


def test_fast_keeps_the_file_order() -> None:
    model, _ = branch_model(2)   # a model that --memory min reorders
    fast = compile_bytes(model, "m", CompileOptions())
    ran = [op.index for op in fast.graph.operators]
    assert ran == sorted(ran) and "memory_transforms" not in fast.metadata
    low = compile_bytes(model, "m", CompileOptions(memory="min"))
    chosen = low.metadata["memory_transforms"]["order"]["operators"]
    assert sorted(chosen) == ran and chosen != ran


def test_order_is_deterministic_and_reported() -> None:
    from utvm_build.info import transform_lines

    for seed in SEEDS:
        model, _ = branch_model(seed)
        a = compile_bytes(model, "m", CompileOptions(memory="balanced", io="workspace"))
        b = compile_bytes(model, "m", CompileOptions(memory="balanced", io="workspace"))
        assert a.files == b.files
        assert any("operator order" in line for line in transform_lines(a.metadata["memory_transforms"]))


def test_on_cortex_m4(tmp_path) -> None:  # noqa: ANN001
    """--target cortex-m4 --memory min on QEMU: models reordered, with CONCATENATIONs written into
    their slices (passes/concat_slices.py), against the host and the reference."""
    from test_memory_fuse_pad import check_on_m4

    seeds = list(range(12)) if FULL else [2, 5, 10]
    metas = check_on_m4(tmp_path, {f"branch{seed}": branch_model(seed, concat_axis=1)[0] for seed in seeds})
    done = [m["memory_transforms"] for m in metas.values()]
    assert any(d["order"]["moved"] for d in done) and any(d["concat_slices"] for d in done)
