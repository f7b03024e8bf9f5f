"""Bounded fuzzing in CI (fixed seeds): 0 unexpected exceptions, 0 multi-line errors, and for a
sample of accepted mutants C that builds with -Werror and runs clean under ASan/UBSan on extreme
inputs. Long runs: docs/fuzzing.md. Minimized findings stay here as regression inputs."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # the fuzz/ package at the top level

from fuzz.cbuild import build_and_run, compiler
from fuzz.check import check_compile, check_reader
from fuzz.driver import run
from fuzz.seeds import generated_seeds

ROOT = Path(__file__).resolve().parent.parent
REGRESSIONS = sorted((Path(__file__).parent / "data" / "fuzz_regressions").glob("*.tflite"))
#: CI budget; FUZZ_ITERATIONS raises it for a longer local run through pytest.
ITERATIONS = int(os.environ.get("FUZZ_ITERATIONS", "2500"))


@pytest.fixture(scope="module")
def seeds() -> list[tuple[str, bytes]]:
    return list(generated_seeds())


def _report(stats) -> str:  # noqa: ANN001 - driver.Stats
    return "\n".join(f"{sig} (x{stats.findings[sig]}):\n{detail[:2000]}" for sig, detail in stats.examples.items())


def test_seeds_compile_and_run_clean(seeds: list[tuple[str, bytes]]) -> None:
    """Every seed is accepted (they cover every operator and dtype); a few run under the sanitizers."""
    for name, data in seeds:
        outcome = check_compile(data)
        assert outcome.status == "accepted", f"{name}: {outcome.detail}"
    if compiler() is None:
        pytest.skip("no C compiler")
    for name, data in seeds[::15]:
        res = build_and_run(check_compile(data).compiled)
        assert res.ok, f"{name}: {res.stage}\n{res.detail}"


def test_fuzz_compile(seeds: list[tuple[str, bytes]]) -> None:
    stats = run(seeds, ITERATIONS, seed=20261125, target="compile", c_every=20, c_budget=12)
    print(stats.as_dict())
    assert stats.inputs == ITERATIONS
    assert stats.bugs == 0, _report(stats)
    assert stats.accepted > ITERATIONS // 20 and stats.rejected > ITERATIONS // 2, stats.as_dict()
    if compiler() is not None:
        assert stats.c_built >= 5, stats.as_dict()


def test_fuzz_reader(seeds: list[tuple[str, bytes]]) -> None:
    stats = run(seeds, ITERATIONS, seed=7, target="reader")
    assert stats.bugs == 0, _report(stats)


@pytest.mark.parametrize("path", REGRESSIONS, ids=[p.stem for p in REGRESSIONS])
def test_fuzz_regression(path: Path) -> None:
    """A minimized input that once broke the compiler or its C: now one error line, or clean C."""
    data = path.read_bytes()
    assert check_reader(data).status != "bug"
    outcome = check_compile(data)
    assert outcome.status != "bug", outcome.detail
    if outcome.status == "accepted" and compiler() is not None:
        res = build_and_run(outcome.compiled)
        assert res.ok, f"{res.stage}\n{res.detail}"


@pytest.mark.skipif(importlib.util.find_spec("atheris") is None, reason="atheris is not installed")
def test_atheris_target_runs(tmp_path: Path, seeds: list[tuple[str, bytes]]) -> None:
    """The coverage-guided target starts, takes the seeds and finds nothing in a short run."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name, data in seeds[::4]:
        (corpus / f"{name}.tflite").write_bytes(data)
    proc = subprocess.run([sys.executable, "-m", "fuzz", "atheris", "--target", "compile", str(corpus),
                           "-runs=600", "-seed=3", "-timeout=30", f"-artifact_prefix={tmp_path}/"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Done 600 runs" in proc.stderr, proc.stderr[-2000:]
