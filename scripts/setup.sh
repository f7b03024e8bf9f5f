#!/usr/bin/env bash
# Set up a fresh machine for utvm-build: system packages (when run as root or with sudo) and a
# Python virtual environment in .venv with the package (editable) and its test dependencies.
# Usage: scripts/setup.sh [--no-apt]
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(gcc clang make cmake ninja-build cppcheck gcc-arm-none-eabi libnewlib-arm-none-eabi
              qemu-system-arm valgrind python3-venv chromium git
              gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf qemu-system-misc)

need_apt=0
for tool in cc clang make cmake ninja cppcheck arm-none-eabi-gcc qemu-system-arm valgrind chromium git \
            riscv64-unknown-elf-gcc qemu-system-riscv32; do
  command -v "$tool" >/dev/null 2>&1 || need_apt=1
done
if [[ "${1:-}" != "--no-apt" && $need_apt == 1 ]]; then
  SUDO=""
  [[ $(id -u) == 0 ]] || SUDO="sudo"
  echo "== installing system packages: ${APT_PACKAGES[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${APT_PACKAGES[@]}" >/dev/null
fi

PY=${PYTHON:-python3}
if [[ ! -x .venv/bin/python ]]; then
  echo "== creating .venv"
  "$PY" -m venv .venv
fi
# Quiet: pip's and setuptools' messages (the editable-install banner) go to a log, shown on failure.
# Skipped when pyproject.toml has not changed since the last successful install.
stamp=.venv/.utvm-build-installed
want=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [[ "$(cat "$stamp" 2>/dev/null)" != "$want" ]]; then
  echo "== installing utvm-build (editable) with test dependencies"
  .venv/bin/python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
  .venv/bin/python -m pip install -q -e ".[test,dev]" >.venv/pip-install.log 2>&1 || { cat .venv/pip-install.log; exit 1; }
  echo "$want" >"$stamp"
fi
