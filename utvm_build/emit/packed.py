"""The packed entry point (TVMBackendPackedCFunc) and the system library module of a model."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import UtvmError
from ..options import CompileOptions

if TYPE_CHECKING:
    from .model import Port


def render_packed(prefix: str, banner: str, inputs: list[Port], outputs: list[Port],
                  opts: CompileOptions) -> str:
    raise UtvmError("the 'packed' interface is not available yet")
