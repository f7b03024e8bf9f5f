"""Where the files shipped with the package live (for the build integrations)."""

from __future__ import annotations

from pathlib import Path

_PKG = Path(__file__).resolve().parent


def cmake_dir() -> Path:
    """The CMake config package (``utvm_buildConfig.cmake``)."""
    return _PKG / "cmake"


def crt_dir() -> Path:
    """The C runtime sources: ``utvm_build/crt`` in a wheel, ``<repo>/crt`` in a source checkout
    (editable install). Raises FileNotFoundError if neither holds them."""
    for d in (_PKG / "crt", _PKG.parent / "crt"):
        if (d / "include" / "tvm" / "runtime" / "c_runtime_api.h").is_file():
            return d
    raise FileNotFoundError(f"the C runtime sources are missing (looked in {_PKG / 'crt'} and {_PKG.parent / 'crt'})")
