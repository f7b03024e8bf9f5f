"""The QEMU instruction-counting plugin (benchmarks/qemu_plugin) against firmware of known count.

Builds the plugin with the host compiler and the validation firmware with arm-none-eabi-gcc for
both boards, runs them under qemu-system-arm: exact counts, determinism, marker hits. A few
seconds. Nothing is skipped: a missing tool fails with the package to install.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from system_tools import need

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks.qemu_plugin import (  # noqa: E402
    CountResult,
    InsnCountError,
    build_plugin,
    count_instructions,
    marker_addresses,
    parse_result,
    validate,
)


@pytest.fixture(scope="module")
def build_dir(tmp_path_factory) -> Path:
    need("cc", "arm-none-eabi-gcc", "arm-none-eabi-nm", "qemu-system-arm")
    return tmp_path_factory.mktemp("insn_counter")


def test_validation_both_boards(build_dir: Path) -> None:
    lines: list[str] = []
    failures = validate.run_checks(build_dir, n1=1000, n2=20_000, log=lines.append)
    assert not failures, "\n".join(lines)


def test_markers_and_errors(build_dir: Path) -> None:
    plugin = build_plugin(build_dir)
    elf = validate.build_firmware("cortex-m4", 10, build_dir / "errors")
    start, end = marker_addresses(elf)
    assert start % 2 == 0 and end % 2 == 0 and start != end
    r = count_instructions(elf, "mps2-an386", timeout=30, plugin=plugin)
    assert (r.insns, r.start_hits, r.end_hits, r.pairs, r.valid) == (32, 1, 1, 1, True)
    # Three pairs where one is expected: refused unless pairs says so.
    elf3 = validate.build_firmware("cortex-m4", 10, build_dir / "errors", pairs=3)
    with pytest.raises(InsnCountError, match="expected 1 each"):
        count_instructions(elf3, "mps2-an386", timeout=30, plugin=plugin)
    assert count_instructions(elf3, "mps2-an386", timeout=30, plugin=plugin, pairs=3).insns == 96
    # A firmware exit status other than the expected one is an error.
    with pytest.raises(InsnCountError, match="exited with 0"):
        count_instructions(elf, "mps2-an386", timeout=30, plugin=plugin, exit_code=1)


def test_parse_result() -> None:
    assert parse_result("insn_count 12 start_hits 1 end_hits 1 pairs 1\n", "x") == CountResult(12, 1, 1, "x", 1)
    assert parse_result("insn_count 5 start_hits 2 end_hits 1\n").pairs == 1
    with pytest.raises(InsnCountError):
        parse_result("nothing")
