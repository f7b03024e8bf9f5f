"""TFLM's signal library custom operators (ops/signal.py) against TFLM's own interpreter.

Oracle: the TFLM interpreter of the PyPI ``tflite-micro`` package (tflite-runtime has no signal
operators), in a subprocess. Single-operator models are written with tests/tflite_writer.py
(custom operator + FlexBuffers options), seeded over sizes, parameters and edge values; every
integer output byte-identical. SignalEnergy writes only bins start..end-1 (TFLM leaves the others
as the arena had them), so only those are compared. The two real audio_preprocessor models
(third_party/tflite-micro) run as sequences of consecutive invocations through one TFLM interpreter and
one instance of ours, then again after a reset on both sides, and for two instances with
caller-supplied state.

``UTVM_TEST_FULL=1`` runs every case; CI runs a fixed, evenly spread sample of each sweep.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from harness import Case, assert_matches, record, run_cases
from oracle import micro_reference_outputs_many, tflm_available
from tflite_writer import ModelBuilder, flex_map

from utvm_build.compiler import compile_bytes
from utvm_build.errors import UnsupportedError

pytestmark = pytest.mark.skipif(not tflm_available(), reason="the oracle (tflite-micro) is not installed")

FULL = os.environ.get("UTVM_TEST_FULL") == "1"
DATA = Path(__file__).resolve().parent.parent / "third_party" / "tflite-micro"
N_CASES = 24
CI_CASES = 8


def model(code: str, ins: list[tuple], outs: list[tuple], options: bytes) -> tuple[bytes, list[int]]:
    """ins: (shape, dtype, data or None); outs: (shape, dtype). Returns the model and the indices
    (into ``ins``) of its runtime inputs."""
    b = ModelBuilder()
    idx, runtime = [], []
    for k, (shape, dtype, data) in enumerate(ins):
        idx.append(b.tensor(shape, dtype, data=data))
        if data is None:
            runtime.append(k)
    o = [b.tensor(shape, dtype) for shape, dtype in outs]
    b.custom_operator(code, idx, o, options)
    return b.build([idx[k] for k in runtime], o), runtime


def sample(cases: list, k: int = CI_CASES) -> list:
    if FULL or len(cases) <= k:
        return cases
    step = len(cases) / k
    return [cases[int(i * step)] for i in range(k)]


def check(cases: list[Case], masks: list[list[np.ndarray | None]] | None = None, float_rtol: float = 1e-5) -> None:
    """Ours against TFLM's interpreter, every output byte for byte (masked: only where True); float32
    within float_rtol x max|out| (0: equal)."""
    refs = micro_reference_outputs_many([(c.model, c.inputs) for c in cases])
    ours = run_cases(cases)
    failures, exact = [], 0
    for k, (case, mine, ref) in enumerate(zip(cases, ours, refs)):
        if isinstance(ref, Exception):
            failures.append(f"{case.label}: TFLM failed: {ref}")
            continue
        try:
            for i, (o, r) in enumerate(zip(mine, ref)):
                r = np.asarray(r).reshape(o.shape)
                m = masks[k][i] if masks else None
                if m is not None:
                    o, r = o[m], r[m]
                assert_matches(o, r, f"{case.label} output {i}", float_rtol)
            exact += 1
        except AssertionError as e:
            failures.append(str(e))
    assert not failures, f"{len(failures)} of {len(cases)} cases failed:\n" + "\n".join(failures[:10])
    record(len(cases), exact)


def i16(rng: np.random.Generator, shape, mode: int) -> np.ndarray:
    """int16 data: full range, small, with extremes, or a shifted-down sine."""
    n = int(np.prod(shape))
    if mode == 0:
        x = rng.integers(-32768, 32768, n)
    elif mode == 1:
        x = rng.integers(-(1 << int(rng.integers(0, 15))), 1 << int(rng.integers(0, 15)), n)
    elif mode == 2:
        x = rng.choice([-32768, 32767, 0, -1, 1, -32767], n)
    else:
        x = (rng.uniform(0, 32767) * np.sin(np.arange(n) * rng.uniform(0.01, 1.0))).astype(np.int64)
    return x.astype(np.int16).reshape(shape)


def u32(rng: np.random.Generator, n: int) -> np.ndarray:
    bits = rng.integers(0, 33, n)
    return (rng.integers(0, 1 << 32, n, dtype=np.uint64) >> (32 - bits).astype(np.uint64)).astype(np.uint32)


# ---------------------------------------------------------------------------------------------- cases
def window_case(seed: int) -> Case:
    rng = np.random.default_rng(seed)
    wl = int(rng.choice([1, 2, 7, 64, 400, 480]))
    lead = [list(), [int(rng.integers(1, 4))], [1, int(rng.integers(1, 3))]][seed % 3]
    shape = lead + [wl]
    w = i16(rng, [wl], seed % 4)
    shift = int(rng.choice([0, 1, 12, 15, 20, 31]))
    m, _ = model("SignalWindow", [(shape, "int16", None), ([wl], "int16", w)], [(shape, "int16")],
                 flex_map(shift=shift))
    return Case(m, [i16(rng, shape, (seed // 4) % 4)], f"window seed {seed} {shape} shift {shift}")


def auto_scale_case(seed: int) -> Case:
    rng = np.random.default_rng(seed)
    n = int(rng.choice([1, 2, 31, 256, 480, 512]))
    x = i16(rng, [n], seed % 4)
    if seed % 6 == 5:
        x[:] = 0
    if seed % 7 == 3:
        x[int(rng.integers(0, n))] = -32768
    m, _ = model("SignalFftAutoScale", [([n], "int16", None)], [([n], "int16"), ([], "int32")], flex_map())
    return Case(m, [x], f"fft_auto_scale seed {seed} n {n}")


_FFT_LENGTHS = [4, 6, 8, 10, 12, 16, 20, 24, 30, 32, 40, 48, 50, 60, 64, 96, 120, 128, 160, 240, 250, 256, 480, 512]


_FFT_CODES = {"int16": 7, "int32": 2, "float32": 0}


def fft_data(rng: np.random.Generator, shape, dtype: str, mode: int) -> np.ndarray:
    """int16 as i16(); int32: full range, small, extremes, a sine; float32: several scales, zeros."""
    if dtype == "int16":
        return i16(rng, shape, mode)
    n = int(np.prod(shape))
    if dtype == "float32":
        x = rng.normal(0, 10.0 ** int(rng.integers(-3, 6)), n)
        if mode == 2:
            x[rng.random(n) < 0.3] = 0.0
        return x.astype(np.float32).reshape(shape)
    if mode == 0:
        x = rng.integers(-2**31, 2**31, n)
    elif mode == 1:
        x = rng.integers(-(1 << int(rng.integers(0, 31))), 1 << int(rng.integers(0, 31)), n)
    elif mode == 2:
        x = rng.choice([-2**31, 2**31 - 1, 0, -1, 1, -2**31 + 1], n)
    else:
        x = (rng.uniform(0, 2**31 - 1) * np.sin(np.arange(n) * rng.uniform(0.01, 1.0))).astype(np.int64)
    return x.astype(np.int32).reshape(shape)


def rfft_case(seed: int, dtype: str = "int16") -> Case:
    rng = np.random.default_rng(seed)
    n = _FFT_LENGTHS[seed % len(_FFT_LENGTHS)]
    length = int(rng.choice([n, n, max(1, n - 3), max(1, n // 2), 1]))
    frames = int(rng.choice([1, 1, 2, 3]))
    shape, oshape = ([length], [n + 2]) if frames == 1 and seed % 2 else ([frames, length], [frames, n + 2])
    m, _ = model("SignalRfft", [(shape, dtype, None)], [(oshape, dtype)], flex_map(T=_FFT_CODES[dtype], fft_length=n))
    return Case(m, [fft_data(rng, shape, dtype, (seed // 3) % 4)], f"rfft {dtype} seed {seed} fft_length {n} "
                f"input {shape}")


def irfft_case(seed: int, dtype: str = "int16") -> Case:
    """Complex bins: random over the type's range (modes as fft_data), with extra bins past n/2 + 1."""
    rng = np.random.default_rng(1000 + seed)
    n = _FFT_LENGTHS[(seed * 7) % len(_FFT_LENGTHS)]
    length = n + 2 + 2 * int(rng.choice([0, 0, 0, 1, 3]))
    frames = int(rng.choice([1, 1, 2, 3]))
    shape, oshape = ([length], [n]) if frames == 1 and seed % 2 else ([frames, length], [frames, n])
    m, _ = model("SignalIrfft", [(shape, dtype, None)], [(oshape, dtype)], flex_map(T=_FFT_CODES[dtype], fft_length=n))
    return Case(m, [fft_data(rng, shape, dtype, (seed // 2) % 4)], f"irfft {dtype} seed {seed} fft_length {n} "
                f"input {shape}")


def energy_case(seed: int) -> tuple[Case, list]:
    rng = np.random.default_rng(seed)
    bins = int(rng.choice([1, 5, 33, 257]))
    out_n = int(rng.integers(1, bins + 1)) if seed % 3 else bins
    start = int(rng.integers(0, out_n + 1)) if seed % 2 else 0
    end = int(rng.integers(start, out_n + 1)) if seed % 4 else out_n
    m, _ = model("SignalEnergy", [([2 * bins], "int16", None)], [([out_n], "uint32")],
                 flex_map(end_index=end, start_index=start))
    mask = np.zeros(out_n, bool)
    mask[start:end] = True
    return Case(m, [i16(rng, [2 * bins], seed % 4)], f"energy seed {seed} bins {bins} [{start}:{end}]"), [mask]


def filter_bank_case(seed: int) -> Case:
    rng = np.random.default_rng(seed)
    n_in = int(rng.choice([8, 65, 257]))
    nch = int(rng.integers(1, 41))
    widths = rng.integers(0 if seed % 3 == 0 else 1, min(n_in, 12) + 1, nch + 1)
    starts = np.array([int(rng.integers(0, n_in - w + 1)) for w in widths])
    n_w = int(widths.sum()) + int(rng.integers(0, 4))
    wstarts = np.array([int(rng.integers(0, n_w - w + 1)) for w in widths])
    big = seed % 2 == 0
    w = rng.integers(-32768 if big else 0, 32768 if big else 4096, n_w).astype(np.int16)
    uw = rng.integers(-32768 if big else 0, 32768 if big else 4096, n_w).astype(np.int16)
    x = u32(rng, n_in) if seed % 4 else rng.integers(0, 1 << 32, n_in, dtype=np.uint64).astype(np.uint32)
    ins = [([n_in], "uint32", None), ([n_w], "int16", w), ([n_w], "int16", uw),
           ([nch + 1], "int16", starts.astype(np.int16)), ([nch + 1], "int16", wstarts.astype(np.int16)),
           ([nch + 1], "int16", widths.astype(np.int16))]
    m, _ = model("SignalFilterBank", ins, [([nch], "uint64")], flex_map(num_channels=nch))
    return Case(m, [x], f"filter_bank seed {seed} in {n_in} channels {nch}")


def sqrt_case(seed: int) -> Case:
    rng = np.random.default_rng(seed)
    n = int(rng.choice([1, 7, 40, 100]))
    bits = rng.integers(0, 65, n).astype(np.uint64)
    raw = rng.integers(0, 1 << 63, n, dtype=np.uint64) * np.uint64(2) + rng.integers(0, 2, n, dtype=np.uint64)
    x = np.where(bits == 0, np.uint64(0), raw >> np.minimum(np.uint64(64) - bits, np.uint64(63)))
    if seed % 5 == 0:
        x[: min(n, 4)] = np.array([0, 1, (1 << 32) - 1, (1 << 64) - 1], np.uint64)[: min(n, 4)]
    scale = np.array(int(rng.integers(0, 16)) if seed % 3 else int(rng.integers(0, 32)), np.int32)
    m, _ = model("SignalFilterBankSquareRoot", [([n], "uint64", None), ([], "int32", None)], [([n], "uint32")],
                 flex_map())
    return Case(m, [x.astype(np.uint64), scale], f"sqrt seed {seed} n {n} scale {int(scale)}")


def _ss_options(rng: np.random.Generator, nch: int, seed: int) -> dict:
    if seed % 3 == 0:   # the audio_preprocessor's values
        o = dict(alternate_one_minus_smoothing=15401, alternate_smoothing=983, min_signal_remaining=819,
                 one_minus_smoothing=15975, smoothing=409, smoothing_bits=10, spectral_subtraction_bits=14)
    else:
        floor = rng.integers(-(1 << 31), 1 << 31) if seed % 5 == 1 else rng.integers(0, 1 << 14)
        o = dict(alternate_one_minus_smoothing=int(rng.integers(0, 1 << 16)),
                 alternate_smoothing=int(rng.integers(0, 1 << 16)),
                 min_signal_remaining=int(floor),
                 one_minus_smoothing=int(rng.integers(0, 1 << 16)), smoothing=int(rng.integers(0, 1 << 16)),
                 smoothing_bits=int(rng.integers(0, 32)), spectral_subtraction_bits=int(rng.integers(0, 64)))
    o.update(clamping=bool(seed % 2), num_channels=nch)
    return o


def spectral_subtraction_model(nch: int, options: dict) -> bytes:
    m, _ = model("SignalFilterBankSpectralSubtraction", [([nch], "uint32", None)],
                 [([nch], "uint32"), ([nch], "uint32")], flex_map(**options))
    return m


def spectral_subtraction_case(seed: int) -> Case:
    rng = np.random.default_rng(seed)
    nch = int(rng.choice([1, 2, 5, 40]))
    m = spectral_subtraction_model(nch, _ss_options(rng, nch, seed))
    return Case(m, [u32(rng, nch)], f"spectral_subtraction seed {seed} channels {nch}")


def _gain_lut() -> np.ndarray:
    from utvm_build.frontend.tflite import read_tflite

    g = read_tflite((DATA / "audio_preprocessor_int8.tflite").read_bytes())
    return next(t.data for t in g.tensors if t.name == "signal_pcan/Const")


def pcan_case(seed: int) -> Case:
    rng = np.random.default_rng(seed)
    n = int(rng.choice([1, 3, 40]))
    lut = _gain_lut() if seed % 2 == 0 else rng.integers(-32768, 32768, int(rng.choice([125, 130]))).astype(np.int16)
    shift = int(rng.choice([0, 6, 12, 31, 40, 63]))
    ins = [([n], "uint32", None), ([n], "uint32", None), ([lut.size], "int16", lut)]
    m, _ = model("SignalPCAN", ins, [([n], "uint32")], flex_map(snr_shift=shift))
    return Case(m, [u32(rng, n), u32(rng, n)], f"pcan seed {seed} n {n} shift {shift}")


def log_case(seed: int) -> Case:
    rng = np.random.default_rng(seed)
    n = int(rng.choice([1, 8, 40]))
    bits = int(rng.choice([0, 3, 8, 31]))
    scale = int(rng.choice([64, 1, 1 << 15, -5, (1 << 31) - 1]))
    x = u32(rng, n)
    if seed % 4 == 0:
        x[: min(n, 3)] = np.array([0, 1, 2], np.uint32)[: min(n, 3)]
    m, _ = model("SignalFilterBankLog", [([n], "uint32", None)], [([n], "int16")],
                 flex_map(input_correction_bits=bits, output_scale=scale))
    return Case(m, [x], f"log seed {seed} n {n} bits {bits} scale {scale}")


def cast_u32_case(seed: int) -> Case:
    rng = np.random.default_rng(seed)
    pairs = [("uint32", "int32"), ("int32", "uint32"), ("uint32", "float32"), ("int16", "uint32"),
             ("uint32", "int16"), ("uint32", "int8"), ("int8", "uint32"), ("uint32", "uint32"),
             ("float32", "uint32")]
    src, dst = pairs[seed % len(pairs)]
    n = int(rng.choice([1, 9, 257]))
    if src == "uint32":
        x = u32(rng, n)
    elif src == "float32":   # fractions, negatives, beyond 2^32 (taken modulo 2^32) and up to 2^62
        x = (rng.standard_normal(n) * 10.0 ** rng.integers(0, 19, n)).astype(np.float32)
    else:
        info = np.iinfo(src)
        x = rng.integers(info.min, info.max + 1, n).astype(src)
    b = ModelBuilder()
    i, o = b.tensor([n], src), b.tensor([n], dst)
    b.operator("CAST", [i], [o])
    return Case(b.build([i], [o]), [x], f"cast seed {seed} {src}->{dst} n {n}")


SWEEPS: dict[str, Callable[[int], Case]] = {
    "window": window_case, "fft_auto_scale": auto_scale_case, "rfft": rfft_case, "filter_bank": filter_bank_case,
    "sqrt": sqrt_case, "spectral_subtraction": spectral_subtraction_case, "pcan": pcan_case, "log": log_case,
    "cast_u32": cast_u32_case,
    "rfft_int32": lambda s: rfft_case(s, "int32"), "rfft_float32": lambda s: rfft_case(s, "float32"),
    "irfft_int16": irfft_case, "irfft_int32": lambda s: irfft_case(s, "int32"),
    "irfft_float32": lambda s: irfft_case(s, "float32"),
}


@pytest.mark.parametrize("sweep", sorted(SWEEPS))
def test_signal_op(sweep: str) -> None:
    # KISS FFT in float: every operation in the reference's order, so the host build (no fused
    # multiply-adds) gives TFLM's values exactly; asserted so
    check(sample([SWEEPS[sweep](s) for s in range(N_CASES)]), float_rtol=0.0 if "fft" in sweep else 1e-5)


def test_signal_energy() -> None:
    pairs = sample([energy_case(s) for s in range(N_CASES)])
    check([c for c, _ in pairs], [m for _, m in pairs])


# ---------------------------------------------------------------------------------------------- sequences
_TFLM_SEQUENCE = r"""
import json, sys
import numpy as np
from tflite_micro.python.tflite_micro import runtime
for job in json.load(open(sys.argv[1])):
    feeds = np.load(job["feeds"])
    it = runtime.Interpreter.from_file(job["model"])
    outs = []
    for rnd in range(job["rounds"]):
        for t in range(feeds.shape[0]):
            it.set_input(feeds[t], 0)
            it.invoke()
            outs.append([np.array(it.get_output(k), copy=True) for k in range(job["n_outputs"])])
        it.reset()
    np.savez(job["out"], *[np.stack([o[k] for o in outs]) for k in range(job["n_outputs"])])
"""


def tflm_sequences(tmp: Path, jobs: list[tuple[bytes, np.ndarray, int]], rounds: int = 2) -> list[list[np.ndarray]]:
    """For each (model, feeds [steps, ...], n_outputs): one TFLM interpreter over the steps,
    ``reset()``, and the steps again (``rounds`` times); outputs stacked over all steps."""
    spec = []
    for k, (m, feeds, n_out) in enumerate(jobs):
        (tmp / f"seq{k}.tflite").write_bytes(m)
        np.save(tmp / f"seq{k}_in.npy", feeds)
        spec.append({"model": str(tmp / f"seq{k}.tflite"), "feeds": str(tmp / f"seq{k}_in.npy"),
                     "out": str(tmp / f"seq{k}_out.npz"), "n_outputs": n_out, "rounds": rounds})
    (tmp / "seq.json").write_text(json.dumps(spec))
    (tmp / "seq.py").write_text(_TFLM_SEQUENCE)
    subprocess.run([sys.executable, str(tmp / "seq.py"), str(tmp / "seq.json")], check=True, capture_output=True,
                   timeout=600)
    res = []
    for s in spec:
        z = np.load(s["out"])
        res.append([z[f"arr_{i}"] for i in range(len(z.files))])
    return res


def audio(seed: int, steps: int) -> np.ndarray:
    """Structured audio: tones sweeping in frequency and loudness, noise bursts, silence, clipping."""
    rng = np.random.default_rng(seed)
    t = np.arange(steps * 480, dtype=np.float64)
    tone = np.sin(t * (0.02 + 0.5 * t / t.size)) * (3000 + 20000 * (t / t.size))
    noise = rng.normal(0, 1, t.size) * rng.choice([30, 300, 3000])
    x = tone + noise
    x[: 480] *= 0.0 if seed % 2 else 1.0          # a silent first frame
    x[-480:] = np.clip(x[-480:] * 4, -32768, 32767)  # a clipped last frame
    return np.clip(np.round(x), -32768, 32767).astype(np.int16).reshape(steps, 1, 480)


STEPS = 12


@pytest.mark.parametrize("kind", ["int8", "float"])
def test_audio_preprocessor_sequence_and_reset(tmp_path: Path, kind: str) -> None:
    """The real front end, 12 consecutive invocations, reset, 12 again (both sides), two seeds;
    and two instances with caller-supplied state interleaved."""
    from test_state import Instance

    m = (DATA / f"audio_preprocessor_{kind}.tflite").read_bytes()
    feeds = [audio(s, STEPS) for s in (0, 1)]
    refs = tflm_sequences(tmp_path, [(m, f, 1) for f in feeds])
    inst = Instance(tmp_path, m, f"ap_{kind}")
    checked = 0
    for f, (ref,) in zip(feeds, refs):
        first = inst.run([f])[0]
        inst.reset()
        second = inst.run([f])[0]
        inst.reset()
        for t in range(STEPS):
            assert_matches(first[t], ref[t], f"{kind} step {t}", 0.0)
            assert_matches(second[t], ref[STEPS + t], f"{kind} step {t} after reset", 0.0)
            checked += 2
        assert not np.array_equal(ref[1], ref[STEPS - 1]) or kind == "float"
    # Two microphones: caller-supplied state, interleaved calls, each equal to its own sequence.
    user = Instance(tmp_path, m, f"ap_{kind}_u", state="user")
    states = [user.new_state(), user.new_state()]
    outs: list[list[np.ndarray]] = [[], []]
    for t in range(STEPS):
        for k in (0, 1):
            outs[k].append(user.run([feeds[k][t:t + 1]], states[k])[0][0])
    for k in (0, 1):
        for t in range(STEPS):
            assert_matches(outs[k][t], refs[k][0][t], f"{kind} instance {k} step {t}", 0.0)
            checked += 1
    record(checked, checked)


def test_spectral_subtraction_state_sequence(tmp_path: Path) -> None:
    """The noise estimate persists across invocations and reset zeroes it: 10 steps, reset, 10 steps."""
    from test_state import Instance

    jobs, cases = [], []
    for seed in range(6):
        rng = np.random.default_rng(100 + seed)
        nch = int(rng.choice([2, 5, 40]))
        m = spectral_subtraction_model(nch, _ss_options(rng, nch, seed))
        feeds = np.stack([u32(rng, nch) >> np.uint32(seed % 3 * 8) for _ in range(10)])
        jobs.append((m, feeds, 2))
        cases.append((m, feeds))
    refs = tflm_sequences(tmp_path, jobs)
    for k, ((m, feeds), ref) in enumerate(zip(cases, refs)):
        inst = Instance(tmp_path, m, f"ss{k}")
        for rnd in range(2):
            mine = inst.run([feeds])
            for i in range(2):
                for t in range(10):
                    assert_matches(mine[i][t], ref[i][rnd * 10 + t], f"ss{k} output {i} step {t} round {rnd}")
            inst.reset()
    record(len(cases), len(cases))


# ---------------------------------------------------------------------------------------------- errors
def _err(m: bytes) -> str:
    with pytest.raises(UnsupportedError) as e:
        compile_bytes(m, "bad")
    msg = str(e.value)
    assert "\n" not in msg
    return msg


@pytest.mark.parametrize("code,ins,outs,options,needle", [
    ("SignalWindow", [([8], "int16", None), ([3], "int16", np.ones(3, np.int16))], [([8], "int16")],
     {"shift": 1}, "multiple of the window length"),
    ("SignalWindow", [([8], "int16", None), ([8], "int16", np.ones(8, np.int16))], [([8], "int16")],
     {"shift": 32}, "option shift = 32 is out of range"),
    ("SignalWindow", [([8], "int16", None), ([8], "int16", np.ones(8, np.int16))], [([8], "int16")],
     {"shift": 1, "extra": 2}, "custom options"),
    ("SignalRfft", [([14], "int16", None)], [([16], "int16")], {"T": 7, "fft_length": 14},
     "n/2 has the factors [7]"),
    ("SignalRfft", [([20], "int16", None)], [([18], "int16")], {"T": 7, "fft_length": 16},
     "do not fit fft_length 16"),
    ("SignalRfft", [([16], "int16", None)], [([16], "int16")], {"T": 7, "fft_length": 16},
     "last dimension 18"),
    ("SignalRfft", [([16], "int8", None)], [([18], "int8")], {"T": 9, "fft_length": 16},
     "option T = 9"),
    ("SignalRfft", [([16], "int16", None)], [([18], "int16")], {"T": 2, "fft_length": 16},
     "is int16; supported: int32"),
    ("SignalIrfft", [([16], "int32", None)], [([14], "int32")], {"T": 2, "fft_length": 14},
     "n/2 has the factors [7]"),
    ("SignalIrfft", [([16], "float32", None)], [([16], "float32")], {"T": 0, "fft_length": 16},
     "at least fft_length / 2 + 1 = 9 bins"),
    ("SignalIrfft", [([18], "int16", None)], [([18], "int16")], {"T": 7, "fft_length": 16},
     "last dimension 16"),
    ("SignalIrfft", [([2, 18], "int16", None)], [([1, 16], "int16")], {"T": 7, "fft_length": 16},
     "2 frames"),
    ("SignalEnergy", [([10], "int16", None)], [([5], "uint32")], {"start_index": 0, "end_index": 6},
     "end_index 6"),
    ("SignalFilterBankSpectralSubtraction", [([4], "uint32", None)], [([4], "uint32"), ([4], "uint32")],
     dict(alternate_one_minus_smoothing=1, alternate_smoothing=1, clamping=False, min_signal_remaining=1,
          num_channels=4, one_minus_smoothing=1, smoothing=1, smoothing_bits=32, spectral_subtraction_bits=1),
     "smoothing_bits = 32"),
    ("SignalFilterBankSpectralSubtraction", [([4], "uint32", None)], [([4], "uint32"), ([4], "uint32")],
     dict(alternate_one_minus_smoothing=1, alternate_smoothing=1, clamping=False, min_signal_remaining=1,
          num_channels=5, one_minus_smoothing=1, smoothing=1, smoothing_bits=2, spectral_subtraction_bits=1),
     "num_channels = 5"),
    ("SignalPCAN", [([4], "uint32", None), ([4], "uint32", None), ([100], "int16", np.zeros(100, np.int16))],
     [([4], "uint32")], {"snr_shift": 6}, "gain table has 100 entries"),
    ("SignalFilterBankLog", [([4], "uint32", None)], [([4], "int16")],
     {"input_correction_bits": 40, "output_scale": 1}, "input_correction_bits = 40"),
    ("SignalFilterBank", [([8], "uint32", None), ([4], "int16", np.ones(4, np.int16)),
                          ([4], "int16", np.ones(4, np.int16)), ([3], "int16", np.array([0, 6, 0], np.int16)),
                          ([3], "int16", np.zeros(3, np.int16)), ([3], "int16", np.array([1, 4, 1], np.int16))],
     [([2], "uint64")], {"num_channels": 2}, "channel 1"),
    ("SignalFftAutoScale", [([8], "int16", None)], [([8], "int16"), ([1], "int32")], {}, "needs rank 0"),
])
def test_invalid_variants_one_line(code: str, ins: list, outs: list, options: dict, needle: str) -> None:
    m, _ = model(code, ins, outs, flex_map(**options))
    msg = _err(m)
    assert f"CUSTOM({code})" in msg and needle in msg, msg


# ---------------------------------------------------------------------------------------------- stateful operators
SEQ_STEPS = 10


def delay_seq(seed: int) -> tuple[bytes, np.ndarray, list]:
    rng = np.random.default_rng(seed)
    n = int(rng.choice([1, 3, 16, 64]))
    shape = [n] if seed % 2 else [int(rng.integers(1, 4)), n]
    d = int(rng.choice([0, 1, 2, n, n + 5, 3 * n + 1]))
    m, _ = model("SignalDelay", [(shape, "int16", None)], [(shape, "int16")], flex_map(delay_length=d))
    return m, i16(rng, [SEQ_STEPS] + shape, seed % 4), [None]


def overlap_add_seq(seed: int) -> tuple[bytes, np.ndarray, list]:
    rng = np.random.default_rng(seed)
    dtype = "float32" if seed >= N_CASES // 2 else "int16"
    size = int(rng.choice([1, 4, 16, 33]))
    frames = int(rng.integers(1, 4))
    step = int(rng.integers(1, size + 1))
    lead = [] if seed % 3 else [int(rng.integers(1, 3))]
    shape = lead + [frames, size]
    feeds = (rng.standard_normal([SEQ_STEPS] + shape).astype(np.float32) if dtype == "float32"
             else i16(rng, [SEQ_STEPS] + shape, seed % 4))
    m, _ = model("SignalOverlapAdd", [(shape, dtype, None)], [(lead + [frames * step], dtype)],
                 flex_map(T=0 if dtype == "float32" else 7, frame_step=step))
    return m, feeds, [None]


def framer_seq(seed: int) -> tuple[bytes, np.ndarray, list]:
    rng = np.random.default_rng(seed)
    step = int(rng.choice([1, 2, 5, 16]))
    length = step * int(rng.integers(1, 4))
    size = int(rng.integers(1, 3 * step + 1))
    prefill = bool(seed % 2) and size >= step
    lead = [] if seed % 3 else [int(rng.integers(1, 3))]
    m, _ = model("SignalFramer", [(lead + [length], "int16", None)],
                 [(lead + [length // step, size], "int16"), ([], "bool")],
                 flex_map(frame_size=size, frame_step=step, prefill=prefill))
    return m, i16(rng, [SEQ_STEPS] + lead + [length], seed % 4), ["valid", None]


def stacker_seq(seed: int) -> tuple[bytes, np.ndarray, list]:
    rng = np.random.default_rng(seed)
    nc = int(rng.choice([1, 3, 8]))
    left, right = int(rng.integers(0, 4)), int(rng.integers(0, 4))
    step = int(rng.integers(1, left + right + 2))
    m, _ = model("SignalStacker", [([nc], "int16", None)],
                 [([nc * (left + right + 1)], "int16"), ([], "bool")],
                 flex_map(num_channels=nc, stacker_left_context=left, stacker_right_context=right, stacker_step=step))
    return m, i16(rng, [SEQ_STEPS, nc], seed % 4), ["valid", None]


STATEFUL: dict[str, Callable[[int], tuple[bytes, np.ndarray, list]]] = {
    "delay": delay_seq, "overlap_add": overlap_add_seq, "framer": framer_seq, "stacker": stacker_seq,
}


@pytest.mark.parametrize("op", sorted(STATEFUL))
def test_signal_stateful_sequences(tmp_path: Path, op: str) -> None:
    """Each case: 10 consecutive invocations, reset, 10 again, on one TFLM interpreter and one
    instance of ours; every step byte-identical (float32 bit-exact too). An output TFLM leaves
    unwritten (output_valid false) is compared only through output_valid."""
    from test_state import Instance

    cases = sample([STATEFUL[op](s) for s in range(N_CASES)], 6)
    refs = tflm_sequences(tmp_path, [(m, f, len(masks)) for m, f, masks in cases])
    for k, ((m, feeds, masks), ref) in enumerate(zip(cases, refs)):
        inst = Instance(tmp_path, m, f"{op}{k}")
        for rnd in range(2):
            mine = inst.run([feeds])
            for t in range(SEQ_STEPS):
                valid = bool(ref[1][rnd * SEQ_STEPS + t]) if masks[0] == "valid" else True
                for i in range(len(masks)):
                    if i == 0 and not valid:
                        continue
                    assert_matches(mine[i][t], ref[i][rnd * SEQ_STEPS + t],
                                   f"{op} case {k} output {i} step {t} round {rnd}", 0.0)
            inst.reset()
    record(len(cases), len(cases))


def test_signal_stateful_first_step_sanitized() -> None:
    """The stateful operators' first invocation in the sanitized (ASan/UBSan) build of every case."""
    cases, kinds = [], []
    for op, make in sorted(STATEFUL.items()):
        for m, feeds, masks in sample([make(s) for s in range(N_CASES)], 4):
            cases.append(Case(m, [feeds[0]], f"{op} first step"))
            kinds.append(masks[0])
    refs = micro_reference_outputs_many([(c.model, c.inputs) for c in cases])
    ours = run_cases(cases)
    for case, kind, mine, ref in zip(cases, kinds, ours, refs):
        assert not isinstance(ref, Exception), f"{case.label}: {ref}"
        for i, (o, r) in enumerate(zip(mine, ref)):
            if i == 0 and kind == "valid" and not bool(ref[1]):
                continue
            assert_matches(o, np.asarray(r).reshape(o.shape), f"{case.label} output {i}", 0.0)
    record(len(cases), len(cases))
