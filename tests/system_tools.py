"""Tests that need system tools fail (never skip) with the apt-get line that installs them."""

from __future__ import annotations

import shutil

import pytest

#: tool -> Debian package(s)
APT = {
    "cc": "gcc", "gcc": "gcc", "make": "make", "cmake": "cmake", "ninja": "ninja-build",
    "arm-none-eabi-gcc": "gcc-arm-none-eabi libnewlib-arm-none-eabi",
    "arm-none-eabi-nm": "binutils-arm-none-eabi", "qemu-system-arm": "qemu-system-arm",
    "riscv64-unknown-elf-gcc": "gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf",
    "qemu-system-riscv32": "qemu-system-misc",
}


def need(*tools: str) -> None:
    """Fail the test with an install hint when one of ``tools`` is not on PATH."""
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        packages = dict.fromkeys(" ".join(APT.get(t, t) for t in missing).split())
        pytest.fail(f"{', '.join(missing)} not found; install with: apt-get install -y {' '.join(packages)}",
                    pytrace=False)
