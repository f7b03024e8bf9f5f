"""User mistakes and hostile models: one clear message, exit code 2, nothing left behind."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from tflite_writer import ModelBuilder

from utvm_build.compiler import compile_bytes
from utvm_build.errors import UtvmError


def fc_model(name_in: str = "x", name_out: str = "y") -> bytes:
    mb = ModelBuilder()
    x = mb.tensor([1, 4], "int8", scale=0.1, zero_point=3, name=name_in)
    w = mb.tensor([2, 4], "int8", data=np.arange(8, dtype=np.int8).reshape(2, 4), scale=0.05, zero_point=0)
    y = mb.tensor([1, 2], "int8", scale=0.2, zero_point=-1, name=name_out)
    mb.operator("FULLY_CONNECTED", [x, w, -1], [y])
    return mb.build([x], [y])


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "utvm_build", *args], capture_output=True, text=True, cwd=cwd)


def assert_user_error(proc: subprocess.CompletedProcess, *needles: str) -> None:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.count("\n") == 1, f"expected one line: {proc.stderr!r}"
    for n in needles:
        assert n in proc.stderr, proc.stderr


def check_nothing_written(tmp_path: Path, out: Path) -> None:
    assert not out.exists()
    assert not [p for p in out.parent.iterdir() if p.name.startswith(f".{out.name}")]


@pytest.mark.parametrize("content,needle", [
    (b"", "not a TensorFlow Lite model"),
    (b"hello, I am a text file\n" * 10, "not a TensorFlow Lite model"),
    (b"\x89PNG\r\n\x1a\n" + bytes(100), "not a TensorFlow Lite model"),
])
def test_not_a_model(tmp_path: Path, content: bytes, needle: str) -> None:
    model = tmp_path / "bad.tflite"
    model.write_bytes(content)
    out = tmp_path / "out"
    assert_user_error(cli("compile", str(model), "-o", str(out)), needle)
    check_nothing_written(tmp_path, out)


def test_truncated_model(tmp_path: Path) -> None:
    data = fc_model()
    for cut in (12, len(data) // 3, len(data) // 2, len(data) - 7):
        model = tmp_path / "cut.tflite"
        model.write_bytes(data[:cut])
        out = tmp_path / "out"
        assert_user_error(cli("compile", str(model), "-o", str(out)), "model")
        check_nothing_written(tmp_path, out)


def test_missing_file_and_directory(tmp_path: Path) -> None:
    assert_user_error(cli("compile", str(tmp_path / "nope.tflite"), "-o", str(tmp_path / "o")), "not found")
    assert_user_error(cli("compile", str(tmp_path), "-o", str(tmp_path / "o")), "directory")


def test_unsupported_operator_names_it(tmp_path: Path) -> None:
    mb = ModelBuilder()
    x = mb.tensor([1, 4], "float32")
    y = mb.tensor([1, 4], "float32")
    mb.operator("HASHTABLE_LOOKUP", [x], [y])   # not an operator TFLM runs
    model = tmp_path / "hashtable.tflite"
    model.write_bytes(mb.build([x], [y]))
    out = tmp_path / "out"
    assert_user_error(cli("compile", str(model), "-o", str(out)), "operator #0 HASHTABLE_LOOKUP: not supported",
                      "utvm-build info --operators")
    check_nothing_written(tmp_path, out)


def test_unsupported_dtype_names_tensor(tmp_path: Path) -> None:
    mb = ModelBuilder()
    x = mb.tensor([1, 4], "uint8", scale=0.1, zero_point=3, name="in_u8")
    w = mb.tensor([2, 4], "uint8", data=np.ones((2, 4), np.uint8), scale=0.1, zero_point=0)
    y = mb.tensor([1, 2], "uint8", scale=0.1, zero_point=0)
    mb.operator("FULLY_CONNECTED", [x, w, -1], [y])
    model = tmp_path / "u8.tflite"
    model.write_bytes(mb.build([x], [y]))
    assert_user_error(cli("compile", str(model), "-o", str(tmp_path / "o")),
                      "operator #0 FULLY_CONNECTED", "in_u8", "uint8", "supported")


def test_dynamic_shape_rejected(tmp_path: Path) -> None:
    mb = ModelBuilder()
    x = mb.tensor([1, 4], "int8", scale=0.1, zero_point=0, shape_signature=[1, -1])
    w = mb.tensor([2, 4], "int8", data=np.ones((2, 4), np.int8), scale=0.1, zero_point=0)
    y = mb.tensor([1, 2], "int8", scale=0.1, zero_point=0)
    mb.operator("FULLY_CONNECTED", [x, w, -1], [y])
    model = tmp_path / "dyn.tflite"
    model.write_bytes(mb.build([x], [y]))
    assert_user_error(cli("compile", str(model), "-o", str(tmp_path / "o")), "dynamic shape")


def test_dynamic_batch_runs_as_batch_one() -> None:
    mb = ModelBuilder()
    x = mb.tensor([1, 4], "int8", scale=0.1, zero_point=0, shape_signature=[-1, 4])
    w = mb.tensor([2, 4], "int8", data=np.ones((2, 4), np.int8), scale=0.1, zero_point=0)
    y = mb.tensor([1, 2], "int8", scale=0.1, zero_point=0, shape_signature=[-1, 2])
    mb.operator("FULLY_CONNECTED", [x, w, -1], [y])
    assert compile_bytes(mb.build([x], [y]), "m").metadata["inputs"][0]["shape"] == [1, 4]


def test_dynamic_signature_inside_the_graph_uses_the_stored_shape() -> None:
    """As TFLM: only model inputs must be static (but for the batch); an intermediate tensor's
    shape_signature (e.g. [-1, 32] of a Keras Tensordot reshape) is ignored and its stored shape,
    checked by the operators, is compiled."""
    mb = ModelBuilder()
    x = mb.tensor([1, 4], "int8", scale=0.1, zero_point=0, shape_signature=[-1, 4])
    w = mb.tensor([2, 4], "int8", data=np.ones((2, 4), np.int8), scale=0.1, zero_point=0)
    h = mb.tensor([1, 2], "int8", scale=0.1, zero_point=0, shape_signature=[-1, -1])
    y = mb.tensor([1, 2], "int8", scale=0.1, zero_point=0)
    mb.operator("FULLY_CONNECTED", [x, w, -1], [h])
    mb.operator("RELU", [h], [y])
    assert compile_bytes(mb.build([x], [y]), "m").metadata["outputs"][0]["shape"] == [1, 2]


def test_bad_name_and_options(tmp_path: Path) -> None:
    model = tmp_path / "m.tflite"
    model.write_bytes(fc_model())
    assert_user_error(cli("compile", str(model), "-o", str(tmp_path / "o"), "--name", "../evil"), "C identifier")
    assert_user_error(cli("compile", str(model), "-o", str(tmp_path / "o"), "--workspace-align", "3"),
                      "power of two")
    assert_user_error(cli("compile", str(model), "-o", str(tmp_path / "o"), "--constants-section", 'x"); int'),
                      "section")
    assert_user_error(cli("compile", str(model), "-o", str(tmp_path / "o"), "--interface", "packed", "--workspace",
                          "user"), "workspace static")


DIGITS = Path(__file__).resolve().parent.parent / "examples" / "models" / "digits" / "digits_int8.tflite"


@pytest.mark.parametrize("which", ["fc", "digits"])
def test_random_corruption_never_crashes(which: str) -> None:
    """Flip bytes all over a valid model: every result is a model or a UtvmError, never a crash."""
    data = bytearray(fc_model() if which == "fc" else DIGITS.read_bytes())
    rng = np.random.default_rng(1234)
    outcomes = {"ok": 0, "error": 0}
    for _ in range(400):
        mutated = bytearray(data)
        for _ in range(int(rng.integers(1, 4))):
            pos = int(rng.integers(0, len(mutated)))
            mutated[pos] = int(rng.integers(0, 256))
        try:
            compile_bytes(bytes(mutated), "m")
            outcomes["ok"] += 1
        except UtvmError as e:
            assert str(e)
            outcomes["error"] += 1
    assert outcomes["error"] > 0 and outcomes["ok"] > 0, outcomes


def test_info_lists_the_supported_operators() -> None:
    """What the unsupported-operator error points to: the list, one name a line, no model needed."""
    from utvm_build.ops import supported_operators

    p = cli("info", "--operators")
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == supported_operators() and "CONV_2D" in p.stdout.split()
    assert_user_error(cli("info"), "--operators")
