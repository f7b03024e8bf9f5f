#!/usr/bin/env bash
# The test command: set up what is missing, then run every test suite (Python, C runtime, lint).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh "$@"
export PATH="$PWD/.venv/bin:$PATH"

echo "== ruff"
ruff check .
if [[ -f crt/Makefile ]]; then
  echo "== C runtime unit tests (gcc and clang, ASan/UBSan)"
  make -s -C crt clean >/dev/null
  make -s -C crt test
  make -s -C crt clean >/dev/null
  make -s -C crt test CC=clang
  echo "== C runtime unit tests on Cortex-M4 (QEMU mps2-an386)"
  make -s -C crt test-qemu
  echo "== MISRA C:2012 (cppcheck): the runtime, the packed template and generated models must stay within crt/misra_baseline.txt"
  make -s -C crt misra
  make -s -C crt misra-generated
  make -s -C crt clean >/dev/null
fi
echo "== pytest"
python -m pytest -q tests
