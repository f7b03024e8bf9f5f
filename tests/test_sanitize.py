"""`utvm-build run --sanitize` and `--input-fill` (issue 12): the sanitized host program gives the
outputs of the normal host build, and a report from the sanitizers fails the run in one line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from system_tools import need

from utvm_build.compiler import compile_model
from utvm_build.errors import UtvmError
from utvm_build.host import fill_inputs, run_generated, run_sanitized
from utvm_build.options import CompileOptions

REPO = Path(__file__).resolve().parents[1]
MODELS = REPO / "examples" / "models" / "digits"


@pytest.mark.parametrize("model", ["digits_int8", "digits_float"])
@pytest.mark.parametrize("workspace", ["static", "user"])
def test_sanitized_outputs_equal_host_outputs(tmp_path: Path, model: str, workspace: str) -> None:
    need("gcc")
    gen = tmp_path / "gen"
    compile_model(MODELS / f"{model}.tflite", gen, CompileOptions(workspace=workspace))
    meta_inputs = [{"shape": [1, 8, 8, 1], "dtype": "int8" if model.endswith("int8") else "float32"}]
    for fill in ("min", "max", "random:1"):
        inputs = fill_inputs(meta_inputs, fill)
        expected = run_generated(gen, inputs)
        got = run_sanitized(gen, inputs)
        assert len(got) == len(expected)
        for a, b in zip(got, expected):
            np.testing.assert_array_equal(a, b)


def test_fill_inputs() -> None:
    ports = [{"shape": [3], "dtype": "int8"}, {"shape": [2], "dtype": "float32"}, {"shape": [2], "dtype": "bool"}]
    lo, hi = fill_inputs(ports, "min"), fill_inputs(ports, "max")
    assert lo[0].tolist() == [-128] * 3 and hi[0].tolist() == [127] * 3
    assert hi[1][0] == np.finfo(np.float32).max and lo[2].tolist() == [False, False] and hi[2].tolist() == [True] * 2
    a, b = fill_inputs(ports, "random:5"), fill_inputs(ports, "random:5")
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    for bad in ("random", "random:x", "huge", "zero:1"):
        with pytest.raises(UtvmError, match="--input-fill"):
            fill_inputs(ports, bad)


def test_sanitizer_report_fails_the_run(tmp_path: Path) -> None:
    """Signed overflow planted in the generated entry point: reported, one line, exit 2."""
    need("gcc")
    gen = tmp_path / "gen"
    compile_model(MODELS / "digits_int8.tflite", gen, CompileOptions(name="d"))
    src = gen / "src" / "tvmgen_d.c"
    text = src.read_text()
    text = text.replace("#include", "#include <limits.h>\nstatic volatile int utvm_test_big = INT_MAX;\n#include", 1)
    marker = "int32_t tvmgen_d_run("
    head, tail = text.split(marker, 1)
    body_start = tail.index("{") + 1
    tail = tail[:body_start] + "\n  utvm_test_big = utvm_test_big + 1;" + tail[body_start:]
    src.write_text(head + marker + tail)
    inputs = fill_inputs([{"shape": [1, 8, 8, 1], "dtype": "int8"}], "zero")
    run_generated(gen, inputs)   # unnoticed without the sanitizers
    with pytest.raises(UtvmError, match="runtime error: signed integer overflow") as e:
        run_sanitized(gen, inputs)
    assert "\n" not in str(e.value)


def test_command_line(tmp_path: Path) -> None:
    need("gcc")
    p = subprocess.run([sys.executable, "-m", "utvm_build", "run", MODELS / "digits_int8.tflite", "--sanitize",
                        "--input-fill", "max", "--output-dir", tmp_path], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert np.load(tmp_path / "output_0.npy").shape == (1, 10)
    p = subprocess.run([sys.executable, "-m", "utvm_build", "run", MODELS / "digits_int8.tflite",
                        "--input-fill", "maximum"], capture_output=True, text=True, timeout=300)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "--input-fill" in p.stderr
