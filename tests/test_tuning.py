"""Kernels chosen per layer by measurement: tuning records (utvm_build/tuning.py), `compile
--tuning` (per-layer overrides of the selection rule, utvm_build/selection.py) and `utvm-build tune`
(utvm_build/rpc/tune.py). CI: the record round trip, the selection, bit-exact outputs on QEMU with
a record, `tune` on the host and on QEMU M4 with the small digits model."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from system_tools import need

from utvm_build import CompileOptions, compile_model
from utvm_build.errors import UtvmError
from utvm_build.rpc.tune import layer_variants
from utvm_build.tuning import KIND, VERSION, applicable_choices, choices, read_record, write_record

ROOT = Path(__file__).resolve().parents[1]
DIGITS = ROOT / "examples" / "models" / "digits" / "digits_int8.tflite"
Q15 = "utvm_conv2d_s8_q15"
Q15W = "utvm_conv2d_s8_q15w"   # int16 pre-widened weights: digits' convolutions under --optimize balanced


def _cli(*args, timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "utvm_build", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout)


def _record(target: str = "cortex-m4", layers: list | None = None) -> dict:
    return {"kind": KIND, "version": VERSION, "target": target,
            "toolchain": {"compiler": "arm-none-eabi-gcc", "version": "12.2.1", "flags": ["-Os"]},
            "device": "qemu-m4", "metric": "instructions", "layers": layers or []}


def _first_conv_record() -> dict:
    """A record that takes the first CONV_2D of digits off the q15 kernel (the second keeps it)."""
    variants, sigs, keys = layer_variants(DIGITS.read_bytes(), "cortex-m4")
    first = keys[0]
    assert variants[first] == ["default", f"without:{Q15}", f"without:{Q15W}"]
    return _record(layers=[{"signature": sigs[first], "variant": f"without:{Q15}",
                            "measured": {"default": 2, f"without:{Q15}": 1}}])


def _files(d: Path) -> dict[str, bytes]:
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def test_record_round_trip(tmp_path):
    doc = _first_conv_record()
    path = tmp_path / "tuning.json"
    write_record(path, doc)
    assert read_record(path) == doc
    assert json.loads(path.read_text()) == doc
    write_record(path, doc)                     # a tuning record is replaced
    assert choices(read_record(path)) == choices(doc) and len(choices(doc)) == 1
    # another target: ignored with one warning line
    write_record(path, _record(target="cortex-m7", layers=doc["layers"]))
    said = []
    assert applicable_choices(path, "cortex-m4", warn=said.append) is None
    assert len(said) == 1 and "cortex-m7" in said[0] and "\n" not in said[0]


def test_record_refuses_to_overwrite_other_files(tmp_path):
    other = tmp_path / "notes.json"
    other.write_text('{"mine": 1}\n')
    with pytest.raises(UtvmError, match="not a tuning record"):
        write_record(other, _record())
    assert other.read_text() == '{"mine": 1}\n'
    target = tmp_path / "target.json"
    write_record(target, _record())
    link = tmp_path / "link.json"
    link.symlink_to(target)
    with pytest.raises(UtvmError, match="not a regular file"):
        write_record(link, _record(layers=[]))
    assert link.is_symlink()
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


@pytest.mark.parametrize("text,why", [
    ("{", "invalid JSON"), ('{"kind": "x"}', "kind"), (json.dumps({**_record(), "version": 9}), "version"),
    (json.dumps({**_record(), "layers": [{"signature": {}, "variant": "fastest"}]}), "not a kernel variant"),
    (json.dumps({**_record(), "toolchain": "gcc"}), "toolchain"),
])
def test_malformed_record_is_one_line_exit_2(tmp_path, text, why):
    bad = tmp_path / "bad.json"
    bad.write_text(text)
    p = _cli("compile", DIGITS, "-o", tmp_path / "gen", "--target", "cortex-m4", "--tuning", bad)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and why in p.stderr, p.stderr
    assert not (tmp_path / "gen").exists()


def test_compile_with_record_selects_recorded_variants(tmp_path):
    plain = compile_model(DIGITS, tmp_path / "plain", CompileOptions(target="cortex-m4"))
    assert [r["kernels"] for r in plain.metadata["operators"] if r["op"] == "CONV_2D"] == [["conv2d_s8_q15w"]] * 2
    record = tmp_path / "tuning.json"
    write_record(record, _first_conv_record())
    p = _cli("compile", DIGITS, "-o", tmp_path / "tuned", "--target", "cortex-m4", "--tuning", record)
    assert p.returncode == 0 and p.stderr == "", p.stderr
    ops_c = (tmp_path / "tuned" / "src" / "tvmgen_digits_int8_ops.c").read_text()
    body0 = ops_c.split("tvmgen_digits_int8_op0_conv_2d(")[1].split("\n}")[0]
    body2 = ops_c.split("tvmgen_digits_int8_op2_conv_2d(")[1].split("\n}")[0]
    assert "utvm_conv2d_s8(" in body0 and Q15 not in body0
    assert f"{Q15W}(" in body2
    meta = json.loads((tmp_path / "tuned" / "metadata.json").read_text())
    assert meta["options"]["tuning"] == [list(c) for c in choices(_first_conv_record())]
    # a record for another target, or with no layer changed: the C is byte-identical to no record
    plain_files = _files(tmp_path / "plain")
    for doc in (_record(target="cortex-m7", layers=_first_conv_record()["layers"]), _record()):
        write_record(record, doc)
        out = tmp_path / f"other_{doc['target']}"
        p = _cli("compile", DIGITS, "-o", out, "--target", "cortex-m4", "--tuning", record)
        assert p.returncode == 0, p.stderr
        assert p.stderr.count("\n") == (1 if doc["target"] != "cortex-m4" else 0)
        assert _files(out) == plain_files


def test_tuned_build_is_bit_exact_on_qemu(tmp_path):
    need("arm-none-eabi-gcc", "qemu-system-arm")
    record = tmp_path / "tuning.json"
    write_record(record, _first_conv_record())
    outs = {}
    for where, extra in (("host", []), ("qemu", ["--device", "qemu-m4", "--target", "cortex-m4",
                                                 "--tuning", record])):
        p = _cli("run", DIGITS, "--input-fill", "random:5", "--output-dir", tmp_path / where, *extra)
        assert p.returncode == 0, p.stderr
        outs[where] = np.load(tmp_path / where / "output_0.npy")
    np.testing.assert_array_equal(outs["qemu"], outs["host"])


def test_tune_on_host(tmp_path):
    """The generic target has one path per layer: the record is valid and changes nothing."""
    need("cc")
    out = tmp_path / "host.json"
    p = _cli("tune", DIGITS, "--device", "host", "--runs", "2", "-o", out)
    assert p.returncode == 0, p.stderr
    doc = read_record(out)
    assert doc["target"] == "generic" and doc["metric"] == "seconds" and doc["builds"] == 1
    assert doc["layers"] == [] and choices(doc) == ()
    for bad in (tmp_path, tmp_path / "none" / "t.json"):   # refused before anything is measured
        p = _cli("tune", DIGITS, "--device", "host", "-o", bad)
        assert p.returncode == 2 and p.stderr.count("\n") == 1 and "tune:" not in p.stderr, p.stderr
    p = _cli("tune", DIGITS, "--device", "host", "--target", "cortex-m4", "-o", out)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "--target generic" in p.stderr, p.stderr


def test_tune_on_qemu_m4(tmp_path):
    """Four builds (the fixed rules, without the q15 CONV_2D, without its int16-weight form, without the
    FC block kernel); every tunable layer measured in its variants; the choice is the smaller count
    beyond the noise margin; the tuned build runs."""
    need("arm-none-eabi-gcc", "qemu-system-arm", "make")
    out = tmp_path / "m4.json"
    p = _cli("tune", DIGITS, "--device", "qemu-m4", "-o", out)
    assert p.returncode == 0, p.stderr
    doc = read_record(out)
    # the fixed rules, without the q15 CONV_2D, without its int16 weights, without the 4-unit FULLY_CONNECTED
    # block kernel
    assert doc["target"] == "cortex-m4" and doc["metric"] == "cycles" and doc["builds"] in (4, 5)
    assert [r["signature"]["op"] for r in doc["layers"]] == ["CONV_2D", "CONV_2D", "FULLY_CONNECTED",
                                                            "FULLY_CONNECTED"]
    for r in doc["layers"]:
        m = r["measured"]
        fns = [Q15, Q15W] if r["signature"]["op"] == "CONV_2D" else ["utvm_fully_connected_s8_blk4"]
        assert set(m) == {"default", *(f"without:{fn}" for fn in fns)} and all(v > 0 for v in m.values())
        best = min(m, key=m.get)
        assert r["variant"] in (best, "default")
        if r["variant"] != "default":
            assert m[r["variant"]] < m["default"] * 0.99
    assert doc["tunable"]["tuned"] <= doc["tunable"]["default"]
    assert doc["toolchain"]["compiler"] == "arm-none-eabi-gcc" and doc["toolchain"]["version"]
    p = _cli("compile", DIGITS, "-o", tmp_path / "gen", "--target", "cortex-m4", "--tuning", out,
             "--tuning-compiler", "arm-none-eabi-gcc")
    assert p.returncode == 0 and p.stderr == "", p.stderr


def test_tune_metric_choice():
    """Estimated cycles first, then instructions, then time; a metric asked for and not measured is one
    clear error; the noise floor holds for both counted metrics."""
    from utvm_build.rpc.tune import _metric_of, beats

    counted = {"total_cycles": 10, "total_instructions": 8, "total_seconds": 1.0}
    assert _metric_of(counted, None) == "cycles" and _metric_of(counted, "instructions") == "instructions"
    assert _metric_of({"total_seconds": 1.0}, None) == "seconds"
    with pytest.raises(UtvmError, match="--metric cycles needs QEMU"):
        _metric_of({"total_seconds": 1.0}, "cycles")
    for metric in ("cycles", "instructions"):
        assert not beats(1000 - 49, 1000, metric) and beats(1000 - 51, 1000, metric)
        assert not beats(10**6 - 9_000, 10**6, metric) and beats(10**6 - 11_000, 10**6, metric)
    assert not beats(0.96, 1.0, "seconds") and beats(0.94, 1.0, "seconds")


# ---- the build integrations: CMake TUNING, SCons tuning= (code generation only: the DSP kernels
# need an Arm compiler, the choice shows in the generated C) ---------------------------------------

def _uses_plain_conv_first(gen: Path) -> bool:
    ops_c = next((gen / "src").glob("*_ops.c")).read_text()
    body0 = ops_c.split("_op0_conv_2d(")[1].split("\n}")[0]
    return "utvm_conv2d_s8(" in body0 and Q15 not in body0


def _record_for(compiler: str, version: str | None = None) -> dict:
    from utvm_build.tuning import toolchain

    doc = _first_conv_record()
    doc["toolchain"] = toolchain(compiler, [])
    if version is not None:
        doc["toolchain"]["version"] = version
    return doc


def test_cmake_tuning_option(tmp_path):
    import test_cmake as cm

    src = cm.project(tmp_path, "utvm_add_model(net MODEL model.tflite NAME net TARGET cortex-m4 TUNING tuning.json)\n",
                     model=DIGITS)
    write_record(src / "tuning.json", _record(target="cortex-m7"))   # another target: warned, ignored
    b = tmp_path / "b"
    out = cm.configure(src, b)
    assert "tuning record for target cortex-m7" in out.stderr
    gen = b / "utvm" / "net"
    assert not _uses_plain_conv_first(gen)
    cache = (b / "CMakeCache.txt").read_text()
    compiler = next(ln.split("=", 1)[1] for ln in cache.splitlines() if ln.startswith("CMAKE_C_COMPILER:"))
    write_record(src / "tuning.json", _record_for(compiler))     # this build's compiler: applied
    out = cm.run(["cmake", b])
    assert "utvm_build: generated net" in out.stdout and "warning" not in out.stderr.lower(), out.stderr
    assert _uses_plain_conv_first(gen)
    write_record(src / "tuning.json", _record_for(compiler, "0.0.1"))  # another compiler version
    out = cm.run(["cmake", b])
    assert "not " in out.stderr and "ignored" in out.stderr
    assert not _uses_plain_conv_first(gen)


def test_scons_tuning_option(tmp_path):
    import shutil as sh

    import test_scons as sc

    cc = sh.which("gcc") or "gcc"
    # ENV: the generator under test (this checkout's utvm_build when PYTHONPATH points at it)
    sconstruct = ("import os\n"
                  f"env = Environment(tools=['default', 'utvm'], toolpath=[{str(sc.TOOLPATH)!r}], CC={cc!r}, "
                  "ENV={k: os.environ[k] for k in ('PATH', 'PYTHONPATH') if k in os.environ})\n"
                  "env.UtvmModel('net', 'model.tflite', name='net', cpu='cortex-m4', output_dir='gen', "
                  "tuning='tuning.json')\n")
    d = sc.project(tmp_path / "p", sconstruct, model=DIGITS)
    write_record(d / "tuning.json", _record_for(cc))
    sc.scons(d, "gen")
    assert _uses_plain_conv_first(d / "gen")
    write_record(d / "tuning.json", _record(target="cortex-m7"))   # a new record: regenerated, ignored
    p = sc.scons(d, "gen")
    assert "cortex-m7" in p.stderr
    assert not _uses_plain_conv_first(d / "gen")
    bad = sconstruct.replace("tuning='tuning.json'", "tuning='missing.json'")
    (d / "SConstruct").write_text(bad)
    p = sc.scons(d, "gen", ok=False)
    assert p.returncode == 2 and "tuning record not found" in p.stderr


def test_cmake_group_tuning_option(tmp_path):
    import test_cmake as cm

    src = cm.project(tmp_path, "utvm_add_models(grp MODELS a=model.tflite TARGET cortex-m4 TUNING tuning.json)\n",
                     model=DIGITS)
    write_record(src / "tuning.json", _first_conv_record())   # no compiler check passes: another compiler
    out = cm.configure(src, tmp_path / "b")
    assert "ignored" in out.stderr
    ops = list((tmp_path / "b" / "utvm" / "grp").rglob("*_ops.c"))
    assert len(ops) == 1 and not _uses_plain_conv_first(ops[0].parent.parent)
    cache = (tmp_path / "b" / "CMakeCache.txt").read_text()
    compiler = next(ln.split("=", 1)[1] for ln in cache.splitlines() if ln.startswith("CMAKE_C_COMPILER:"))
    write_record(src / "tuning.json", _record_for(compiler))
    out = cm.run(["cmake", tmp_path / "b"])
    assert "ignored" not in out.stderr, out.stderr
    assert _uses_plain_conv_first(ops[0].parent.parent)
