import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

SHARED_MODELS = Path(__file__).resolve().parents[1].parent / "shared" / "models"


_SHARED_TESTS: set[str] = set()


def pytest_collection_modifyitems(items) -> None:  # noqa: ANN001
    """Tests over the shared reference models: those whose skip condition names ../shared."""
    for item in items:
        for mark in item.iter_markers("skipif"):
            if "shared" in str(mark.kwargs.get("reason", "")):
                _SHARED_TESTS.add(item.nodeid)


def _shared_summary(terminalreporter) -> None:  # noqa: ANN001
    ran = skipped = 0
    for key in ("passed", "failed", "error", "skipped"):
        for report in terminalreporter.stats.get(key, []):
            if getattr(report, "nodeid", None) in _SHARED_TESTS and report.when in ("call", "setup"):
                if key == "skipped":
                    skipped += 1
                elif report.when == "call" or key == "error":
                    ran += 1
    if ran or skipped:
        where = "present" if SHARED_MODELS.is_dir() else "absent"
        terminalreporter.write_line(f"shared reference models (../shared/models {where}): {ran} tests ran, "
                                    f"{skipped} skipped")


def pytest_terminal_summary(terminalreporter) -> None:  # noqa: ANN001
    _shared_summary(terminalreporter)
    from harness import TALLY

    if not TALLY:
        return
    terminalreporter.section("conformance against the TFLite reference kernels")
    for key, (n, exact) in sorted(TALLY.items()):
        terminalreporter.write_line(f"{key:<40} {n:>5} cases, {exact:>5} bit-exact")
    total = [sum(v[0] for v in TALLY.values()), sum(v[1] for v in TALLY.values())]
    terminalreporter.write_line(f"{'total':<40} {total[0]:>5} cases, {total[1]:>5} bit-exact")
