"""`utvm-build run --interface packed` calls the model through the C runtime (TVMFuncGetGlobal,
TVMFuncCall, TVMModGetFunction, TVMFuncCall with DLTensors), not through the typed entry point."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from utvm_build import CompileOptions, packed_call, run_on_host

ROOT = Path(__file__).resolve().parents[1]
DIGITS = ROOT / "examples" / "models" / "digits"
MODEL = DIGITS / "digits_int8.tflite"


def test_run_packed_goes_through_tvmfunccall(monkeypatch):
    calls = []
    real = packed_call.PackedRunner.__call__

    def spy(self, arrays):
        calls.append((self.name, [a.shape for a in arrays]))
        return real(self, arrays)

    monkeypatch.setattr(packed_call.PackedRunner, "__call__", spy)
    x = np.load(DIGITS / "sample_0.npy")
    typed = run_on_host(MODEL, [x])
    assert calls == []
    packed = run_on_host(MODEL, [x], CompileOptions(interface="packed"))
    assert calls == [("tvmgen_digits_int8_run", [x.shape, (1, 10)])]
    assert packed[0].tobytes() == typed[0].tobytes()


def test_packed_call_reports_the_runtime_error(tmp_path):
    import ctypes

    from utvm_build import compile_model
    from utvm_build.host import build_shared_library

    gen = tmp_path / "gen"
    compile_model(MODEL, gen, CompileOptions(interface="packed"))
    lib = ctypes.CDLL(str(build_shared_library(gen, tmp_path / "libd.so")))
    runner = packed_call.PackedRunner(lib, "tvmgen_digits_int8_run")
    try:
        runner([np.zeros((1, 8, 8, 1), np.int8)])   # the output is missing
    except Exception as e:   # noqa: BLE001
        assert "wrong number of arguments: expected 2, got 1" in str(e)
    else:
        raise AssertionError("a call with one tensor must fail")
