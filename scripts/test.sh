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
fi
echo "== pytest"
python -m pytest -q tests
