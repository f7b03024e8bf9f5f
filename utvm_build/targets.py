"""Targets: which kernel files a CPU gets (docs/kernel-guide.md, "Kernels for a target").

A kernel is one header in ``utvm_build/kernels/`` (the portable C99 version, ``generic``). A
target is an ordered list of kernel folders searched before it: ``kernels/<folder>/<name>.h``
overrides ``kernels/<name>.h`` for that target. Everything without an override falls back to the
generic file, so a new target starts working with no kernel of its own. The generated directory
always holds ``src/kernels/<name>.h``: the operator code is the same for every target, only the
copied kernel text differs.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources


@dataclass(frozen=True)
class Target:
    name: str
    #: Kernel folders searched in order before the generic kernels.
    folders: tuple[str, ...]
    #: What the target is, for help texts and docs.
    description: str
    #: The ``-mcpu=`` value that selects it when derived from compiler flags.
    mcpu: str | None


TARGETS: dict[str, Target] = {t.name: t for t in (
    Target("generic", (), "portable C99 kernels (any CPU, the host)", None),
    Target("cortex-m0plus", (), "Armv6-M, no DSP: the portable kernels", "cortex-m0plus"),
    Target("cortex-m3", (), "Armv7-M, no DSP: the portable kernels", "cortex-m3"),
    Target("cortex-m4", ("arm_dsp",), "Armv7E-M with the DSP extension (SMLAD, SXTB16, SSAT)", "cortex-m4"),
    Target("cortex-m7", ("arm_dsp",), "Armv7E-M with the DSP extension", "cortex-m7"),
    Target("cortex-m33", ("arm_dsp",), "Armv8-M Mainline with the DSP extension", "cortex-m33"),
    # Helium (MVE) first, then the DSP kernels for what has no MVE version (kernels/arm_mve/)
    Target("cortex-m55", ("arm_mve", "arm_dsp"), "Armv8.1-M with Helium (MVE) and DSP", "cortex-m55"),
    Target("cortex-m85", ("arm_mve", "arm_dsp"), "Armv8.1-M with Helium (MVE) and DSP", "cortex-m85"),
    Target("cortex-m52", ("arm_mve", "arm_dsp"), "Armv8.1-M with Helium (MVE) and DSP", "cortex-m52"),
)}


def target(name: str) -> Target:
    return TARGETS[name]


def kernel_variant(kernel: str, target_name: str) -> str:
    """The folder that provides ``kernel`` for ``target_name``: one of its folders, or "generic"."""
    root = resources.files("utvm_build.kernels")
    for folder in TARGETS[target_name].folders:
        if root.joinpath(folder, f"{kernel}.h").is_file():
            return folder
    return "generic"


def kernel_text(kernel: str, target_name: str = "generic") -> str:
    root = resources.files("utvm_build.kernels")
    variant = kernel_variant(kernel, target_name)
    path = root.joinpath(f"{kernel}.h") if variant == "generic" else root.joinpath(variant, f"{kernel}.h")
    return path.read_text()
