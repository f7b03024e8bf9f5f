"""The one exception type the compiler raises for problems a user can act on."""

from __future__ import annotations


class UtvmError(Exception):
    """A user-facing error: a bad model, an unsupported operator, a bad option.

    The command line prints ``str(error)`` and exits with status 2; no traceback.
    """

    def __init__(self, message: str, *, op_index: int | None = None, op_name: str | None = None) -> None:
        self.op_index = op_index
        self.op_name = op_name
        if op_index is not None:
            where = f"operator #{op_index} {op_name or ''}".rstrip()
            message = f"{where}: {message}"
        super().__init__(message)


def one_line(text: str) -> str:
    """``text`` with control and other unprintable characters escaped: model strings (tensor names,
    custom operator codes) are untrusted, and an error naming them must stay one line."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)


class ModelFormatError(UtvmError):
    """The file is not a well-formed TFLite flatbuffer (truncated, corrupted, wrong type)."""


class UnsupportedError(UtvmError):
    """The model is well formed but uses something utvm-build does not support."""
