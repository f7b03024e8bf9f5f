"""SVDF conformance against TFLite's reference kernels (and TFLM for the int8-state variant).

The oracle runs each model once from a zero state. To exercise the state (shift, history, in-place
update) within one run, a model holds T SVDF operators that share one variable state tensor: each
reads and updates it in turn, like T consecutive invocations of a one-operator model. A separate
test runs the same one-operator model several times in one process on both sides.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest
from conftest import SHARED_MODELS
from harness import Case, check_against_oracle
from tflite_writer import ModelBuilder

F32 = np.float32
GEOMETRY = [  # (batches, input_size, num_units, rank, memory_size)
    (1, 16, 8, 1, 4), (2, 10, 4, 2, 3), (1, 32, 16, 1, 8), (3, 5, 3, 3, 2), (1, 7, 5, 2, 1),
    (2, 24, 6, 1, 10), (1, 40, 4, 4, 5), (4, 3, 2, 1, 6),
]


def _scale(rng: np.random.Generator, lo: float, hi: float) -> float:
    return float(F32(np.exp(rng.uniform(np.log(lo), np.log(hi)))))


def svdf_model(dtype: str, k: int, seed: int, steps: int, state_dtype: str = "int16",
               act: str | None = None) -> tuple[bytes, list[np.ndarray], str]:
    rng = np.random.default_rng(seed)
    batches, n_in, units, rank, mem = GEOMETRY[k % len(GEOMETRY)]
    filters = units * rank
    with_bias = k % 4 != 3 or state_dtype == "int8"   # TFLM needs the bias (reads its scale)
    mb = ModelBuilder()
    inputs, outputs, feeds = [], [], []
    if dtype == "float32":
        act = act or ("NONE", "RELU", "RELU6", "TANH", "RELU_N1_TO_1")[k % 5]
        wf = mb.tensor((filters, n_in), "float32", data=rng.standard_normal((filters, n_in)).astype(F32) * 0.4)
        wt = mb.tensor((filters, mem), "float32", data=rng.standard_normal((filters, mem)).astype(F32) * 0.5)
        b = mb.tensor((units,), "float32", data=rng.standard_normal(units).astype(F32)) if with_bias else -1
        st = mb.tensor((batches, mem * filters), "float32", is_variable=True)
        for _ in range(steps):
            x = mb.tensor((batches, n_in), "float32")
            y = mb.tensor((batches, units), "float32")
            mb.operator("SVDF", [x, wf, wt, b, st], [y], {"rank": rank, "fused_activation_function": act})
            inputs.append(x)
            outputs.append(y)
            feeds.append(rng.standard_normal((batches, n_in)).astype(F32))
        return mb.build(inputs, outputs), feeds, f"SVDF f32 {GEOMETRY[k % len(GEOMETRY)]} {act} bias={with_bias}"
    act = act or "RELU"
    s_in, zp_in = _scale(rng, 0.01, 0.2), int(rng.integers(-128, 128))
    s_wf = _scale(rng, 0.002, 0.02)
    t_max = 127 if state_dtype == "int8" else 4000
    s_wt = _scale(rng, 0.001, 0.01)
    typical = np.sqrt(n_in) * 75.0 * 75.0 * s_in * s_wf
    s_state = float(F32(typical / (rng.uniform(2000, 30000) if state_dtype == "int16" else rng.uniform(20, 120))))
    zp_state = int(rng.integers(-40, 40)) if state_dtype == "int8" else 0
    s_bias = float(F32(s_state * s_wt))
    typical_out = np.sqrt(mem * rank) * (15000 if state_dtype == "int16" else 60) * t_max / 2 * s_state * s_wt
    s_out, zp_out = float(F32(typical_out / rng.uniform(30, 150))), int(rng.integers(-100, 100))
    wf = mb.tensor((filters, n_in), "int8", data=rng.integers(-127, 128, (filters, n_in)), scale=s_wf, zero_point=0)
    wt = mb.tensor((filters, mem), state_dtype, data=rng.integers(-t_max, t_max + 1, (filters, mem)),
                   scale=s_wt, zero_point=0)
    b = mb.tensor((units,), "int32", data=rng.integers(-30000, 30000, units), scale=s_bias,
                  zero_point=0) if with_bias else -1
    st = mb.tensor((batches, mem * filters), state_dtype, scale=s_state, zero_point=zp_state, is_variable=True)
    for _ in range(steps):
        x = mb.tensor((batches, n_in), "int8", scale=s_in, zero_point=zp_in)
        y = mb.tensor((batches, units), "int8", scale=s_out, zero_point=zp_out)
        mb.operator("SVDF", [x, wf, wt, b, st], [y], {"rank": rank, "fused_activation_function": act})
        inputs.append(x)
        outputs.append(y)
        feeds.append(rng.integers(-128, 128, (batches, n_in)).astype(np.int8))
    label = f"SVDF int8/{state_dtype} {GEOMETRY[k % len(GEOMETRY)]} bias={with_bias} steps={steps} seed={seed}"
    return mb.build(inputs, outputs), feeds, label


def _run(cases: list[Case]) -> dict:
    res = check_against_oracle(cases)
    print(f"{len(cases)} cases, {res['bit_exact']} bit-exact")
    return res


@pytest.mark.parametrize("dtype", ["int8", "float32"])
def test_svdf(dtype):
    cases = []
    for k in range(40):
        steps = 1 + k % 4
        model, feeds, label = svdf_model(dtype, k, 7000 + k + (0 if dtype == "int8" else 500), steps)
        cases.append(Case(model, feeds, label))
    res = _run(cases)
    if dtype == "int8":
        assert res["bit_exact"] == len(cases)


def _multi_run_script(model_path: str, feeds_path: str, steps: int) -> str:
    return textwrap.dedent(f"""
        import numpy as np
        from tflite_runtime.interpreter import Interpreter, OpResolverType
        it = Interpreter(model_path={model_path!r}, experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
        it.allocate_tensors()
        feeds = np.load({feeds_path!r})
        outs = []
        for t in range({steps}):
            it.set_tensor(it.get_input_details()[0]["index"], feeds[t])
            it.invoke()
            outs.append(np.array(it.get_tensor(it.get_output_details()[0]["index"])))
        np.save({feeds_path!r} + ".out.npy", np.stack(outs))
    """)


@pytest.mark.parametrize("dtype", ["int8", "float32"])
def test_svdf_state_persists_between_runs(dtype, tmp_path):
    """One SVDF model, 12 invocations in one process on both sides (state kept between runs)."""
    import ctypes
    import json

    from utvm_build.compiler import compile_bytes
    from utvm_build.emit.output import write_directory
    from utvm_build.host import build_shared_library

    model, _, label = svdf_model(dtype, 2, 99, steps=1)
    rng = np.random.default_rng(5)
    steps = 12
    if dtype == "int8":
        feeds = rng.integers(-128, 128, (steps, 1, 32)).astype(np.int8)
    else:
        feeds = rng.standard_normal((steps, 1, 32)).astype(F32)
    (tmp_path / "m.tflite").write_bytes(model)
    np.save(tmp_path / "feeds.npy", feeds)
    script = _multi_run_script(str(tmp_path / "m.tflite"), str(tmp_path / "feeds.npy"), steps)
    subprocess.run([sys.executable, "-c", script], check=True)
    ref = np.load(str(tmp_path / "feeds.npy") + ".out.npy")

    compiled = compile_bytes(model, "svdf_state")
    write_directory(tmp_path / "gen", compiled.files)
    meta = json.loads((tmp_path / "gen" / "metadata.json").read_text())
    lib = ctypes.CDLL(str(build_shared_library(tmp_path / "gen", tmp_path / "libsvdf.so", ("-O1",))))
    run = lib.tvmgen_svdf_state_run
    ours = []
    for t in range(steps):
        x = np.ascontiguousarray(feeds[t])
        y = np.zeros(meta["outputs"][0]["shape"], dtype=meta["outputs"][0]["dtype"])
        ins = (ctypes.c_void_p * 1)(x.ctypes.data)
        outs = (ctypes.c_void_p * 1)(y.ctypes.data)
        assert run(ins, outs) == 0
        ours.append(y)
    ours = np.stack(ours)
    if dtype == "int8":
        np.testing.assert_array_equal(ours, ref.reshape(ours.shape), err_msg=label)
    else:
        np.testing.assert_allclose(ours, ref.reshape(ours.shape), rtol=0, atol=1e-5 * float(np.abs(ref).max()))
    lib.tvmgen_svdf_state_reset_state()
    y = np.zeros_like(ours[0])
    assert run((ctypes.c_void_p * 1)(np.ascontiguousarray(feeds[0]).ctypes.data),
               (ctypes.c_void_p * 1)(y.ctypes.data)) == 0
    np.testing.assert_array_equal(y, ours[0])


SHARED = SHARED_MODELS / "examples"


@pytest.mark.skipif(not (SHARED / "keyword_scrambled_8bit.tflite").is_file(), reason="shared models absent")
def test_svdf_int8_state_against_tflm():
    from oracle import micro_reference_outputs_many, tflm_available

    if not tflm_available():
        pytest.skip("tflite-micro is not installed")
    from harness import assert_matches, run_cases

    cases = []
    for k in range(30):
        model, feeds, label = svdf_model("int8", k, 9000 + k, 1 + k % 4, state_dtype="int8")
        cases.append(Case(model, feeds, label))
    refs = micro_reference_outputs_many([(c.model, c.inputs) for c in cases])
    ours = run_cases(cases)
    for c, o, r in zip(cases, ours, refs):
        assert not isinstance(r, Exception), f"{c.label}: {r}"
        for i, (a, b) in enumerate(zip(o, r)):
            assert_matches(a, np.asarray(b), f"{c.label} output {i}")


@pytest.mark.skipif(not (SHARED / "keyword_scrambled.tflite").is_file(), reason="shared models absent")
def test_keyword_scrambled_models():
    """Whole models: keyword_scrambled (TFLite reference) and its 8-bit variant (TFLM oracle)."""
    from harness import assert_matches, run_cases
    from oracle import micro_reference_outputs_many, random_inputs, tflm_available

    m = (SHARED / "keyword_scrambled.tflite").read_bytes()
    res = _run([Case(m, random_inputs(m, s), f"keyword_scrambled seed {s}") for s in range(12)])
    assert res["bit_exact"] == res["cases"]
    if not tflm_available():
        return
    m8 = (SHARED / "keyword_scrambled_8bit.tflite").read_bytes()
    cases = [Case(m8, random_inputs(m8, s), f"keyword_scrambled_8bit seed {s}") for s in range(12)]
    refs = micro_reference_outputs_many([(c.model, c.inputs) for c in cases])
    for c, o, r in zip(cases, run_cases(cases), refs):
        assert not isinstance(r, Exception), f"{c.label}: {r}"
        for a, b in zip(o, r):
            assert_matches(a, np.asarray(b), c.label)
            assert np.array_equal(a, np.asarray(b).reshape(a.shape)), c.label
