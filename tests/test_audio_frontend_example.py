"""examples/audio_frontend: the whole keyword-spotting pipeline from raw audio in one host program
(TFLM's audio_preprocessor_int8 and micro_speech_quantized, two models in one CMake build). 1 s of
audio as 49 windows of 30 ms, 20 ms apart (TFLM's micro_speech example's framing), through one
front-end instance; the 49 x 40 features are the keyword model's [1, 1960] input. Every printed
feature equals the TFLM interpreter's (one instance over the 49 windows), the scores equal
tflite-runtime's reference kernels on those features. Two audio signals: main.c's built-in one
(re-made here) and a file. The same CMake project built for Cortex-M4 (examples/cortex_m's toolchain
file) and run under QEMU mps2-an386 prints exactly the host build's lines (built-in audio)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from oracle import reference_outputs
from system_tools import need
from test_ops_signal import tflm_sequences

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "audio_frontend"
FRONTEND = REPO / "third_party" / "tflite-micro" / "audio_preprocessor_int8.tflite"
KEYWORD = REPO.parent / "shared" / "models" / "examples" / "micro_speech_quantized.tflite"
TOOLCHAIN = REPO / "examples" / "cortex_m" / "arm-none-eabi.cmake"
SAMPLES, WINDOW, STRIDE, FRAMES = 16000, 480, 320, 49


def builtin_audio() -> np.ndarray:
    """main.c's synthesize(): 200 ms of silence, a sweeping triangle tone plus LCG noise."""
    out = np.zeros(SAMPLES, np.int16)
    seed, phase = 1, 0
    for n in range(SAMPLES):
        seed = (seed * 1103515245 + 12345) & 0xFFFFFFFF
        noise = ((seed >> 16) & 0x7FF) - 1024
        phase = (phase + 1000 + n // 4) & 0xFFFF
        tri = phase - 16384 if phase < 32768 else 49151 - phase
        out[n] = 0 if n < 3200 else tri + noise
    return out


def file_audio() -> np.ndarray:
    """Speech-like bursts: two noisy harmonic tones with a loud, clipped middle."""
    rng = np.random.default_rng(7)
    t = np.arange(SAMPLES) / 16000.0
    x = 6000 * np.sin(2 * np.pi * 300 * t) * np.sin(2 * np.pi * 2 * t) ** 2 + 3000 * np.sin(2 * np.pi * 1100 * t)
    x[6000:9000] *= 8
    x += rng.normal(0, 500, SAMPLES)
    return np.clip(np.round(x), -32768, 32767).astype(np.int16)


def expected(tmp: Path, audio: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    windows = np.stack([audio[t * STRIDE: t * STRIDE + WINDOW] for t in range(FRAMES)]).reshape(FRAMES, 1, WINDOW)
    (feats,) = tflm_sequences(tmp, [(FRONTEND.read_bytes(), windows, 1)], rounds=1)[0]
    (scores,) = reference_outputs(KEYWORD.read_bytes(), [feats.reshape(1, FRAMES * 40).astype(np.int8)])
    return feats.reshape(FRAMES, 40), scores.reshape(4)


def parse(text: str) -> tuple[np.ndarray, np.ndarray, str]:
    rows = [[int(v) for v in m.group(2).split()] for m in re.finditer(r"^features (\d+):(.*)$", text, re.M)]
    scores = [int(v) for v in re.search(r"^scores:(.*)$", text, re.M).group(1).split()]
    return np.array(rows), np.array(scores), re.search(r"^label: (\w+)$", text, re.M).group(1)


def _build(build: Path, *extra: str) -> None:
    if not KEYWORD.is_file():
        pytest.skip(f"{KEYWORD} absent (TFLM's micro_speech_quantized.tflite, the shared reference models)")
    need("cmake", "ninja")
    for cmd in (["cmake", "-S", EXAMPLE, "-B", build, "-G", "Ninja", f"-DPython3_EXECUTABLE={sys.executable}",
                 f"-DKEYWORD_MODEL={KEYWORD}", *extra], ["cmake", "--build", build]):
        p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=600)
        assert p.returncode == 0, p.stdout + p.stderr


@pytest.fixture(scope="module")
def host_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    need("gcc")
    build = tmp_path_factory.mktemp("audio_frontend_host")
    _build(build)
    return build


def test_audio_frontend_example_host(tmp_path: Path, host_build: Path) -> None:
    raw = tmp_path / "audio.raw"
    raw.write_bytes(file_audio().astype("<i2").tobytes())
    for k, (audio, args) in enumerate(((builtin_audio(), []), (file_audio(), [raw]))):
        p = subprocess.run([str(host_build / "audio_frontend"), *map(str, args)], capture_output=True, text=True,
                           timeout=60)
        assert p.returncode == 0, p.stderr
        feats, scores, label = parse(p.stdout)
        (tmp_path / f"ref{k}").mkdir()
        ref_feats, ref_scores = expected(tmp_path / f"ref{k}", audio)
        print(f"audio {k}: scores {scores.tolist()} ({label}), features {feats.min()}..{feats.max()}")
        assert feats.shape == (FRAMES, 40)
        np.testing.assert_array_equal(feats, ref_feats, err_msg=f"audio {k}: features")
        np.testing.assert_array_equal(scores, ref_scores, err_msg=f"audio {k}: scores")
        assert label == ["silence", "unknown", "yes", "no"][int(np.argmax(ref_scores))]
        assert len({tuple(r) for r in feats}) > 10   # the features follow the audio (not a constant row)


def test_audio_frontend_example_cortex_m4_qemu(tmp_path: Path, host_build: Path) -> None:
    """The firmware (semihosting output, no stdio) prints the host build's lines, byte for byte."""
    need("arm-none-eabi-gcc", "qemu-system-arm")
    _build(tmp_path, f"--toolchain={TOOLCHAIN}", "-DCORTEX_M_CPU=cortex-m4")
    host = subprocess.run([str(host_build / "audio_frontend")], capture_output=True, text=True, timeout=60)
    assert host.returncode == 0, host.stderr
    p = subprocess.run(["qemu-system-arm", "-M", "mps2-an386", "-nographic", "-semihosting", "-kernel",
                        str(tmp_path / "audio_frontend.elf")], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    lines = [ln.strip() for ln in (p.stdout + p.stderr).splitlines() if re.match(r"(features \d+|scores|label):", ln)]
    assert lines == host.stdout.splitlines()
    feats, scores, _ = parse(p.stdout + p.stderr)
    assert feats.shape == (FRAMES, 40) and scores.shape == (4,)
