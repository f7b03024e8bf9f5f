"""State across calls and control flow (issue 15, parts 1, 2, 5, 6).

Oracle: tflite-runtime 2.14's reference kernels (``OpResolverType.BUILTIN_REF``, which registers
CALL_ONCE, VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE, IF and WHILE), ONE interpreter instance fed
the whole input sequence step by step. Every step's outputs must be byte-identical (float32: within
1e-5 x max|output|; in practice bit-exact), over STEPS >= 10 consecutive invocations; then again
after ``tvmgen_<name>_reset`` (the reference after a reset is a fresh interpreter: the state's
initial value, CALL_ONCE's initialisation included). With ``--state user`` two instances of one
model (two microphones) run interleaved, each against its own interpreter instance.

Models: the TF-converted ones in tests/data/state/ (scripts/make_state_models.py: a streaming
keyword model with tf.Variable ring buffers in int8 and float, tf.cond, tf.while_loop) and the
writer-made ones of tests/state_models.py (3 structures x float32/int8/int16 x seeds).
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import subprocess
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from state_models import DTYPES, KINDS, stateful_model
from system_tools import need
from tflite_writer import ModelBuilder

from utvm_build.compiler import compile_bytes
from utvm_build.emit.output import write_output
from utvm_build.host import build_shared_library, run_on_host
from utvm_build.options import CompileOptions

DATA = Path(__file__).parent / "data" / "state"
TF_MODELS = ("streaming_kws_int8", "streaming_kws_float", "cond_float", "while_float")
STEPS = 12
FULL = os.environ.get("UTVM_TEST_FULL") == "1"
#: writer seeds per (structure, dtype): CI / UTVM_TEST_FULL=1
SEEDS = range(20) if FULL else range(2)

_REFERENCE = textwrap.dedent("""
    import json, sys
    import numpy as np
    from tflite_runtime.interpreter import Interpreter, OpResolverType
    for job in json.load(open(sys.argv[1])):
        it = Interpreter(model_path=job["model"], experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
        it.allocate_tensors()
        feeds = np.load(job["feeds"])
        ins = [feeds[f"in{k}"] for k in range(len(feeds.files))]
        outs = {d["index"]: [] for d in it.get_output_details()}
        for t in range(ins[0].shape[0]):
            for d, x in zip(it.get_input_details(), ins):
                it.set_tensor(d["index"], x[t])
            it.invoke()
            for i in outs:
                outs[i].append(np.array(it.get_tensor(i)))
        np.savez(job["out"], *[np.stack(v) for v in outs.values()])
""")

_REFERENCE_TFLM = textwrap.dedent("""
    import json, sys
    import numpy as np
    from tflite_micro.python.tflite_micro import runtime
    for job in json.load(open(sys.argv[1])):
        it = runtime.Interpreter.from_bytes(open(job["model"], "rb").read(), arena_size=1 << 22)
        feeds = np.load(job["feeds"])
        ins = [feeds[f"in{k}"] for k in range(len(feeds.files))]
        outs = [[] for _ in range(job["outputs"])]
        for t in range(ins[0].shape[0]):
            for k, x in enumerate(ins):
                it.set_input(x[t], k)
            it.invoke()
            for i, o in enumerate(outs):
                o.append(np.array(it.get_output(i), copy=True))
        np.savez(job["out"], *[np.stack(v) for v in outs])
""")


def reference_sequences(tmp: Path, jobs: Sequence[tuple[bytes, list[np.ndarray]]],
                        tflm: bool = False) -> list[list[np.ndarray]]:
    """For each (model, feeds): one interpreter instance over the feeds' leading axis; outputs with
    the same leading axis. All jobs in one subprocess (tflite-runtime stays out of pytest).
    ``tflm``: the TFLM interpreter instead of tflite-runtime's reference kernels."""
    from oracle import model_io

    spec = []
    for k, (model, feeds) in enumerate(jobs):
        (tmp / f"ref{k}.tflite").write_bytes(model)
        np.savez(tmp / f"ref{k}_in.npz", **{f"in{i}": f for i, f in enumerate(feeds)})
        spec.append({"model": str(tmp / f"ref{k}.tflite"), "feeds": str(tmp / f"ref{k}_in.npz"),
                     "out": str(tmp / f"ref{k}_out.npz"), "outputs": len(model_io(model).outputs)})
    (tmp / "jobs.json").write_text(json.dumps(spec))
    (tmp / "ref.py").write_text(_REFERENCE_TFLM if tflm else _REFERENCE)
    subprocess.run([sys.executable, str(tmp / "ref.py"), str(tmp / "jobs.json")], check=True, capture_output=True)
    out = []
    for s in spec:
        z = np.load(s["out"])
        out.append([z[f"arr_{i}"] for i in range(len(z.files))])
    return out


def assert_close(ours: np.ndarray, ref: np.ndarray, label: str) -> str:
    """Byte-identical for integers; float32 within 1e-5 x max|out|. Returns "bit-exact" or "close"."""
    ours = ours.reshape(ref.shape)
    if ours.dtype.kind == "f":
        tol = 1e-5 * max(float(np.abs(ref).max()), 1e-30)
        err = float(np.abs(ours.astype(np.float64) - ref.astype(np.float64)).max())
        assert err <= tol, f"{label}: max error {err} > {tol}"
        return "bit-exact" if ours.tobytes() == ref.tobytes() else "close"
    np.testing.assert_array_equal(ours, ref, err_msg=label)
    return "bit-exact"


class Instance:
    """A compiled model in a shared library, called through ctypes step by step."""

    def __init__(self, tmp: Path, model: bytes, name: str, state: str = "static") -> None:
        compiled = compile_bytes(model, name, CompileOptions(state=state))
        gen = tmp / f"gen_{name}_{state}"
        write_output(gen, compiled.files)
        self.meta = compiled.metadata
        self.lib = ctypes.CDLL(str(build_shared_library(gen, tmp / f"lib{name}_{state}.so")))
        self.prefix = self.meta["prefix"]
        self.user_state = state == "user"
        self.run_fn = getattr(self.lib, f"{self.prefix}_run")
        self.run_fn.restype = ctypes.c_int32

    def new_state(self) -> ctypes.Array:
        buf = (ctypes.c_uint64 * max(1, (self.meta["state_bytes"] + 7) // 8))()   # 8-byte aligned
        assert getattr(self.lib, f"{self.prefix}_reset")(buf) == 0
        return buf

    def reset(self, state: ctypes.Array | None = None) -> None:
        fn = getattr(self.lib, f"{self.prefix}_reset")
        if self.user_state:
            assert fn(state) == 0
        else:
            fn()

    def run(self, feeds: list[np.ndarray], state: ctypes.Array | None = None) -> list[np.ndarray]:
        """One call per step of the feeds' leading axis; outputs with the same leading axis."""
        ins, outs = self.meta["inputs"], self.meta["outputs"]
        steps = feeds[0].shape[0]
        results: list[list[np.ndarray]] = [[] for _ in outs]
        for t in range(steps):
            arrays = [np.ascontiguousarray(f[t]).astype(p["dtype"]) for f, p in zip(feeds, ins)]
            o_arrays = [np.zeros(p["shape"], p["dtype"]) for p in outs]
            in_s = (ctypes.c_void_p * len(ins))(*[a.ctypes.data for a in arrays])
            out_s = (ctypes.c_void_p * len(outs))(*[o.ctypes.data for o in o_arrays])
            args = [ctypes.byref(in_s), ctypes.byref(out_s)] + ([state] if self.user_state else [])
            assert self.run_fn(*args) == 0, f"run failed at step {t}"
            for k, o in enumerate(o_arrays):
                results[k].append(o)
        return [np.stack(r) for r in results]


def _tf_feeds(meta: dict, rng: np.random.Generator, steps: int) -> list[np.ndarray]:
    out = []
    for p in meta["inputs"]:
        shape = (steps, *p["shape"])
        if p["dtype"] == "bool":
            out.append(rng.integers(0, 2, shape).astype(bool))
        elif p["dtype"] == "float32":
            out.append(rng.standard_normal(shape).astype(np.float32))
        else:
            out.append(rng.integers(-128, 128, shape).astype(p["dtype"]))
    return out


def _check_model(tmp: Path, model: bytes, name: str, feeds_a: list[np.ndarray], feeds_b: list[np.ndarray],
                 stats: dict[str, int]) -> None:
    """Static state: a sequence, a reset, the sequence again; user state: two instances interleaved."""
    ref_a, ref_b = reference_sequences(tmp, [(model, feeds_a), (model, feeds_b)])
    inst = Instance(tmp, model, name)
    first = inst.run(feeds_a)
    inst.reset()
    again = inst.run(feeds_a)
    for ours, ours2, ref in zip(first, again, ref_a):
        stats[assert_close(ours, ref, f"{name} step by step")] += 1
        stats[assert_close(ours2, ref, f"{name} after reset")] += 1
        assert not all(np.array_equal(ours[0], ours[t]) for t in range(1, len(ours))), f"{name}: constant output"
    user = Instance(tmp, model, name, state="user")
    mic_a, mic_b = user.new_state(), user.new_state()
    got_a: list[list[np.ndarray]] = []
    got_b: list[list[np.ndarray]] = []
    for t in range(STEPS):   # two instances, interleaved call by call
        got_a.append(user.run([f[t:t + 1] for f in feeds_a], mic_a))
        got_b.append(user.run([f[t:t + 1] for f in feeds_b], mic_b))
    for k, (ra, rb) in enumerate(zip(ref_a, ref_b)):
        assert_close(np.concatenate([g[k] for g in got_a]), ra, f"{name} instance A")
        assert_close(np.concatenate([g[k] for g in got_b]), rb, f"{name} instance B")
    user.reset(mic_b)
    assert_close(user.run(feeds_a, mic_b)[0], ref_a[0], f"{name} instance B reset, fed A's sequence")


@pytest.fixture(scope="module")
def conformance() -> dict[str, int]:
    stats = {"bit-exact": 0, "close": 0}
    yield stats
    print(f"\nstate conformance: {sum(stats.values())} sequences of {STEPS} steps, {stats['bit-exact']} bit-exact")


@pytest.mark.parametrize("name", TF_MODELS)
def test_tf_models_step_by_step(name: str, tmp_path: Path, conformance: dict[str, int]) -> None:
    need("gcc")
    model = (DATA / f"{name}.tflite").read_bytes()
    meta = compile_bytes(model, name).metadata
    rng = np.random.default_rng(15)
    _check_model(tmp_path, model, name, _tf_feeds(meta, rng, STEPS), _tf_feeds(meta, rng, STEPS), conformance)


def test_streaming_kws_state_layout() -> None:
    """The ring buffers and the CALL_ONCE flag are in the state region, not in the workspace."""
    meta = compile_bytes((DATA / "streaming_kws_int8.tflite").read_bytes(), "kws").metadata
    kinds = [(e["kind"], e["name"], e["bytes"]) for e in meta["state"]]
    assert ("variable", "frames", 50) in kinds and ("variable", "hidden", 24) in kinds
    assert ("once", "CALL_ONCE #0", 1) in kinds
    assert meta["state_bytes"] == 75
    header = compile_bytes((DATA / "streaming_kws_int8.tflite").read_bytes(), "kws").files["include/tvmgen_kws.h"]
    assert b"#define TVMGEN_KWS_STATE_SIZE 75" in header
    assert b"void tvmgen_kws_reset(void);" in header and b"void tvmgen_kws_reset_state(void);" in header
    user = compile_bytes((DATA / "streaming_kws_int8.tflite").read_bytes(), "kws",
                         CompileOptions(state="user")).files["include/tvmgen_kws.h"]
    assert b"int32_t tvmgen_kws_reset(void* state);" in user and b"void* state);" in user
    assert b"TVMGEN_KWS_STATE_ALIGNMENT 1" in user


def test_info_names_what_keeps_each_state_item() -> None:
    """`utvm-build info` says whose each state item is (the converter's tensor names say nothing)."""
    lstm = Path(__file__).resolve().parent / "data" / "lstm" / "keras_lstm_int8.tflite"
    p = subprocess.run([sys.executable, "-m", "utvm_build", "info", str(lstm)], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    line = next(ln for ln in p.stdout.splitlines() if ln.startswith("workspace:"))
    assert "= operator #0 UNIDIRECTIONAL_SEQUENCE_LSTM input 19 (cell state) 16 B" in line, line
    assert "= operator #1 UNIDIRECTIONAL_SEQUENCE_LSTM input 18 (output state) 6 B" in line, line


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_writer_models(kind: str, dtype: str, tmp_path: Path, conformance: dict[str, int]) -> None:
    need("gcc")
    for seed in SEEDS:
        model, label, make_feeds = stateful_model(kind, dtype, seed)
        rng = np.random.default_rng(seed + 100)
        name = f"{kind}_{dtype}_{seed}"
        _check_model(tmp_path, model, name, make_feeds(rng, STEPS), make_feeds(rng, STEPS), conformance)


def test_sequence_run_and_sanitizer(tmp_path: Path) -> None:
    """`run --sequence` and run_on_host(sequence=True), also under ASan/UBSan, on the streaming
    model and a nested WHILE/IF model."""
    need("gcc")
    model, _, make_feeds = stateful_model("while", "int8", 1)
    (tmp_path / "w.tflite").write_bytes(model)
    (tmp_path / "kws.tflite").write_bytes((DATA / "streaming_kws_int8.tflite").read_bytes())
    kws_feeds = [np.random.default_rng(3).integers(-128, 128, (STEPS, 1, 1, 10)).astype(np.int8)]
    w_feeds = make_feeds(np.random.default_rng(4), STEPS)
    refs = reference_sequences(tmp_path, [((DATA / "streaming_kws_int8.tflite").read_bytes(), kws_feeds),
                                          (model, w_feeds)])
    for path, feeds, ref in ((tmp_path / "kws.tflite", kws_feeds, refs[0]), (tmp_path / "w.tflite", w_feeds, refs[1])):
        for sanitize in (False, True):
            (ours,) = run_on_host(path, feeds, sequence=True, sanitize=sanitize)
            assert_close(ours, ref[0], f"{path.name} sanitize={sanitize}")
    for k, f in enumerate(kws_feeds):
        np.save(tmp_path / f"in{k}.npy", f)
    p = subprocess.run([sys.executable, "-m", "utvm_build", "run", tmp_path / "kws.tflite", "--sequence", "--input",
                        tmp_path / "in0.npy", "--output-dir", tmp_path / "out"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "out" / "output_0.npy"), refs[0][0])


def test_state_user_run_on_host(tmp_path: Path) -> None:
    """run_on_host with --state user: the runner supplies and resets the state region."""
    need("gcc")
    (tmp_path / "kws.tflite").write_bytes((DATA / "streaming_kws_int8.tflite").read_bytes())
    feeds = [np.random.default_rng(3).integers(-128, 128, (STEPS, 1, 1, 10)).astype(np.int8)]
    (static,) = run_on_host(tmp_path / "kws.tflite", feeds, sequence=True)
    for sanitize in (False, True):
        (user,) = run_on_host(tmp_path / "kws.tflite", feeds, CompileOptions(state="user"), sequence=True,
                              sanitize=sanitize)
        np.testing.assert_array_equal(user, static)


# ---- planning -------------------------------------------------------------------------------

def test_nested_frames_never_overlap_live_buffers() -> None:
    """WHILE -> body -> IF -> branch: each callee's frame is its caller's scratch at the call's
    step, so it lies outside every caller buffer alive then, at every nesting level."""
    from utvm_build.frontend.tflite import read_tflite
    from utvm_build.passes.variables import resolve_variables
    from utvm_build.planner import plan_model

    model, _, _ = stateful_model("while", "float32", 2)
    g = read_tflite(model)
    resolve_variables(g)
    plan = plan_model(g, {}, 16)
    plans = {0: plan, **plan.subplans}
    assert set(plans) == {0, 1, 2, 3, 4, 5}
    for k, p in plans.items():
        sg = g.subgraph(k)
        for pos, op in enumerate(sg.operators):
            if op.op not in ("IF", "WHILE", "CALL_ONCE"):
                continue
            callees = [int(v) for key, v in op.options.items() if key.endswith("subgraph_index")]
            frame = max(plans[c].workspace_bytes for c in callees)
            if frame == 0:
                continue
            base = p.scratch[pos]
            assert base + frame <= p.workspace_bytes
            for b in p.buffers:
                if b.key[0] == "tensor" and b.first <= pos <= b.last:
                    assert b.offset + b.size <= base or base + frame <= b.offset, (k, op.op, b)


# ---- errors (part 6) --------------------------------------------------------------------------

def _if_model(cond_dtype: str = "bool", branch_shape: tuple[int, ...] = (2,), then_index: int = 1,
              recursive: bool = False) -> bytes:
    mb = ModelBuilder()
    c = mb.tensor((), cond_dtype, name="cond")
    x = mb.tensor((2,), "float32", name="x")
    y = mb.tensor((2,), "float32", name="y")
    mb.operator("IF", [c, x], [y], {"then_subgraph_index": then_index, "else_subgraph_index": 1})
    br = ModelBuilder()
    a = br.tensor(branch_shape, "float32", name="a")
    b = br.tensor(branch_shape, "float32", name="b")
    if recursive:   # the branch calls itself through another IF
        bc = br.tensor((), "bool", data=np.array(True), name="again")
        br.operator("IF", [bc, a], [b], {"then_subgraph_index": 1, "else_subgraph_index": 2})
        leaf = ModelBuilder()
        la, lb = leaf.tensor((2,), "float32"), leaf.tensor((2,), "float32")
        leaf.operator("RELU", [la], [lb])
        return mb.build([c, x], [y], [(br, [a], [b]), (leaf, [la], [lb])])
    br.operator("RELU", [a], [b])
    return mb.build([c, x], [y], [(br, [a], [b])])


def _variable_model(read_shape: tuple[int, ...] = (2,), resource_input: bool = False) -> bytes:
    mb = ModelBuilder()
    x = mb.tensor((2,), "float32", name="x")
    r = mb.tensor((), "resource", name="h")
    v = mb.tensor(read_shape, "float32", name="v")
    y = mb.tensor(read_shape, "float32", name="y")
    mb.operator("VAR_HANDLE", [], [r], {"shared_name": "acc"})
    mb.operator("ASSIGN_VARIABLE", [r, x], [])
    mb.operator("READ_VARIABLE", [r], [v])
    if resource_input:   # a resource tensor where a value belongs
        mb.operator("RELU", [r], [y])
    else:
        mb.operator("RELU", [v], [y])
    return mb.build([x], [y])


ERRORS = [
    ("if_cond_float", lambda: _if_model(cond_dtype="float32"), "operator #0 IF: condition tensor"),
    ("if_branch_shape", lambda: _if_model(branch_shape=(3,)), "operator #0 IF: input 0 of the then subgraph"),
    ("if_bad_subgraph", lambda: _if_model(then_index=7), "operator #0 IF: then_subgraph_index 7 is not a subgraph"),
    ("if_recursion", lambda: _if_model(recursive=True), "operator #1 IF: then_subgraph_index 1 is the operator's own"),
    ("variable_two_shapes", lambda: _variable_model(read_shape=(1, 2)),
     "operator #2 READ_VARIABLE: reads variable 'acc' as float32 [1, 2]"),
    ("resource_as_value", lambda: _variable_model(resource_input=True), "operator #3 RELU: uses the resource tensor"),
]


@pytest.mark.parametrize("case", ERRORS, ids=[e[0] for e in ERRORS])
def test_unsupported_variants_name_the_operator(case, tmp_path: Path) -> None:
    _, make, expected = case
    path = tmp_path / "m.tflite"
    path.write_bytes(make())
    p = subprocess.run([sys.executable, "-m", "utvm_build", "compile", path, "-o", tmp_path / "out"],
                       capture_output=True, text=True)
    assert p.returncode == 2, p.stderr
    assert p.stderr.count("\n") == 1 and "Traceback" not in p.stderr, p.stderr
    assert expected in p.stderr, p.stderr


def test_indirect_recursion_is_refused() -> None:
    """Subgraph 1 calls 2, which calls 1: refused at compile time (the C never recurses)."""
    from utvm_build.errors import UnsupportedError

    mb = ModelBuilder()
    c, x, y = mb.tensor((), "bool"), mb.tensor((2,), "float32"), mb.tensor((2,), "float32")
    mb.operator("IF", [c, x], [y], {"then_subgraph_index": 1, "else_subgraph_index": 1})
    subs = []
    for callee in (2, 1):
        sg = ModelBuilder()
        a, b = sg.tensor((2,), "float32"), sg.tensor((2,), "float32")
        k = sg.tensor((), "bool", data=np.array(False))
        sg.operator("IF", [k, a], [b], {"then_subgraph_index": callee, "else_subgraph_index": callee})
        subs.append((sg, [a], [b]))
    with pytest.raises(UnsupportedError, match=r"operator #\d IF: calls subgraph 1, which is running already"):
        compile_bytes(mb.build([c, x], [y], subs), "rec")


# ---- Cortex-M4 under QEMU ---------------------------------------------------------------------

CORTEX_M = Path(__file__).resolve().parents[1] / "examples" / "cortex_m"
M4 = ["-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16"]


def _firmware_main(meta: dict, feeds: list[np.ndarray]) -> str:
    """A bare-metal program: STEPS calls on the embedded inputs, reset, the same STEPS again;
    each call prints its outputs' bytes in hex ("p<pass> s<step> o<k> <hex>")."""
    prefix = meta["prefix"]
    lines = ["#include <stdint.h>", '#include "semihosting.h"', f'#include "{prefix}.h"', ""]
    for k, (f, p) in enumerate(zip(feeds, meta["inputs"])):
        data = np.ascontiguousarray(f.astype(p["dtype"])).view(np.uint8).reshape(f.shape[0], -1)
        rows = ",\n".join("  {" + ", ".join(str(int(b)) for b in row) + "}" for row in data)
        lines.append(f"static const uint8_t in{k}[{data.shape[0]}][{data.shape[1]}] __attribute__((aligned(8))) = {{\n"
                     f"{rows}\n}};")
    for k, p in enumerate(meta["outputs"]):
        lines.append(f"static uint8_t out{k}[{p['bytes']}] __attribute__((aligned(8)));")
    lines += ["static char line[4096];", "",
              "static void dump(int pass, int t, int k, const uint8_t* b, int n) {",
              '  static const char hex[] = "0123456789abcdef";',
              "  int m = 0;",
              "  line[m++] = 'p'; line[m++] = (char)('0' + pass); line[m++] = ' '; line[m++] = 's';",
              "  line[m++] = (char)('0' + t / 10); line[m++] = (char)('0' + t % 10); line[m++] = ' ';",
              "  line[m++] = 'o'; line[m++] = (char)('0' + k); line[m++] = ' ';",
              "  for (int i = 0; i < n && m < (int)sizeof line - 4; ++i) {",
              "    line[m++] = hex[b[i] >> 4]; line[m++] = hex[b[i] & 15];", "  }",
              "  line[m++] = '\\n'; line[m] = '\\0';", "  semihosting_write0(line);", "}", "",
              "int main(void) {",
              f"  struct {prefix}_inputs inputs;", f"  struct {prefix}_outputs outputs;",
              "  void** in_ptrs = (void**)&inputs;", "  void** out_ptrs = (void**)&outputs;"]
    lines += [f"  out_ptrs[{k}] = out{k};" for k in range(len(meta["outputs"]))]
    lines += ["  for (int pass = 0; pass < 2; ++pass) {",
              f"    for (int t = 0; t < {feeds[0].shape[0]}; ++t) {{"]
    lines += [f"      in_ptrs[{k}] = (void*)(uintptr_t)in{k}[t];" for k in range(len(feeds))]
    lines += [f"      if ({prefix}_run(&inputs, &outputs) != 0) {{", '        semihosting_write0("run failed\\n");',
              "        return 1;", "      }"]
    lines += [f"      dump(pass, t, {k}, out{k}, {p['bytes']});" for k, p in enumerate(meta["outputs"])]
    lines += ["    }", f"    {prefix}_reset();", "  }", "  return 0;", "}", ""]
    return "\n".join(lines)


def test_cortex_m4_qemu(tmp_path: Path) -> None:
    """The TF models and nested writer models, --target cortex-m4, on QEMU (mps2-an386): every
    step against the reference, a reset, every step again."""
    need("arm-none-eabi-gcc", "qemu-system-arm")
    models = [(n, (DATA / f"{n}.tflite").read_bytes(), None) for n in TF_MODELS]
    for kind, dtype in (("while", "int8"), ("while", "int16"), ("while", "float32"), ("if", "int8")):
        model, _, make = stateful_model(kind, dtype, 5)
        models.append((f"{kind}_{dtype}", model, make))
    feeds_all = []
    for name, model, make in models:
        meta = compile_bytes(model, name).metadata
        rng = np.random.default_rng(7)
        feeds_all.append(make(rng, STEPS) if make else _tf_feeds(meta, rng, STEPS))
    refs = reference_sequences(tmp_path, [(m, f) for (_, m, _), f in zip(models, feeds_all)])
    for (name, model, _), feeds, ref in zip(models, feeds_all, refs):
        compiled = compile_bytes(model, name, CompileOptions(target="cortex-m4"))
        gen = tmp_path / name
        write_output(gen, compiled.files)
        meta = compiled.metadata
        (gen / "main.c").write_text(_firmware_main(meta, feeds))
        srcs = [str(gen / s) for s in meta["sources"]] + [str(gen / "main.c"), str(CORTEX_M / "startup.c"),
                                                          str(CORTEX_M / "semihosting.c")]
        cc = subprocess.run(["arm-none-eabi-gcc", *M4, "-O2", "-std=c99", "-Wall", "-Wextra", "-Werror",
                             "-ffunction-sections", "-fdata-sections", f"-I{gen / 'include'}", f"-I{CORTEX_M}", *srcs,
                             "-nostartfiles", "--specs=nano.specs", "-Wl,--gc-sections", f"-L{CORTEX_M}",
                             f"-T{CORTEX_M / 'mps2-an386.ld'}", "-lm", "-o", str(gen / "fw.elf")],
                            capture_output=True, text=True)
        assert cc.returncode == 0, cc.stderr
        q = subprocess.run(["qemu-system-arm", "-M", "mps2-an386", "-nographic", "-semihosting", "-kernel",
                            str(gen / "fw.elf")], capture_output=True, text=True, timeout=120)
        assert q.returncode == 0, q.stdout + q.stderr
        got: dict[tuple[int, int, int], bytes] = {}
        for ln in (q.stdout + q.stderr).splitlines():
            m = re.match(r"p(\d) s(\d+) o(\d) ([0-9a-f]*)$", ln.strip())
            if m:
                got[(int(m[1]), int(m[2]), int(m[3]))] = bytes.fromhex(m[4])
        assert len(got) == 2 * STEPS * len(ref), f"{name}: {len(got)} lines"
        for k, (r, p) in enumerate(zip(ref, meta["outputs"])):
            for pass_ in (0, 1):
                ours = np.stack([np.frombuffer(got[(pass_, t, k)], p["dtype"]) for t in range(STEPS)])
                assert_close(ours, r.reshape(STEPS, -1), f"{name} on Cortex-M4, pass {pass_}")


def test_option_combinations(tmp_path: Path) -> None:
    """--io workspace, --workspace user and --state user change where buffers live, never the
    results: every combination gives the default build's sequence (the reference's, checked above)."""
    need("gcc")
    model, _, make = stateful_model("while", "int8", 3)
    (tmp_path / "w.tflite").write_bytes(model)
    (tmp_path / "kws.tflite").write_bytes((DATA / "streaming_kws_float.tflite").read_bytes())
    slices = np.random.default_rng(2).standard_normal((STEPS, 1, 1, 10)).astype(np.float32)
    cases = [(tmp_path / "w.tflite", make(np.random.default_rng(1), STEPS)), (tmp_path / "kws.tflite", [slices])]
    combos = [CompileOptions(io="workspace"), CompileOptions(workspace="user", state="user"),
              CompileOptions(io="workspace", workspace="user", state="user", workspace_align=64)]
    for path, feeds in cases:
        (base,) = run_on_host(path, feeds, sequence=True)
        for opts in combos:
            (ours,) = run_on_host(path, feeds, opts, sequence=True)
            np.testing.assert_array_equal(ours, base, err_msg=f"{path.name} {opts}")


def test_state_option_errors(tmp_path: Path) -> None:
    path = tmp_path / "kws.tflite"
    path.write_bytes((DATA / "streaming_kws_int8.tflite").read_bytes())
    for args, needle in ((["--interface", "packed", "--state", "user"], "use --state static with --interface packed"),
                         (["--state", "heap"], "--state")):
        p = subprocess.run([sys.executable, "-m", "utvm_build", "compile", path, "-o", tmp_path / "o", *args],
                           capture_output=True, text=True)
        assert p.returncode == 2 and p.stderr.count("\n") == 1 and needle in p.stderr, p.stderr
