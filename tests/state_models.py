"""Writer-made models with state and control flow (issue 15): resource variables initialised by
CALL_ONCE, IF inside a stateful model, WHILE with an IF nested in its body. Used by
tests/test_state.py and fuzz/seeds_state.py.

Every model accumulates its input into a resource variable ``acc`` (``acc = acc (+|-) x`` per
call), so its outputs depend on every earlier call."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from tflite_writer import ModelBuilder

DTYPES = ("float32", "int8", "int16")
KINDS = ("acc", "if", "while")


def _quant(rng: np.random.Generator, dtype: str) -> dict:
    if dtype == "float32":
        return {}
    scale = float(np.float32(rng.uniform(0.01, 0.2)))
    zp = int(rng.integers(-20, 21)) if dtype == "int8" else 0
    return {"scale": scale, "zero_point": zp}


def _init_value(rng: np.random.Generator, dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    if dtype == "float32":
        return rng.standard_normal(shape).astype(np.float32)
    lo, hi = (-60, 60) if dtype == "int8" else (-3000, 3000)
    return rng.integers(lo, hi, shape).astype(dtype)


def _init_subgraph(dtype: str, shape: tuple[int, ...], q: dict, init: np.ndarray, name: str = "acc") -> ModelBuilder:
    """Subgraph run by CALL_ONCE: VAR_HANDLE + ASSIGN_VARIABLE of a constant."""
    sg = ModelBuilder()
    r = sg.tensor((), "resource", name=f"{name}_handle_init")
    c = sg.tensor(shape, dtype, data=init, name=f"{name}_init", **q)
    sg.operator("VAR_HANDLE", [], [r], {"shared_name": name})
    sg.operator("ASSIGN_VARIABLE", [r, c], [])
    return sg


def _binary(sg: ModelBuilder, op: str, a: int, b: int, out: int) -> None:
    sg.operator(op, [a, b], [out], {"fused_activation_function": "NONE"})


def _branch(op: str, dtype: str, shape: tuple[int, ...], qa: dict,
            qx: dict) -> tuple[ModelBuilder, list[int], list[int]]:
    """IF branch: (acc, x) -> acc op x."""
    sg = ModelBuilder()
    a = sg.tensor(shape, dtype, name="a", **qa)
    x = sg.tensor(shape, dtype, name="x", **qx)
    y = sg.tensor(shape, dtype, name="y", **qa)
    _binary(sg, op, a, x, y)
    return sg, [a, x], [y]


def stateful_model(kind: str, dtype: str, seed: int) -> tuple[bytes, str, Callable[[np.random.Generator, int], list]]:
    """(model, label, make_feeds(rng, steps) -> one array per input with a leading time axis)."""
    rng = np.random.default_rng(seed)
    rank = int(rng.integers(1, 4))
    shape = tuple(int(d) for d in rng.integers(1, 5, rank))
    qa, qx = _quant(rng, dtype), _quant(rng, dtype)
    init = _init_value(rng, dtype, shape)
    mb = ModelBuilder(f"stateful {kind} {dtype}")
    x = mb.tensor(shape, dtype, name="x", **qx)
    r = mb.tensor((), "resource", name="acc_handle")
    v = mb.tensor(shape, dtype, name="acc_read", **qa)
    s = mb.tensor(shape, dtype, name="acc_new", **qa)
    subgraphs: list[tuple[ModelBuilder, list[int], list[int]]] = [(_init_subgraph(dtype, shape, qa, init), [], [])]
    mb.operator("CALL_ONCE", [], [], {"init_subgraph_index": 1})
    mb.operator("VAR_HANDLE", [], [r], {"shared_name": "acc"})
    mb.operator("READ_VARIABLE", [r], [v])
    inputs = [x]
    flags: list[int] = []
    if kind == "acc":
        _binary(mb, "ADD", v, x, s)
    elif kind == "if":
        f = mb.tensor((), "bool", name="flag")
        inputs = [f, x]
        subgraphs += [_branch("ADD", dtype, shape, qa, qx), _branch("SUB", dtype, shape, qa, qx)]
        mb.operator("IF", [f, v, x], [s], {"then_subgraph_index": 2, "else_subgraph_index": 3})
    else:   # WHILE: loop variables (f0, f1, f2, acc, x); the body shifts the flags and, through an
        # IF on f1, adds or subtracts x: 0 to 3 iterations, decided at run time by the flags
        flags = [mb.tensor((), "bool", name=f"f{k}") for k in range(3)]
        inputs = [*flags, x]
        outs = [mb.tensor((), "bool", name=f"w{k}") for k in range(3)]
        wx = mb.tensor(shape, dtype, name="w_x", **qx)
        cond = ModelBuilder()
        c_in = [cond.tensor((), "bool", name=f"c{k}") for k in range(3)]
        c_in += [cond.tensor(shape, dtype, name="c_acc", **qa), cond.tensor(shape, dtype, name="c_x", **qx)]
        body = ModelBuilder()
        b_in = [body.tensor((), "bool", name=f"b{k}") for k in range(3)]
        b_in += [body.tensor(shape, dtype, name="b_acc", **qa), body.tensor(shape, dtype, name="b_x", **qx)]
        b_false = body.tensor((), "bool", data=np.array(False), name="b_false")
        b_acc = body.tensor(shape, dtype, name="b_acc_new", **qa)
        body.operator("IF", [b_in[1], b_in[3], b_in[4]], [b_acc], {"then_subgraph_index": 4, "else_subgraph_index": 5})
        subgraphs += [(cond, c_in, [c_in[0]]), (body, b_in, [b_in[1], b_in[2], b_false, b_acc, b_in[4]]),
                      _branch("ADD", dtype, shape, qa, qx), _branch("SUB", dtype, shape, qa, qx)]
        mb.operator("WHILE", [*flags, v, x], [*outs, s, wx], {"cond_subgraph_index": 2, "body_subgraph_index": 3})
    mb.operator("ASSIGN_VARIABLE", [r, s], [])
    model = mb.build(inputs, [s], subgraphs)
    label = f"{kind} {dtype} seed {seed} shape {list(shape)}"

    def feeds(frng: np.random.Generator, steps: int) -> list[np.ndarray]:
        out: list[np.ndarray] = [frng.integers(0, 2, (steps,)).astype(bool) for _ in flags]
        if kind == "if":
            out.append(frng.integers(0, 2, (steps,)).astype(bool))
        if dtype == "float32":
            out.append(frng.standard_normal((steps, *shape)).astype(np.float32))
        else:
            info = np.iinfo(dtype)
            out.append(frng.integers(info.min, info.max, (steps, *shape), endpoint=True).astype(dtype))
        return out

    return model, label, feeds
