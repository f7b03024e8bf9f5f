"""Where the files shipped with the package live (for the build integrations)."""

from __future__ import annotations

from pathlib import Path

_PKG = Path(__file__).resolve().parent


def cmake_dir() -> Path:
    """The CMake config package (``utvm_buildConfig.cmake``): ``utvm_build/cmake`` in a wheel,
    ``<repo>/cmake`` in a source checkout (editable install)."""
    for d in (_PKG / "cmake", _PKG.parent / "cmake"):
        if (d / "utvm_buildConfig.cmake").is_file():
            return d
    return _PKG / "cmake"


def crt_dir() -> Path:
    """The C runtime sources: ``utvm_build/crt`` in a wheel, ``<repo>/crt`` in a source checkout
    (editable install). Raises FileNotFoundError if neither holds them."""
    for d in (_PKG / "crt", _PKG.parent / "crt"):
        if (d / "include" / "tvm" / "runtime" / "c_runtime_api.h").is_file():
            return d
    raise FileNotFoundError(f"the C runtime sources are missing (looked in {_PKG / 'crt'} and {_PKG.parent / 'crt'})")
