"""`utvm-build info` (text and --json): C names, per-operator kernels and figures, the memory plan,
exit status 2 when an operator is unsupported; one operator numbering everywhere (issue 17)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from tflite_writer import ModelBuilder

from utvm_build import CompileOptions, compile_model

ROOT = Path(__file__).resolve().parents[1]
DIGITS = ROOT / "examples" / "models" / "digits" / "digits_int8.tflite"


def cli(*args: object) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "utvm_build", *map(str, args)], capture_output=True, text=True,
                          timeout=300)


def test_json_agrees_with_the_generated_code(tmp_path: Path) -> None:
    p = cli("info", DIGITS, "--json", "--name", "kws")
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)
    gen = tmp_path / "gen"
    compile_model(DIGITS, gen, CompileOptions(name="kws"))
    meta = json.loads((gen / "metadata.json").read_text())
    assert r["supported"] and r["totals"]["flash_constants_bytes"] == meta["constants_bytes"]
    assert r["memory_plan"]["workspace_bytes"] == meta["workspace_bytes"]
    assert r["totals"]["macs"] == meta["macs"] == sum(op.get("macs", 0) for op in r["operators"])
    # Buffers never overlap while both are alive, and all fit in the workspace.
    bufs = r["memory_plan"]["buffers"]
    for a in bufs:
        assert a["offset"] + a["bytes"] <= r["memory_plan"]["workspace_bytes"]
        for b in bufs:
            if a is not b and not (a["last_step"] < b["first_step"] or b["last_step"] < a["first_step"]):
                assert a["offset"] + a["bytes"] <= b["offset"] or b["offset"] + b["bytes"] <= a["offset"]
    # One numbering: info's operator k is the function tvmgen_kws_op<k>_... and metadata's index k.
    ops_c = (gen / "src" / "tvmgen_kws_ops.c").read_text()
    for op in r["operators"]:
        if op.get("emitted"):
            assert op["function"] == f"tvmgen_kws_op{op['index']}_{op['op'].lower()}"
            assert f"void {op['function']}(" in ops_c
            assert op["kernels"] and all(f'#include "kernels/{k["kernel"]}.h"' in ops_c for k in op["kernels"])
    assert {op["index"] for op in r["operators"] if op.get("emitted")} == {o["index"] for o in meta["operators"]}
    header = (gen / "include" / "tvmgen_kws.h").read_text()
    for port in r["inputs"] + r["outputs"]:
        assert f"#define {port['size_macro']} {port['bytes']}" in header
        assert f"void* {port['c_member']};" in header


def test_text_shows_c_names_and_kernels() -> None:
    p = cli("info", DIGITS)
    assert p.returncode == 0
    assert "C: member .serving_default_image_0, TVMGEN_DIGITS_INT8_INPUT_0_SIZE" in p.stdout
    assert re.search(r"#0\s+CONV_2D .* -> conv2d_s8, 4608 MACs", p.stdout)
    assert len(re.findall(r"constants", p.stdout)) == 1   # one constants figure


def test_unsupported_operator_exits_2(tmp_path: Path) -> None:
    mb = ModelBuilder()
    x = mb.tensor([1, 4], "float32", name="x")
    y = mb.tensor([1, 4], "float32", name="y")
    mb.operator("RELU", [x], [y])
    z = mb.tensor([1, 4], "float32", name="z")
    mb.operator("HASHTABLE_LOOKUP", [y], [z])   # not in TFLite Micro: never supported
    path = tmp_path / "m.tflite"
    path.write_bytes(mb.build(inputs=[x], outputs=[z]))
    p = cli("info", path)
    assert p.returncode == 2 and "NOT SUPPORTED" in p.stdout and len(p.stderr.strip().splitlines()) == 1
    p = cli("info", path, "--json")
    r = json.loads(p.stdout)
    assert p.returncode == 2 and not r["supported"] and r["operators"][1]["error"]


def test_kernel_state_operators_as_compiled() -> None:
    """Operators whose kernels keep state (the signal library's spectral subtraction) are prepared with
    their state input, as the compiler does: the audio front end is reported supported."""
    p = cli("info", ROOT / "third_party" / "tflite-micro" / "audio_preprocessor_int8.tflite", "--json")
    assert p.returncode == 0, p.stdout + p.stderr
    r = json.loads(p.stdout)
    assert r["supported"] and all(op["supported"] for op in r["operators"]), r["error"]
