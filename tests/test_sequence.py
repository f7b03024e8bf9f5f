"""`utvm-build run --sequence` and run_on_host(sequence=True) (issue 15, part 5): the leading axis
of every input is time, one model instance runs over it with its state carried, and every output
gets the same leading axis; byte-identical to TFLite's interpreter invoked step by step."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from system_tools import need
from test_ops_svdf import _multi_run_script, svdf_model

from utvm_build.errors import UtvmError
from utvm_build.host import run_on_host

STEPS = 12


def reference(tmp_path: Path, model: bytes, feeds: np.ndarray) -> np.ndarray:
    (tmp_path / "m.tflite").write_bytes(model)
    np.save(tmp_path / "feeds.npy", feeds)
    subprocess.run([sys.executable, "-c", _multi_run_script(str(tmp_path / "m.tflite"), str(tmp_path / "feeds.npy"),
                                                             STEPS)], check=True)
    return np.load(str(tmp_path / "feeds.npy") + ".out.npy")


def test_int8_sequence_matches_the_reference(tmp_path: Path) -> None:
    need("gcc")
    model, _, label = svdf_model("int8", 2, 99, steps=1)
    feeds = np.random.default_rng(5).integers(-128, 128, (STEPS, 1, 32)).astype(np.int8)
    ref = reference(tmp_path, model, feeds)
    path = tmp_path / "m.tflite"
    (ours,) = run_on_host(path, [feeds], sequence=True)
    assert ours.shape[0] == STEPS
    np.testing.assert_array_equal(ours, ref.reshape(ours.shape), err_msg=label)
    assert not np.array_equal(ours[0], ours[-1])   # the state matters
    # The sanitized program runs the same sequence to the same bytes.
    (sanitized,) = run_on_host(path, [feeds], sequence=True, sanitize=True)
    np.testing.assert_array_equal(sanitized, ours)
    # A one-step run equals the sequence's first step: every run_on_host starts from the initial state.
    (first,) = run_on_host(path, [feeds[0]])
    np.testing.assert_array_equal(first, ours[0])
    # The command line writes the outputs with the leading axis.
    p = subprocess.run([sys.executable, "-m", "utvm_build", "run", path, "--sequence", "--input",
                        tmp_path / "feeds.npy", "--output-dir", tmp_path / "out"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "out" / "output_0.npy"), ours)


def test_sequence_errors(tmp_path: Path) -> None:
    model, _, _ = svdf_model("int8", 2, 99, steps=1)
    path = tmp_path / "m.tflite"
    path.write_bytes(model)
    with pytest.raises(UtvmError, match="leading"):
        run_on_host(path, [np.zeros((0, 1, 32), np.int8)], sequence=True)
    p = subprocess.run([sys.executable, "-m", "utvm_build", "run", path, "--steps", "3"], capture_output=True,
                       text=True)
    assert p.returncode == 2 and "--steps" in p.stderr and p.stderr.count("\n") == 1
    (filled,) = run_on_host(path, None, sequence=True, steps=4, input_fill="random:1")
    assert filled.shape[0] == 4
