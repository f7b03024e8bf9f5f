import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

SHARED_MODELS = Path(__file__).resolve().parents[1].parent / "shared" / "models"


# Tests over the shared reference models get this keyword (it travels with the reports, also from
# pytest-xdist workers). A skip counts as a shared-models skip when its reason names ../shared,
# whether it came from a skipif mark or a pytest.skip() in the test body or a fixture.
SHARED_KEYWORD = "utvm_shared_models"


@pytest.hookimpl(trylast=True)
def pytest_configure(config) -> None:  # noqa: ANN001
    """One content-keyed build cache per run (utvm_build/build_cache.py), shared by the xdist
    workers: the same server or host library built by several test files is compiled once."""
    if "UTVM_BUILD_CACHE" not in os.environ:
        root = Path(config._tmp_path_factory.getbasetemp())   # the run's directory (a worker's: its parent)
        if hasattr(config, "workerinput"):
            root = root.parent
        os.environ["UTVM_BUILD_CACHE"] = str(root / "utvm-build-cache")


def pytest_collection_modifyitems(items) -> None:  # noqa: ANN001
    """Tests over the shared reference models: those whose skip condition names ../shared."""
    for item in items:
        for mark in item.iter_markers("skipif"):
            if "shared" in str(mark.kwargs.get("reason", "")):
                item.keywords[SHARED_KEYWORD] = True


def _skip_reason(report) -> str:  # noqa: ANN001
    longrepr = report.longrepr
    return str(longrepr[2]) if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)


def _shared_summary(terminalreporter) -> None:  # noqa: ANN001
    ran = skipped = 0
    for key in ("passed", "failed", "error", "skipped"):
        for report in terminalreporter.stats.get(key, []):
            if getattr(report, "when", None) not in ("call", "setup"):
                continue
            if key == "skipped":
                if SHARED_KEYWORD in report.keywords or "shared" in _skip_reason(report):
                    skipped += 1
            elif SHARED_KEYWORD in report.keywords and (report.when == "call" or key == "error"):
                ran += 1
    if ran or skipped:
        where = "present" if SHARED_MODELS.is_dir() else "absent"
        terminalreporter.write_line(f"shared reference models (../shared/models {where}): {ran} tests ran, "
                                    f"{skipped} skipped")


# pytest-xdist: each worker sends its conformance tally to the controller, which adds them up.
def pytest_sessionfinish(session) -> None:  # noqa: ANN001
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        from harness import TALLY
        from target_harness import TARGET_TALLY

        workeroutput["utvm_tally"] = {k: list(v) for k, v in TALLY.items()}
        workeroutput["utvm_target_tally"] = {k: list(v) for k, v in TARGET_TALLY.items()}


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:  # noqa: ANN001
    from harness import TALLY
    from target_harness import TARGET_TALLY

    for tally, name in ((TALLY, "utvm_tally"), (TARGET_TALLY, "utvm_target_tally")):
        for key, counts in getattr(node, "workeroutput", {}).get(name, {}).items():
            entry = tally.setdefault(key, [0] * len(counts))
            for i, v in enumerate(counts):
                entry[i] += v


def pytest_terminal_summary(terminalreporter) -> None:  # noqa: ANN001
    _shared_summary(terminalreporter)
    from harness import TALLY
    from target_harness import ALL, CORES, TARGET_TALLY, skip_reason

    if TALLY and skip_reason():
        terminalreporter.write_line(skip_reason())
    if TARGET_TALLY:
        runs = ", ".join(f"{CORES[k].target} {n} cases ({exact} bit-exact, {s:.0f} s)"
                         for k, (n, exact, s) in sorted(TARGET_TALLY.items()))
        terminalreporter.write_line(f"conformance on QEMU ({'every case' if ALL else 'seeded sample'}; "
                                    f"UTVM_CONFORMANCE_ALL=1: all): {runs}")
    if not TALLY:
        return
    total = [sum(v[0] for v in TALLY.values()), sum(v[1] for v in TALLY.values())]
    if terminalreporter.verbosity < 0:   # -q (scripts/test.sh): the total only
        terminalreporter.write_line(f"conformance against the TFLite reference kernels: {total[0]} cases in "
                                    f"{len(TALLY)} test files, {total[1]} bit-exact (the rest float within "
                                    "the stated tolerance; per file: without -q)")
        return
    terminalreporter.section("conformance against the TFLite reference kernels")
    for key, (n, exact) in sorted(TALLY.items()):
        terminalreporter.write_line(f"{key:<40} {n:>5} cases, {exact:>5} bit-exact")
    terminalreporter.write_line(f"{'total':<40} {total[0]:>5} cases, {total[1]:>5} bit-exact")
