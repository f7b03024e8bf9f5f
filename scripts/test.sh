#!/usr/bin/env bash
# The test command: set up what is missing, then run every test suite (Python, C runtime, lint).
# A green run prints the section headers, one line per C test binary, the MISRA totals and pytest's
# progress and summary (about 25 lines besides the progress dots); anything else is a finding.
# Expected duration: about 20 minutes on a 2-core machine (pytest-xdist, 2 workers; see README).
# UTVM_TEST_JOBS=N sets the number of pytest workers (default: auto, the number of CPUs; 0: none).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh "$@"
export PATH="$PWD/.venv/bin:$PATH"

echo "== ruff"
ruff check -q .
if [[ -f crt/Makefile ]]; then
  echo "== C runtime unit tests (gcc and clang, ASan/UBSan)"
  make -s -C crt clean >/dev/null
  make -s -C crt test
  make -s -C crt clean >/dev/null
  make -s -C crt test CC=clang
  echo "== C runtime unit tests on Cortex-M4 (QEMU mps2-an386)"
  make -s -C crt test-qemu
  echo "== MISRA C:2012 (cppcheck): the runtime, the packed template and generated models must stay within crt/misra_baseline.txt"
  make -s -C crt misra MISRA_FLAGS=--brief
  make -s -C crt misra-generated MISRA_FLAGS=--brief
  make -s -C crt clean >/dev/null
fi
echo "== pytest"
# --dist loadfile: a file's tests stay in one worker, so module-scoped builds are made once.
python -m pytest -q -n "${UTVM_TEST_JOBS:-auto}" --dist loadfile tests
