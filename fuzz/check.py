"""One fuzz input through the reader or the whole compile step, classified.

An input is *accepted* (a model came out), *rejected* (one UtvmError line) or a *bug*: any other
exception, a numpy warning (run with warnings as errors), an error message of more than one line,
or generated C holding raw control characters or a raw model string. Bugs carry a short
signature (exception type and the innermost project frame) so that repeats count once.
"""

from __future__ import annotations

import traceback
import warnings
from dataclasses import dataclass

from utvm_build.compiler import Compiled, compile_bytes
from utvm_build.errors import UtvmError
from utvm_build.frontend.tflite import read_tflite

#: An error names at most a few tensors (names are cut at 1024 characters by the reader).
MAX_ERROR_CHARS = 4000


@dataclass
class Outcome:
    status: str                    # "accepted", "rejected" or "bug"
    detail: str = ""               # the error message or the bug's description
    signature: str = ""            # bugs: what identifies the defect (for deduplication)
    compiled: Compiled | None = None


def _signature(e: BaseException) -> str:
    frames = [f for f in traceback.extract_tb(e.__traceback__) if "utvm_build" in f.filename]
    where = f"{frames[-1].filename.split('utvm_build/')[-1]}:{frames[-1].lineno}" if frames else "?"
    return f"{type(e).__name__} at {where}"


def _run(fn, data: bytes) -> tuple[object, Outcome | None]:  # noqa: ANN001 - a callable over bytes
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            return fn(data), None
    except UtvmError as e:
        msg = str(e)
        if not msg or "\n" in msg or "\r" in msg or len(msg) > MAX_ERROR_CHARS:
            return None, Outcome("bug", f"bad error message: {msg[:300]!r}", f"error message at {_signature(e)}")
        return None, Outcome("rejected", msg)
    except RecursionError as e:
        return None, Outcome("bug", "RecursionError", _signature(e))
    except Exception as e:  # noqa: BLE001 - every other exception is what the fuzzer looks for
        tb = "".join(traceback.format_exception(type(e), e, e.__traceback__)[-6:])
        return None, Outcome("bug", f"{type(e).__name__}: {e}\n{tb}", _signature(e))


def check_reader(data: bytes) -> Outcome:
    _, bad = _run(read_tflite, data)
    return bad or Outcome("accepted")


def check_compile(data: bytes, name: str = "m") -> Outcome:
    compiled, bad = _run(lambda d: compile_bytes(d, name), data)
    if bad is not None:
        return bad
    assert isinstance(compiled, Compiled)
    problem = unsafe_text(compiled)
    if problem:
        return Outcome("bug", problem, "unsafe generated text", compiled)
    return Outcome("accepted", compiled=compiled)


def unsafe_text(compiled: Compiled) -> str:
    """A generated C file with characters no model string may put there ('' when clean)."""
    odd_names = [t.name for t in compiled.graph.tensors if any(not 32 <= ord(c) < 127 for c in t.name)
                 or "*/" in t.name]
    for path, raw in compiled.files.items():
        if not path.endswith((".c", ".h")):
            continue
        text = raw.decode("utf-8", errors="replace")
        bad = [c for c in set(text) if not (32 <= ord(c) < 127 or c == "\n")]
        if bad:
            return f"{path}: raw characters {sorted(bad)!r} in generated C"
        for name in odd_names:
            if len(name) > 2 and name in text:
                return f"{path}: raw tensor name {name!r} in generated C"
    return ""
