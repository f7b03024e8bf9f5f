import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

SHARED_MODELS = Path(__file__).resolve().parents[1].parent / "shared" / "models"


def pytest_terminal_summary(terminalreporter) -> None:  # noqa: ANN001
    from harness import TALLY

    if not TALLY:
        return
    terminalreporter.section("conformance against the TFLite reference kernels")
    for key, (n, exact) in sorted(TALLY.items()):
        terminalreporter.write_line(f"{key:<40} {n:>5} cases, {exact:>5} bit-exact")
    total = [sum(v[0] for v in TALLY.values()), sum(v[1] for v in TALLY.values())]
    terminalreporter.write_line(f"{'total':<40} {total[0]:>5} cases, {total[1]:>5} bit-exact")
