"""Per-layer overrides of the kernel selection rule (``utvm-build tune``, ``compile --tuning``).

A handler's ``prepare`` picks a kernel by fixed rules: the first applicable path wins, and a
target-specific path (the DSP q15 CONV_2D, the tabulated ADD, later Helium kernels) is applicable
when the target's kernel folders define its function. Every such choice goes through
:func:`offers`, so the rule is overridable per layer without changing handler signatures: while a
layer is prepared, a set of *excluded* kernel functions may be active, and ``offers`` says no for
them; the handler then takes its next path (for the q15 CONV_2D: the target's ``utvm_conv2d_s8``).

A variant is therefore named by what it excludes: ``"default"`` (the fixed rules) or
``"without:FN[+FN...]"``. New kernel families plug in by gating their path with ``offers(FN,
target)``: ``tune`` then finds and measures the alternative with no change here.

Same-named overrides (``kernels/arm_dsp/pooling_max_s8.h`` replacing ``kernels/pooling_max_s8.h``)
are not per-layer choices: the generated directory holds one copy of each header (docs/kernel-guide.md).
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator

DEFAULT = "default"
_PREFIX = "without:"

_excluded: contextvars.ContextVar[frozenset[str]] = contextvars.ContextVar("utvm_excluded", default=frozenset())
_offered: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar("utvm_offered", default=None)
_optimize: contextvars.ContextVar[str] = contextvars.ContextVar("utvm_optimize", default="balanced")

#: ``--optimize``: flash against speed in the kernels' data (ops/conv.py: int16 pre-widened conv weights).
OPTIMIZE_MODES = ("speed", "balanced", "size")


_frugal: contextvars.ContextVar[bool] = contextvars.ContextVar("utvm_frugal", default=False)


@contextlib.contextmanager
def _setting(var: contextvars.ContextVar, value: object) -> Iterator[None]:
    """``var`` is ``value`` inside the block."""
    token = var.set(value)
    try:
        yield
    finally:
        var.reset(token)


def scratch_frugal() -> bool:
    """Is the model being prepared under ``--memory balanced|min`` or ``--ram-limit`` (kernels then
    take their smaller scratch forms, e.g. ops/conv.py's depthwise bands)?"""
    return _frugal.get()


def frugal_scratch(on: bool) -> contextlib.AbstractContextManager[None]:
    """Prepare operators with the smaller scratch forms when ``on``."""
    return _setting(_frugal, on)


def optimize_mode() -> str:
    """The ``--optimize`` mode of the model being prepared ("balanced" outside :func:`optimizing`)."""
    return _optimize.get()


def optimizing(mode: str) -> contextlib.AbstractContextManager[None]:
    """Prepare operators under ``--optimize mode``."""
    return _setting(_optimize, mode)


def has_kernel(fn: str, target: str) -> bool:
    """True if ``target``'s kernel folders define ``fn`` (not only the generic kernels)."""
    from . import kernel_table  # here: kernel_table imports the operator package, which imports us

    try:
        return kernel_table.spec(fn, target).variant != "generic"
    except KeyError:
        return False


def offers(fn: str, target: str) -> bool:
    """May the layer being prepared use the target path whose kernel is ``fn``? True when the
    target has it and the layer's variant does not exclude it (recorded for :func:`recording`)."""
    if not has_kernel(fn, target) or fn in _excluded.get():
        return False
    seen = _offered.get()
    if seen is not None and fn not in seen:
        seen.append(fn)
    return True


def layer_variant(variant: str) -> contextlib.AbstractContextManager[None]:
    """Prepare a layer under ``variant`` (``"default"`` or ``"without:..."``)."""
    return _setting(_excluded, excluded(variant))


@contextlib.contextmanager
def recording() -> Iterator[list[str]]:
    """The target paths a layer's prepare took (the kernels :func:`offers` said yes to), in order."""
    seen: list[str] = []
    token = _offered.set(seen)
    try:
        yield seen
    finally:
        _offered.reset(token)


def excluded(variant: str) -> frozenset[str]:
    if variant == DEFAULT:
        return frozenset()
    if not variant.startswith(_PREFIX) or not variant[len(_PREFIX):]:
        raise ValueError(f"not a kernel variant: {variant!r} (default or without:FUNCTION[+FUNCTION...])")
    names = variant[len(_PREFIX):].split("+")
    if any(not n.startswith("utvm_") or not n.replace("_", "").isalnum() for n in names):
        raise ValueError(f"not a kernel variant: {variant!r}")
    return frozenset(names)


def variant_name(excluded_functions: frozenset[str] | set[str]) -> str:
    """The canonical name of a variant (functions sorted)."""
    return DEFAULT if not excluded_functions else _PREFIX + "+".join(sorted(excluded_functions))
