"""The type sweep (issue 23): every (operator, input types, output type) of the unary, cast,
quantize, elementwise (tests/type_sweep.py), convolution, pooling, reduction, shape / movement and
softmax families (tests/type_sweep_nn.py) as a single-operator model.

1. TFLite Micro's interpreter is asked which candidates it runs (all of them, in CI too: one
   worker, about 30 s on a loaded machine).
2. Each candidate TFLM runs must compile here, or be listed with its reason in
   ``utvm_build.ops.tflm_gaps.REFUSED`` (printed in docs/operators.md); each listed one must really
   be refused, in one line naming the operator. Nothing that both TFLM and TFLite's reference
   kernels (tflite-runtime 2.14) refuse may compile; what only the reference kernels run (hybrid
   float32 x int8, int64 / bool variants of the movement operators, ...) is compared with them.
3. The candidates that compile are run (one sanitized executable) and compared with the oracle:
   tflite-runtime 2.14's reference kernels where they run the model (except SUM int8 / int16,
   whose documented oracle is TFLM), else TFLM's interpreter, else tflite-runtime's default
   kernels. Integers byte-identical; float32 within 1e-5 x max|output| (bit-exact in practice).
   CI: an evenly spread sample of SAMPLE candidates, one seed; UTVM_TEST_FULL=1: every candidate,
   three seeds.
"""

from __future__ import annotations

import os

import pytest
from math_common import check, sample
from oracle import builtin_outputs_many, micro_reference_outputs_many, reference_outputs_many, tflm_available
from type_sweep import FAMILIES, Combo, candidates, family_of, inputs, model

from utvm_build.compiler import compile_bytes
from utvm_build.errors import UnsupportedError
from utvm_build.ops.tflm_gaps import REFUSED

FULL = os.environ.get("UTVM_TEST_FULL") == "1"
SAMPLE = 40
SEEDS = (1, 2, 3) if FULL else (1,)
#: combinations whose documented oracle is TFLM although tflite-runtime runs them differently
#: (docs/operators/nn.md: SUM int8 / int16 requantize as TFLite Micro does)
TFLM_ORACLE = frozenset({"SUM int8 -> int8", "SUM int16 -> int16"})

pytestmark = pytest.mark.skipif(not tflm_available(), reason="tflite-micro (the oracle of the sweep) is not installed")


@pytest.fixture(scope="module")
def sweep() -> dict:
    """{"tflm": keys TFLM runs, "ours": key -> None (compiles) or the one-line error, "combos"}."""
    combos = candidates()
    models = {c.key: model(c) for c in combos}
    runs = micro_reference_outputs_many([(models[c.key], inputs(c, 1)) for c in combos])
    tflm = {c.key for c, r in zip(combos, runs) if not isinstance(r, Exception)}
    ours: dict[str, str | None] = {}
    for c in combos:
        try:
            compile_bytes(models[c.key], "m")
            ours[c.key] = None
        except UnsupportedError as e:
            ours[c.key] = str(e)
    # compiled here but refused by TFLM: the reference kernels must run them (they are the oracle)
    extra = [c for c in combos if ours[c.key] is None and c.key not in tflm]
    # (the reference resolver first; the default one for what it does not register: CUMSUM, ...)
    ref_runs = reference_outputs_many([(models[c.key], inputs(c, 1)) for c in extra])
    ref = {c.key for c, r in zip(extra, ref_runs) if not isinstance(r, Exception)}
    rest = [c for c in extra if c.key not in ref]
    builtin_runs = builtin_outputs_many([(models[c.key], inputs(c, 1)) for c in rest])
    ref |= {c.key for c, r in zip(rest, builtin_runs) if not isinstance(r, Exception)}
    counts = {f: sum(family_of(c.op) == f and c.key in tflm for c in combos) for f in FAMILIES}
    print(f"\ntype sweep: {len(combos)} candidates, TFLM runs {len(tflm)} ({counts}), "
          f"{sum(v is None for k, v in ours.items() if k in tflm)} compile here; "
          f"{len(ref)} more compile here that only TFLite's reference kernels run")
    return {"tflm": tflm, "ref": ref, "ours": ours, "combos": combos, "models": models}


def test_every_combination_tflm_runs_compiles_or_is_documented(sweep) -> None:
    refused = {k for k in sweep["tflm"] if sweep["ours"][k] is not None}
    undocumented = sorted(refused - set(REFUSED))
    assert not undocumented, "TFLM runs these and utvm-build refuses them; implement them or list them " \
        "in utvm_build/ops/tflm_gaps.py:\n" + "\n".join(f"{k}: {sweep['ours'][k]}" for k in undocumented)
    stale = sorted(set(REFUSED) - refused)
    assert not stale, f"listed as refused, but compiles here or TFLM does not run it: {stale}"
    for k in refused:
        msg = sweep["ours"][k]
        assert "\n" not in msg and k.split()[0] in msg, msg


def test_nothing_beyond_the_references_compiles(sweep) -> None:
    extra = sorted(k for k, v in sweep["ours"].items()
                   if v is None and k not in sweep["tflm"] and k not in sweep["ref"])
    assert not extra, f"utvm-build compiles combinations TFLM and TFLite's reference kernels refuse: {extra}"


def test_combinations_match_the_reference(sweep) -> None:
    both = [c for c in sweep["combos"]
            if (c.key in sweep["tflm"] or c.key in sweep["ref"]) and sweep["ours"][c.key] is None]
    chosen: list[Combo] = sample(both, SAMPLE)
    cases = []
    from harness import Case

    for c in chosen:
        for seed in SEEDS:
            cases.append((c, Case(sweep["models"][c.key], inputs(c, seed), f"{c.key} seed={seed}")))
    # the reference kernels where they run the model, else TFLM (the types only TFLM has)
    ref_runs = reference_outputs_many([(case.model, case.inputs) for _, case in cases])
    ref_runs = [RuntimeError("TFLM is the oracle") if c.key in TFLM_ORACLE else r for (c, _), r in zip(cases, ref_runs)]
    on_ref = [(c.op, c.key, case) for (c, case), r in zip(cases, ref_runs) if not isinstance(r, Exception)]
    # TFLM where it runs the model, else tflite-runtime's default kernels (CUMSUM int32 / int64)
    on_tflm = [(c.op, c.key, case) for (c, case), r in zip(cases, ref_runs)
               if isinstance(r, Exception) and c.key in sweep["tflm"]]
    on_builtin = [(c.op, c.key, case) for (c, case), r in zip(cases, ref_runs)
                  if isinstance(r, Exception) and c.key not in sweep["tflm"]]
    done = 0
    if on_ref:
        done += check(on_ref)["cases"]
    if on_tflm:
        done += check(on_tflm, engine="tflm")["cases"]
    if on_builtin:
        done += check(on_builtin, engine="builtin")["cases"]
    assert done == len(cases)
    print(f"\ntype sweep: {len(chosen)} of {len(both)} combinations x {len(SEEDS)} seeds, "
          f"{len(on_ref)} against TFLite's reference kernels, {len(on_tflm)} against TFLM, "
          f"{len(on_builtin)} against TFLite's default kernels: all match")


def test_refused_list_is_in_the_operator_table() -> None:
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "operators.md").read_text()
    for key in REFUSED:
        assert key in text, f"{key} is not in docs/operators.md: run scripts/gen_operator_table.py"
