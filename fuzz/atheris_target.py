"""Coverage-guided fuzzing with atheris (libFuzzer for Python).

    python -m fuzz seeds fuzz/corpus                      # seed corpus (once)
    python -m fuzz atheris --target compile fuzz/corpus -runs=200000 -timeout=20

Every utvm_build module is instrumented for coverage; the custom mutator is the structure-aware
one of mutate.py (with libFuzzer's own byte mutations mixed in). An input that is a bug
(check.py) raises, so libFuzzer saves it as crash-<sha1> and stops; minimize it with
``-minimize_crash=1`` and keep it as a regression test (tests/data/fuzz_regressions/).
"""

from __future__ import annotations

import random
import sys

import atheris

with atheris.instrument_imports(include=["utvm_build"]):
    import utvm_build.compiler  # noqa: F401 - instrumented before check.py imports it

    from .check import check_compile, check_reader
    from .mutate import mutate


class FuzzFinding(Exception):
    """An input the compiler mishandled (not a one-line UtvmError, or unsafe generated C)."""


def _target(which: str):  # noqa: ANN202 - the libFuzzer entry point
    check = check_compile if which == "compile" else check_reader

    def test_one_input(data: bytes) -> None:
        outcome = check(data)
        if outcome.status == "bug":
            raise FuzzFinding(f"{outcome.signature}: {outcome.detail}")

    return test_one_input


def custom_mutator(data: bytes, max_size: int, seed: int) -> bytes:
    rng = random.Random(seed)
    if rng.random() < 0.25:
        return atheris.Mutate(data, max_size)
    return mutate(data, rng)[:max_size]


def main(which: str, argv: list[str]) -> int:
    atheris.Setup(argv, _target(which), custom_mutator=custom_mutator)
    atheris.Fuzz()
    return 0


if __name__ == "__main__":
    sys.exit(main("compile", sys.argv))
