"""Seeds of TFLM's signal library custom operators (FlexBuffers options): one small model per
operator from the signal tests' generators, plus TFLM's int8 audio_preprocessor front end."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from .seeds import _writer

_DATA = Path(__file__).resolve().parent.parent / "third_party" / "tflite-micro"


def seeds() -> Iterator[tuple[str, bytes]]:
    _writer()   # puts tests/ on the path
    import test_ops_signal as t

    for name, make in sorted(t.SWEEPS.items()):
        if name != "cast_u32":
            yield f"signal_{name}", make(1).model
    yield "signal_energy", t.energy_case(1)[0].model
    for name, make in sorted(t.STATEFUL.items()):
        yield f"signal_{name}", make(1)[0]
    yield "signal_audio_preprocessor_int8", (_DATA / "audio_preprocessor_int8.tflite").read_bytes()
