"""Seeds of the sequence operators: UNIDIRECTIONAL_SEQUENCE_LSTM (float32, int8 with the
quantization-only intermediate tensors, int8 with unquantized gate intermediates, 16x8), small models
from the LSTM tests' generators."""

from __future__ import annotations

from collections.abc import Iterator

from .seeds import _writer


def seeds() -> Iterator[tuple[str, bytes]]:
    _writer()   # puts tests/ on the path
    from test_ops_lstm import lstm_model

    full = {"cifg": False, "peephole": True, "projection": True, "ln": True, "time_major": False, "clip": True,
            "proj_bias": True}
    for dtype in ("float32", "int8"):
        yield f"lstm_{dtype}", lstm_model(dtype, 1, 5, geometry=(1, 3, 4, 4, 3))[0]
        yield f"lstm_{dtype}_full", lstm_model(dtype, 2, 6, variants=full, geometry=(2, 2, 3, 4, 3))[0]
    from lstm16_models import lstm16_model

    yield "lstm_int16", lstm16_model(1, 5, geometry=(2, 3, 4, 4))[0]   # 16x8, time-major, cell clipping
    # int8 with unquantized gate intermediates (the converter's form): TFLite Micro's arithmetic
    yield "lstm_int8_micro", lstm16_model(1, 5, geometry=(2, 3, 4, 4), act="int8")[0]
