"""Kill -9 at every point of a run (issue 12): the generated directory is always the old one or
the new one, never a mix, and the next run leaves nothing else behind.

CI runs a seeded sample of the kill points (60 per mode, plus 20 kills of the real command at
random times); UTVM_TEST_FULL=1 runs every kill point.
"""

from __future__ import annotations

import os
import pickle
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from utvm_build.compiler import compile_bytes
from utvm_build.emit.output import write_output
from utvm_build.options import CompileOptions

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DIGITS = REPO / "examples" / "models" / "digits" / "digits_int8.tflite"
DIGITS_FLOAT = REPO / "examples" / "models" / "digits" / "digits_float.tflite"
FULL = os.environ.get("UTVM_TEST_FULL") == "1"
SAMPLE = 60


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def expected_tree(files: dict[str, bytes], scratch: Path) -> dict[str, bytes]:
    write_output(scratch, files)
    return tree(scratch)


def child(out: Path, pickle_path: Path, kill_at: int, incremental: bool) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(HERE / "output_kill_child.py"), str(out), str(pickle_path),
                           str(kill_at), "1" if incremental else "0"], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("incremental", [False, True], ids=["replace", "incremental"])
def test_kill_at_every_point(tmp_path: Path, incremental: bool) -> None:
    old = compile_bytes(DIGITS.read_bytes(), "a").files
    if incremental:   # the same model with another section: some files change, most do not
        new = compile_bytes(DIGITS.read_bytes(), "a", CompileOptions(constants_section=".rodata.b")).files
    else:             # another model: other kernels, other file names
        new = compile_bytes(DIGITS_FLOAT.read_bytes(), "b").files
    old_tree, new_tree = expected_tree(old, tmp_path / "x" / "old"), expected_tree(new, tmp_path / "x" / "new")
    assert old_tree != new_tree
    pickle_path = tmp_path / "new.pickle"
    pickle_path.write_bytes(pickle.dumps(new))

    work = tmp_path / "w"
    work.mkdir()
    write_output(work / "gen", old, incremental=incremental)
    p = child(work / "gen", pickle_path, 0, incremental)
    assert p.returncode == 0, p.stderr
    total = int(p.stdout)
    assert total > 20 and tree(work / "gen") == new_tree
    points = list(range(1, total + 1))
    if not FULL and len(points) > SAMPLE:
        points = sorted(set([1, total] + random.Random(12).sample(points, SAMPLE - 2)))
    outcomes = {"old": 0, "new": 0}
    for n in points:
        work = tmp_path / f"k{n}"
        work.mkdir()
        gen = work / "gen"
        write_output(gen, old, incremental=incremental)
        p = child(gen, pickle_path, n, incremental)
        assert p.returncode == -signal.SIGKILL, (n, p.stdout, p.stderr)
        now = tree(gen)
        assert now in (old_tree, new_tree), f"kill before operation {n}: a mix of old and new files"
        outcomes["old" if now == old_tree else "new"] += 1
        # The next run finishes the job and removes every leftover of the killed one.
        write_output(gen, new, incremental=incremental)
        assert tree(gen) == new_tree and os.listdir(work) == ["gen"], (n, os.listdir(work))
    assert outcomes["old"] and outcomes["new"], outcomes
    print(f"{len(points)} kill points of {total}: {outcomes}")


def test_kill_the_command_at_random_times(tmp_path: Path) -> None:
    """The real `utvm-build compile` killed after a random delay (over its whole run time)."""
    cmd = [sys.executable, "-m", "utvm_build", "compile"]
    subprocess.run([*cmd, DIGITS, "-o", tmp_path / "x" / "old", "--name", "a"], check=True, capture_output=True)
    t0 = time.monotonic()
    subprocess.run([*cmd, DIGITS_FLOAT, "-o", tmp_path / "x" / "new", "--name", "b"], check=True,
                   capture_output=True)
    span = time.monotonic() - t0
    old_tree, new_tree = tree(tmp_path / "x" / "old"), tree(tmp_path / "x" / "new")
    rng = random.Random(7)
    trials = 100 if FULL else 20
    for k in range(trials):
        work = tmp_path / f"t{k}"
        work.mkdir()
        gen = work / "gen"
        subprocess.run([*cmd, DIGITS, "-o", gen, "--name", "a"], check=True, capture_output=True)
        proc = subprocess.Popen([*cmd, DIGITS_FLOAT, "-o", gen, "--name", "b"], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.3, 1.1) * span)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert tree(gen) in (old_tree, new_tree)
        subprocess.run([*cmd, DIGITS_FLOAT, "-o", gen, "--name", "b"], check=True, capture_output=True)
        assert tree(gen) == new_tree and os.listdir(work) == ["gen"]
