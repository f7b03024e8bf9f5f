"""Handlers return data, emit/ writes C: every emitted kernel call matches its kernel's signature.

The kernel table (utvm_build/kernel_table.py) reads each kernel's C definition; the emitter
checks every call against it before writing. Here that check runs over the whole seed corpus
(every operator and dtype, the example models and ../shared's when present) for every target,
and is shown to catch each kind of mismatch.
"""

from __future__ import annotations

import re
import sys
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from utvm_build import kernel_table
from utvm_build.compiler import compile_bytes, lower, prepare_operators
from utvm_build.ops.call import Const, In, KernelCall, Lit, Null, Out, Params, Prepared, Scratch
from utvm_build.options import CompileOptions
from utvm_build.targets import TARGETS

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fuzz.seeds import all_seeds  # noqa: E402

SEEDS = all_seeds(include_shared=True)


def _accepted(data: bytes) -> bool:
    try:
        compile_bytes(data, "m", CompileOptions())
    except Exception:   # a seed the compiler refuses on purpose (e.g. an unsupported variant)
        return False
    return True


ACCEPTED = [(name, data) for name, data in SEEDS if _accepted(data)]


def _called() -> set[str]:
    called: set[str] = set()
    for _, data in ACCEPTED:
        g = lower(data)
        for prepared in prepare_operators(g, "generic").values():
            called |= {kc.function for kc in prepared.calls}
    return called


CALLED = _called()


def test_corpus_covers_every_kernel_entry_point() -> None:
    """The corpus reaches every kernel function a handler calls: a signature check over it is
    a check of every handler's call shape."""
    called = CALLED
    assert len(ACCEPTED) >= 60
    assert {"utvm_conv2d_s8", "utvm_depthwise_conv2d_s8", "utvm_fully_connected_s8_pc", "utvm_add_s8",
            "utvm_concatenation", "utvm_mean_s8", "utvm_transpose_conv_s16"} <= called
    assert len(called) >= 45, sorted(called)


@pytest.mark.parametrize("target", ["generic", "cortex-m4"])
def test_every_emitted_call_matches_its_kernel(target: str) -> None:
    """Compile the corpus for the target; the emitter raises on any mismatch. Then re-check
    every call in the emitted C text against the header the generated directory carries."""
    checked = 0
    for name, data in ACCEPTED:
        compiled = compile_bytes(data, "m", CompileOptions(target=target))
        files = {k: v.decode() for k, v in compiled.files.items()}
        declared: dict[str, int] = {}
        for path, text in files.items():
            if path.startswith("src/kernels/"):
                declared.update({f: len(p) for f, p in kernel_table.parse_definitions(text).items()})
        ops = files["src/tvmgen_m_ops.c"]
        for fn, args in re.findall(r"^  (utvm_\w+)\((.*)\);$", ops, re.M):
            assert fn in declared, f"{name}: {fn} is not defined in the copied kernels"
            n_args = 0 if not args.strip() else len(_split_args(args))
            assert n_args == declared[fn], f"{name}: {fn} called with {n_args} arguments, declared {declared[fn]}"
            checked += 1
    assert checked >= len(ACCEPTED)


def _split_args(text: str) -> list[str]:
    depth, parts, cur = 0, [], ""
    for ch in text:
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += ch in "([{"
        depth -= ch in ")]}"
        cur += ch
    return parts + [cur]


def test_override_headers_keep_the_generic_signatures() -> None:
    """A target's kernel file replaces the generic one: every entry point (a function handlers
    call) the generic file defines must exist there with the same parameter types; internal
    helpers may differ."""
    root = resources.files("utvm_build.kernels")
    folders = sorted({f for t in TARGETS.values() for f in t.folders})
    assert folders, "no target has an override folder"
    compared = 0
    for folder in folders:
        for entry in root.joinpath(folder).iterdir():
            if not entry.name.endswith(".h") or not root.joinpath(entry.name).is_file():
                continue   # a header only the target has
            generic = kernel_table.parse_definitions(root.joinpath(entry.name).read_text())
            override = kernel_table.parse_definitions(entry.read_text())
            for fn, params in generic.items():
                if fn in CALLED:
                    assert override[fn] == params, f"{folder}/{entry.name}: {fn} {override[fn]} != {params}"
                    compared += 1
    assert compared >= 5


def _graph_with_pool():  # noqa: ANN202
    for _, data in ACCEPTED:
        g = lower(data)
        for op in g.operators:
            if op.op == "AVERAGE_POOL_2D" and g.tensors[op.inputs[0]].dtype == "int8":
                return g, op
    raise AssertionError("no int8 AVERAGE_POOL_2D in the corpus")


@pytest.mark.parametrize("args, why", [
    ((In(0), Out(0)), "takes 3 arguments"),
    ((Params("utvm_pool_q_params", {}), Out(0), Out(0)), None),                       # T* for const T*: fine
    ((Params("utvm_pool_q_params", {}), Out(0), In(0)), "(const) for int8_t*"),       # const dropped
    ((Params("utvm_pool_q_params", {}), Const("c", np.zeros(1, np.int16), "int16_t"), Out(0)), "const int16_t*"),
    ((Params("utvm_pool_q_params", {}), Lit(3), Out(0)), "int32_t is not a pointer"),
    ((Params("utvm_pool_q_params", {}), Null(), Scratch("int8_t")), None),
    ((Params("utvm_pool_f32_params", {}), In(0), Out(0)), "const utvm_pool_f32_params*"),
])
def test_check_call_catches_mismatches(args: tuple, why: str | None) -> None:
    g, op = _graph_with_pool()
    kc = KernelCall("utvm_avg_pool_s8", args)
    if why is None:
        kernel_table.check_call(kc, op, g, "generic")
        return
    with pytest.raises(TypeError, match=re.escape(why)):
        kernel_table.check_call(kc, op, g, "generic")


def test_literals_are_range_checked() -> None:
    g, op = _graph_with_pool()
    ok = KernelCall("utvm_lut_s8", (Lit(5), Const("t", np.zeros(256, np.int8), "int8_t"), In(0), Out(0)))
    kernel_table.check_call(ok, op, g, "generic")
    for bad in (Lit(2**31), Lit(1.5, "float")):
        with pytest.raises(TypeError):
            kernel_table.check_call(KernelCall("utvm_lut_s8", (bad, *ok.args[1:])), op, g, "generic")


def test_scratch_rule_belongs_to_the_kernel() -> None:
    """MEAN int8 asks its kernel's rule for scratch: 4 bytes per output element."""
    for _, data in ACCEPTED:
        g = lower(data)
        prepared: dict[int, Prepared] = prepare_operators(g, "generic")
        for op in g.operators:
            for kc in prepared[op.index].calls:
                if kc.function == "utvm_mean_s8":
                    assert kernel_table.scratch_bytes(kc, op, g, "generic") == 4 * int(kc.field("out_size"))
                    assert any(isinstance(a, Scratch) for a in kc.args)
                    return
    raise AssertionError("no int8 MEAN in the corpus")


def test_skeleton_instances_are_entry_points() -> None:
    """An entry point a skeleton macro defines is indexed with the instance's types put in; the
    macro's own indented definition and a call inside a function are not entry points."""
    defs = kernel_table.parse_definitions(
        "UTVM_CONV_Q_KERNEL(utvm_conv2d_s16, int16_t, int64_t, utvm_conv_s16_zero, utvm_conv_s16_mac,\n"
        "                   utvm_conv_s16_no_skip, utvm_conv_s16_out)\n"
        "UTVM_LSTM_KERNEL(utvm_lstm_x, utvm_lstm_s8_params, int8_t, int16_t, int32_t) {\n"
        "  UTVM_CONV_WALK(p, in, w, bias, mult, shift, out, T, int8_t, ACC, A, B, C, D);\n}\n")
    assert defs["utvm_conv2d_s16"] == ("const utvm_conv_q_params*", "const int16_t*", "const int8_t*",
                                       "const int64_t*", "const int32_t*", "const int32_t*", "int16_t*")
    assert len(defs["utvm_lstm_x"]) == 27 and defs["utvm_lstm_x"][13] == "const int32_t*"
    assert set(defs) == {"utvm_conv2d_s16", "utvm_lstm_x"}
    with pytest.raises(RuntimeError, match="takes 7 arguments"):
        kernel_table.parse_definitions("UTVM_CONV_Q_KERNEL(utvm_bad, int8_t, int32_t)\n")
    # every instance in the kernel library resolves
    assert kernel_table.spec("utvm_signal_irfft_s16").params[3] == "const uint16_t*"
