"""Shape and data-movement operators against TFLite's reference kernels (tflite-runtime 2.14,
BUILTIN_REF): TRANSPOSE, GATHER, GATHER_ND, SPLIT, SPLIT_V, UNPACK, PACK, SLICE, EXPAND_DIMS,
SHAPE, BROADCAST_ARGS, BROADCAST_TO, FILL, DEPTH_TO_SPACE, SPACE_TO_DEPTH, BATCH_TO_SPACE_ND,
SPACE_TO_BATCH_ND, MIRROR_PAD, REVERSE_V2, EMBEDDING_LOOKUP (and hybrid), DYNAMIC_UPDATE_SLICE,
CUMSUM, RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR and bool/int64 CONCATENATION. CUMSUM int8 exists
only in TFLite Micro: its interpreter is the oracle there (test_cumsum_int8).

Byte movers are bit-exact in every type (float32 included); so are CUMSUM float32 (same order of
additions), the hybrid EMBEDDING_LOOKUP and RESIZE_BILINEAR float32 (ISO C, no FMA contraction).
Every (operator, type) has CASES seeded cases: ``UTVM_TEST_FULL=1`` runs FULL_CASES (>= 20), CI a
seeded sample of CI_CASES. Where TFLite's reference kernel rejects a type, the type is not
listed (the table in docs/operators/shape.md says which).
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from harness import Case, check_against_oracle, run_cases
from oracle import random_inputs
from tflite_writer import ModelBuilder

from utvm_build.compiler import compile_bytes
from utvm_build.errors import UnsupportedError

FULL = os.environ.get("UTVM_TEST_FULL") == "1"
FULL_CASES, CI_CASES = 20, 4
CASES = FULL_CASES if FULL else CI_CASES


def _q(rng, dtype: str) -> dict:
    if dtype == "int8":
        return {"scale": float(np.float32(rng.uniform(0.01, 0.1))), "zero_point": int(rng.integers(-128, 128))}
    if dtype == "int16":
        return {"scale": float(np.float32(rng.uniform(1e-4, 1e-3))), "zero_point": 0}
    return {}


def _shape(rng, rank: int, lo: int = 1, hi: int = 4) -> list[int]:
    return [int(v) for v in rng.integers(lo, hi + 1, size=rank)]


def _case(mb: ModelBuilder, ins: list[int], outs: list[int], seed: int, label: str,
          fixed: dict | None = None) -> Case:
    model = mb.build(ins, outs)
    return Case(model, random_inputs(model, seed, fixed), label)


# ---- generators: (dtype, k, seed) -> Case -------------------------------------------------------
def g_transpose(dt, k, seed):
    rng = np.random.default_rng(seed)
    rank = 1 + k % 6
    shape = _shape(rng, rank, 1, 4 if rank < 5 else 3)
    perm = [int(v) for v in rng.permutation(rank)]
    q = _q(rng, dt)
    mb = ModelBuilder()
    x = mb.tensor(shape, dt, **q)
    p = mb.tensor([rank], "int32", data=np.array(perm))
    y = mb.tensor([shape[i] for i in perm], dt, **q)
    mb.operator("TRANSPOSE", [x, p], [y])
    return _case(mb, [x], [y], seed, f"TRANSPOSE {dt} {shape} perm={perm}")


def g_slice(dt, k, seed):
    rng = np.random.default_rng(seed)
    rank = 1 + k % 5
    shape = _shape(rng, rank, 1, 5)
    begin = [int(rng.integers(0, n)) for n in shape]
    size = [int(rng.integers(1, n - b + 1)) for n, b in zip(shape, begin)]
    size = [-1 if rng.random() < 0.25 else s for s in size]
    out = [n - b if s == -1 else s for n, b, s in zip(shape, begin, size)]
    q = _q(rng, dt)
    idt = "int64" if k % 3 == 2 else "int32"
    mb = ModelBuilder()
    x = mb.tensor(shape, dt, **q)
    b = mb.tensor([rank], idt, data=np.array(begin))
    s = mb.tensor([rank], idt, data=np.array(size))
    y = mb.tensor(out, dt, **q)
    mb.operator("SLICE", [x, b, s], [y])
    return _case(mb, [x], [y], seed, f"SLICE {dt} {shape} begin={begin} size={size}")


def g_split(dt, k, seed):
    rng = np.random.default_rng(seed)
    rank = 1 + k % 4
    shape = _shape(rng, rank, 1, 4)
    axis = int(rng.integers(-rank, rank))
    n = int(rng.integers(1, 4))
    shape[axis] *= n
    q = _q(rng, dt)
    mb = ModelBuilder()
    a = mb.tensor([], "int32", data=np.array(axis))
    x = mb.tensor(shape, dt, **q)
    part = list(shape)
    part[axis] //= n
    ys = [mb.tensor(part, dt, **q) for _ in range(n)]
    mb.operator("SPLIT", [a, x], ys, {"num_splits": n})
    outs = ys if k % 4 else ys[-1:]   # some cases read one output only
    return _case(mb, [x], outs, seed, f"SPLIT {dt} {shape} axis={axis} n={n} outs={len(outs)}")


def g_split_v(dt, k, seed):
    rng = np.random.default_rng(seed)
    rank = 1 + k % 4
    shape = _shape(rng, rank, 1, 6)
    axis = int(rng.integers(-rank, rank))
    total = shape[axis]
    cuts = sorted({int(v) for v in rng.integers(1, total, size=int(rng.integers(0, 3)))} if total > 1 else set())
    sizes = [b - a for a, b in zip([0] + cuts, cuts + [total])]
    given = list(sizes)
    if k % 3 == 1:
        given[int(rng.integers(0, len(given)))] = -1
    q = _q(rng, dt)
    mb = ModelBuilder()
    x = mb.tensor(shape, dt, **q)
    s = mb.tensor([len(given)], "int32", data=np.array(given))
    a = mb.tensor([], "int32", data=np.array(axis))
    ys = []
    for n in sizes:
        part = list(shape)
        part[axis] = n
        ys.append(mb.tensor(part, dt, **q))
    mb.operator("SPLIT_V", [x, s, a], ys, {"num_splits": len(sizes)})
    outs = ys if k % 5 else ys[:1]
    return _case(mb, [x], outs, seed, f"SPLIT_V {dt} {shape} axis={axis} sizes={given}")


def g_unpack(dt, k, seed):
    rng = np.random.default_rng(seed)
    rank = 1 + k % 4
    shape = _shape(rng, rank, 1, 4)
    axis = int(rng.integers(-rank, rank))
    q = _q(rng, dt)
    mb = ModelBuilder()
    x = mb.tensor(shape, dt, **q)
    part = [n for d, n in enumerate(shape) if d != axis % rank]
    ys = [mb.tensor(part, dt, **q) for _ in range(shape[axis])]
    mb.operator("UNPACK", [x], ys, {"num": shape[axis], "axis": axis})
    return _case(mb, [x], ys if k % 3 else ys[:1], seed, f"UNPACK {dt} {shape} axis={axis}")


def g_pack(dt, k, seed):
    rng = np.random.default_rng(seed)
    rank = k % 4
    shape = _shape(rng, rank, 1, 4)
    n = int(rng.integers(1, 4))
    axis = int(rng.integers(-(rank + 1), rank + 1))
    q = _q(rng, dt)
    mb = ModelBuilder()
    xs = [mb.tensor(shape, dt, **q) for _ in range(n)]
    out = list(shape)
    out.insert(axis % (rank + 1), n)
    y = mb.tensor(out, dt, **q)
    mb.operator("PACK", xs, [y], {"values_count": n, "axis": axis})
    return _case(mb, xs, [y], seed, f"PACK {dt} {shape} n={n} axis={axis}")


def g_expand_dims(dt, k, seed):
    rng = np.random.default_rng(seed)
    rank = k % 4
    shape = _shape(rng, rank, 1, 4)
    axis = int(rng.integers(-(rank + 1), rank + 1))
    q = _q(rng, dt)
    mb = ModelBuilder()
    x = mb.tensor(shape, dt, **q)
    a = mb.tensor([1] if k % 2 else [], "int32", data=np.array([axis] if k % 2 else axis))
    out = list(shape)
    out.insert(axis % (rank + 1), 1)
    y = mb.tensor(out, dt, **q)
    mb.operator("EXPAND_DIMS", [x, a], [y])
    if k % 3 == 0:   # feed a second operator, so the expand is an alias inside the workspace
        z = mb.tensor(out, dt, **q)
        mb.operator("CONCATENATION", [y, y], [z2 := mb.tensor([2 * out[0]] + out[1:], dt, **q)], {"axis": 0})
        del z
        return _case(mb, [x], [z2], seed, f"EXPAND_DIMS {dt} {shape} axis={axis} (+concat)")
    return _case(mb, [x], [y], seed, f"EXPAND_DIMS {dt} {shape} axis={axis}")


def g_shape(dt, k, seed):
    rng = np.random.default_rng(seed)
    shape = _shape(rng, 1 + k % 4, 1, 5)   # a rank-0 input would need a zero-sized output (refused model-wide)
    xdt = ("int8", "float32", "int32", "bool")[k % 4]
    mb = ModelBuilder()
    x = mb.tensor(shape, xdt)
    y = mb.tensor([len(shape)], dt)
    mb.operator("SHAPE", [x], [y], {"out_type": dt})
    if k % 2:   # feeds an operator: becomes a constant, no code
        z = mb.tensor([2 * len(shape)], dt)
        mb.operator("CONCATENATION", [y, y], [z], {"axis": 0})
        return _case(mb, [x], [z], seed, f"SHAPE {dt} {shape} (+concat)")
    return _case(mb, [x], [y], seed, f"SHAPE {dt} {shape}")


def g_broadcast_args(dt, k, seed):
    rng = np.random.default_rng(seed)
    out = _shape(rng, 1 + k % 4, 1, 5)
    a = [n if rng.random() < 0.6 else 1 for n in out][int(rng.integers(0, len(out))):]
    pa = [1] * (len(out) - len(a)) + a
    b = [n if pa[d] == 1 or rng.random() < 0.5 else 1 for d, n in enumerate(out)]
    want = [max(u, v) for u, v in zip([1] * (len(out) - len(a)) + a, b)]
    mb = ModelBuilder()
    const = k % 2 == 0
    ta = mb.tensor([len(a)], dt, data=np.array(a) if const else None)
    tb = mb.tensor([len(b)], dt, data=np.array(b) if const else None)
    y = mb.tensor([len(want)], dt)
    mb.operator("BROADCAST_ARGS", [ta, tb], [y])
    ins = [] if const else [ta, tb]
    if const:   # an output must be computed by an operator: copy through CONCATENATION
        z = mb.tensor([2 * len(want)], dt)
        mb.operator("CONCATENATION", [y, y], [z], {"axis": 0})
        x = mb.tensor([1], dt)
        z2 = mb.tensor([2 * len(want) + 1], dt)
        mb.operator("CONCATENATION", [z, x], [z2], {"axis": 0})
        return _case(mb, [x], [z2], seed, f"BROADCAST_ARGS {dt} {a} {b} (const)")
    return _case(mb, ins, [y], seed, f"BROADCAST_ARGS {dt} {a} {b}", fixed={0: np.array(a), 1: np.array(b)})


def g_broadcast_to(dt, k, seed):
    rng = np.random.default_rng(seed)
    out = _shape(rng, 1 + k % 5, 1, 4)
    xr = int(rng.integers(0, len(out) + 1))
    xs = [n if rng.random() < 0.5 else 1 for n in out[len(out) - xr:]]
    q = _q(rng, dt)
    mb = ModelBuilder()
    x = mb.tensor(xs, dt, **q)
    s = mb.tensor([len(out)], "int64" if k % 3 == 1 else "int32", data=np.array(out))
    y = mb.tensor(out, dt, **q)
    mb.operator("BROADCAST_TO", [x, s], [y], version=2)   # the kernels register versions 2 and 3
    return _case(mb, [x], [y], seed, f"BROADCAST_TO {dt} {xs} -> {out}")


def g_fill(dt, k, seed):
    rng = np.random.default_rng(seed)
    out = _shape(rng, 1 + k % 4, 1, 5)
    mb = ModelBuilder()
    d = mb.tensor([len(out)], "int64" if k % 3 == 1 else "int32", data=np.array(out, np.int64))
    v = mb.tensor([], dt)
    y = mb.tensor(out, dt)
    mb.operator("FILL", [d, v], [y])
    return _case(mb, [v], [y], seed, f"FILL {dt} {out}")


def g_depth_to_space(dt, k, seed):
    rng = np.random.default_rng(seed)
    bs = int(rng.integers(1, 4))
    b, h, w, c = int(rng.integers(1, 3)), *_shape(rng, 2, 1, 4), int(rng.integers(1, 4)) * bs * bs
    q = _q(rng, dt)
    mb = ModelBuilder()
    x = mb.tensor([b, h, w, c], dt, **q)
    y = mb.tensor([b, h * bs, w * bs, c // (bs * bs)], dt, **q)
    mb.operator("DEPTH_TO_SPACE", [x], [y], {"block_size": bs})
    return _case(mb, [x], [y], seed, f"DEPTH_TO_SPACE {dt} {[b, h, w, c]} bs={bs}")


def g_space_to_depth(dt, k, seed):
    rng = np.random.default_rng(seed)
    bs = int(rng.integers(1, 4))
    b, h, w, c = int(rng.integers(1, 3)), *(v * bs for v in _shape(rng, 2, 1, 3)), int(rng.integers(1, 4))
    q = _q(rng, dt)
    mb = ModelBuilder()
    x = mb.tensor([b, h, w, c], dt, **q)
    y = mb.tensor([b, h // bs, w // bs, c * bs * bs], dt, **q)
    mb.operator("SPACE_TO_DEPTH", [x], [y], {"block_size": bs})
    return _case(mb, [x], [y], seed, f"SPACE_TO_DEPTH {dt} {[b, h, w, c]} bs={bs}")


def g_batch_to_space(dt, k, seed):
    rng = np.random.default_rng(seed)
    three = k % 4 == 3
    bh, bw = int(rng.integers(1, 4)), 1 if three else int(rng.integers(1, 4))
    ob, h, w, c = int(rng.integers(1, 3)), *_shape(rng, 2, 1, 4), int(rng.integers(1, 4))
    if three:
        w = 1
    ct, cb = (int(v) for v in rng.integers(0, bh, size=2))
    cl, cr = (0, 0) if three else (int(v) for v in rng.integers(0, bw, size=2))
    ct, cb = min(ct, h * bh - 1), 0
    cr = max(0, min(cr, w * bw - 1 - cl))   # a non-empty output (zero-sized tensors are refused)
    q = _q(rng, dt)
    mb = ModelBuilder()
    xs = [ob * bh * bw, h, c] if three else [ob * bh * bw, h, w, c]
    x = mb.tensor(xs, dt, **q)
    bl = mb.tensor([1 if three else 2], "int32", data=np.array([bh] if three else [bh, bw]))
    cr_ = mb.tensor([1 if three else 2, 2], "int32", data=np.array([[ct, cb]] if three else [[ct, cb], [cl, cr]]))
    ys = [ob, h * bh - ct - cb, c] if three else [ob, h * bh - ct - cb, w * bw - cl - cr, c]
    y = mb.tensor(ys, dt, **q)
    mb.operator("BATCH_TO_SPACE_ND", [x, bl, cr_], [y])
    return _case(mb, [x], [y], seed, f"BATCH_TO_SPACE_ND {dt} {xs} block={[bh, bw]} crops={[ct, cb, cl, cr]}")


def g_space_to_batch(dt, k, seed):
    rng = np.random.default_rng(seed)
    three = k % 4 == 3
    bh, bw = int(rng.integers(1, 4)), 1 if three else int(rng.integers(1, 4))
    b, c = int(rng.integers(1, 3)), int(rng.integers(1, 4))
    pt, pl = int(rng.integers(0, 3)), 0 if three else int(rng.integers(0, 3))
    h = int(rng.integers(1, 3)) * bh
    w = 1 if three else int(rng.integers(1, 3)) * bw
    pb = (-(h + pt)) % bh
    pr = 0 if three else (-(w + pl)) % bw
    q = _q(rng, dt)
    mb = ModelBuilder()
    xs = [b, h, c] if three else [b, h, w, c]
    x = mb.tensor(xs, dt, **q)
    bl = mb.tensor([1 if three else 2], "int32", data=np.array([bh] if three else [bh, bw]))
    pd = mb.tensor([1 if three else 2, 2], "int32", data=np.array([[pt, pb]] if three else [[pt, pb], [pl, pr]]))
    oh, ow = (h + pt + pb) // bh, (w + pl + pr) // bw
    ys = [b * bh * bw, oh, c] if three else [b * bh * bw, oh, ow, c]
    y = mb.tensor(ys, dt, **q)
    mb.operator("SPACE_TO_BATCH_ND", [x, bl, pd], [y])
    return _case(mb, [x], [y], seed, f"SPACE_TO_BATCH_ND {dt} {xs} block={[bh, bw]} pads={[pt, pb, pl, pr]} {q}")


def g_mirror_pad(dt, k, seed):
    rng = np.random.default_rng(seed)
    rank = 1 + k % 4
    shape = _shape(rng, rank, 1, 5)
    mode = "REFLECT" if k % 2 else "SYMMETRIC"
    off = 1 if mode == "REFLECT" else 0
    pads = [[int(rng.integers(0, n - off + 1)), int(rng.integers(0, n - off + 1))] for n in shape]
    q = _q(rng, dt)
    mb = ModelBuilder()
    x = mb.tensor(shape, dt, **q)
    p = mb.tensor([rank, 2], "int64" if k % 5 == 4 else "int32", data=np.array(pads))
    y = mb.tensor([n + a + b for n, (a, b) in zip(shape, pads)], dt, **q)
    mb.operator("MIRROR_PAD", [x, p], [y], {"mode": mode})
    return _case(mb, [x], [y], seed, f"MIRROR_PAD {dt} {shape} {mode} {pads}")


def g_reverse(dt, k, seed):
    rng = np.random.default_rng(seed)
    rank = 1 + k % 5
    shape = _shape(rng, rank, 1, 4)
    axis = int(rng.integers(-rank, rank))
    q = _q(rng, dt)
    mb = ModelBuilder()
    x = mb.tensor(shape, dt, **q)
    a = mb.tensor([1], "int32", data=np.array([axis]))
    y = mb.tensor(shape, dt, **q)
    mb.operator("REVERSE_V2", [x, a], [y])
    return _case(mb, [x], [y], seed, f"REVERSE_V2 {dt} {shape} axis={axis}")


def g_gather(dt, k, seed):
    rng = np.random.default_rng(seed)
    rank = 1 + k % 4
    shape = _shape(rng, rank, 1, 5)
    axis = int(rng.integers(0, rank))
    bd = int(rng.integers(0, axis + 1)) if k % 3 == 2 else 0
    ishape = shape[:bd] + _shape(rng, int(rng.integers(0, 3)), 1, 4)
    idt = "int64" if k % 4 == 1 else "int32"
    const = k % 5 == 4
    ids = rng.integers(0, shape[axis], size=ishape)
    q = _q(rng, dt)
    mb = ModelBuilder()
    x = mb.tensor(shape, dt, **q)
    i = mb.tensor(ishape, idt, data=ids if const else None)
    y = mb.tensor(shape[:axis] + ishape[bd:] + shape[axis + 1:], dt, **q)
    ax = axis - rank if k % 2 else axis
    mb.operator("GATHER", [x, i], [y], {"axis": ax, "batch_dims": bd})
    fixed = None if const else {1: ids}
    return _case(mb, [x] if const else [x, i], [y], seed, f"GATHER {dt} {shape} idx={ishape} axis={ax} bd={bd}"
                 f"{' const' if const else ''}", fixed)


def g_gather_nd(dt, k, seed):
    rng = np.random.default_rng(seed)
    rank = 1 + k % 4
    shape = _shape(rng, rank, 1, 4)
    nd = int(rng.integers(1, rank + 1))
    lead = _shape(rng, int(rng.integers(0, 3)), 1, 3)
    ids = np.stack([rng.integers(0, shape[d], size=lead) for d in range(nd)], axis=-1)
    idt = "int64" if k % 4 == 1 else "int32"
    q = _q(rng, dt)
    mb = ModelBuilder()
    x = mb.tensor(shape, dt, **q)
    i = mb.tensor(lead + [nd], idt)
    y = mb.tensor(lead + shape[nd:], dt, **q)
    mb.operator("GATHER_ND", [x, i], [y])
    return _case(mb, [x, i], [y], seed, f"GATHER_ND {dt} {shape} idx={lead + [nd]}", {1: ids})


def g_embedding(dt, k, seed):
    rng = np.random.default_rng(seed)
    rows = int(rng.integers(1, 8))
    tail = _shape(rng, 1 + k % 3, 1, 4)
    n = int(rng.integers(1, 6))
    ids = rng.integers(0, rows, size=n)
    mb = ModelBuilder()
    lk = mb.tensor([n], "int32")
    if dt == "hybrid":
        scale = float(rng.uniform(0.001, 0.1))   # per-row scales: refused (see docs/operators/shape.md)
        v = mb.tensor([rows] + tail, "int8", data=rng.integers(-128, 128, [rows] + tail), scale=scale,
                      zero_point=0)
        y = mb.tensor([n] + tail, "float32")
    else:
        q = _q(rng, dt)
        v = mb.tensor([rows] + tail, dt, **q)
        y = mb.tensor([n] + tail, dt, **q)
    mb.operator("EMBEDDING_LOOKUP", [lk, v], [y])
    ins = [lk] if dt == "hybrid" else [lk, v]
    return _case(mb, ins, [y], seed, f"EMBEDDING_LOOKUP {dt} rows={rows} {tail} ids={list(ids)}", {0: ids})


def g_dus(dt, k, seed):
    rng = np.random.default_rng(seed)
    rank = 1 + k % 4
    shape = _shape(rng, rank, 1, 5)
    ushape = [int(rng.integers(1, n + 1)) for n in shape]
    start = rng.integers(-3, 7, size=rank)   # out-of-range starts: the reference clamps
    q = _q(rng, dt)
    mb = ModelBuilder()
    x = mb.tensor(shape, dt, **q)
    u = mb.tensor(ushape, dt, **q)
    s = mb.tensor([rank], "int32")
    y = mb.tensor(shape, dt, **q)
    mb.operator("DYNAMIC_UPDATE_SLICE", [x, u, s], [y])
    return _case(mb, [x, u, s], [y], seed, f"DYNAMIC_UPDATE_SLICE {dt} {shape} upd={ushape} start={list(start)}",
                 {2: start})


def g_cumsum(dt, k, seed):
    rng = np.random.default_rng(seed)
    rank = 1 + k % 4
    shape = _shape(rng, rank, 1, 6)
    axis = int(rng.integers(-rank, rank))
    opts = {"exclusive": bool(k & 1), "reverse": bool(k & 2)}
    mb = ModelBuilder()
    x = mb.tensor(shape, dt)
    a = mb.tensor([], "int32", data=np.array(axis))
    y = mb.tensor(shape, dt)
    mb.operator("CUMSUM", [x, a], [y], opts)
    return _case(mb, [x], [y], seed, f"CUMSUM {dt} {shape} axis={axis} {opts}")


def g_cumsum_s8(k: int) -> Case:
    """CUMSUM int8 (TFLite Micro only; see test_cumsum_int8). Ranks 1-4, negative axes, the four
    exclusive / reverse combinations, zero points at the range ends, output scales from 1/8 to 64
    times the input's (the sums saturate the output), and every fifth case a long axis (17-40) of
    extreme values, where the reference's int32 sum overflows (it wraps)."""
    rng = np.random.default_rng(9100 + k)
    rank = 1 + k % 4
    shape = _shape(rng, rank, 1, 6)
    axis = int(rng.integers(-rank, rank))
    wrap = k % 5 == 4
    if wrap:
        shape[axis] = int(rng.integers(17, 41))
    opts = {"exclusive": bool(k & 1), "reverse": bool(k & 2)}
    zp_in = int(rng.choice([-128, 127])) if wrap else int(rng.choice([-128, 127, int(rng.integers(-128, 128))]))
    s_in = float(np.float32(rng.uniform(0.005, 0.5)))
    qi = {"scale": s_in, "zero_point": zp_in}
    qo = {"scale": float(np.float32(s_in * 2.0 ** rng.uniform(-3, 6))),
          "zero_point": int(rng.choice([-128, 127, int(rng.integers(-128, 128))]))}
    mb = ModelBuilder()
    x = mb.tensor(shape, "int8", **qi)
    a = mb.tensor([], "int32", data=np.array(axis))
    y = mb.tensor(shape, "int8", **qo)
    mb.operator("CUMSUM", [x, a], [y], opts)
    model = mb.build([x], [y])
    xs = rng.integers(-128, 128, size=shape).astype(np.int8)
    if wrap:   # mostly the extreme opposite the zero point: |x - zp| = 255
        far = np.int8(127 if zp_in == -128 else -128)
        xs = np.where(rng.random(shape) < 0.9, far, xs).astype(np.int8)
    return Case(model, [xs], f"CUMSUM int8 {shape} axis={axis} {opts} {qi} {qo} seed={k}")


def _resize(op, dt, k, seed):
    rng = np.random.default_rng(seed)
    b, h, w, c = int(rng.integers(1, 3)), *_shape(rng, 2, 1, 6), int(rng.integers(1, 4))
    oh, ow = _shape(rng, 2, 1, 9)
    mode = k % 3
    opts = {"align_corners": mode == 1, "half_pixel_centers": mode == 2}
    q = _q(rng, dt)
    mb = ModelBuilder()
    x = mb.tensor([b, h, w, c], dt, **q)
    s = mb.tensor([2], "int32", data=np.array([oh, ow]))
    y = mb.tensor([b, oh, ow, c], dt, **q)
    mb.operator(op, [x, s], [y], opts)
    return _case(mb, [x], [y], seed, f"{op} {dt} {[b, h, w, c]} -> {[oh, ow]} {opts}")


def g_resize_bilinear(dt, k, seed):
    return _resize("RESIZE_BILINEAR", dt, k, seed)


def g_resize_nearest(dt, k, seed):
    return _resize("RESIZE_NEAREST_NEIGHBOR", dt, k, seed)


def g_concat(dt, k, seed):
    rng = np.random.default_rng(seed)
    rank = 1 + k % 4
    shape = _shape(rng, rank, 1, 4)
    axis = int(rng.integers(-rank, rank))
    n = int(rng.integers(1, 4))
    mb = ModelBuilder()
    xs, total = [], 0
    for _ in range(n):
        s = list(shape)
        s[axis] = int(rng.integers(1, 4))
        total += s[axis]
        xs.append(mb.tensor(s, dt))
    out = list(shape)
    out[axis] = total
    y = mb.tensor(out, dt)
    mb.operator("CONCATENATION", xs, [y], {"axis": axis})
    return _case(mb, xs, [y], seed, f"CONCATENATION {dt} n={n} {shape} axis={axis}")


# (operator, generator, types the TFLite 2.14 reference runs that we support)
MOVE = ("int8", "int16", "int32", "int64", "float32", "bool")
NUM = ("int8", "int16", "int32", "int64", "float32")
OPS = {
    "TRANSPOSE": (g_transpose, MOVE),
    "SLICE": (g_slice, MOVE),
    "SPLIT": (g_split, ("int8", "int16", "int32", "float32")),
    "SPLIT_V": (g_split_v, NUM),
    "UNPACK": (g_unpack, ("int8", "int16", "int32", "float32", "bool")),
    "PACK": (g_pack, NUM),
    "EXPAND_DIMS": (g_expand_dims, MOVE),
    "SHAPE": (g_shape, ("int32", "int64")),
    "BROADCAST_ARGS": (g_broadcast_args, ("int32", "int64")),
    "BROADCAST_TO": (g_broadcast_to, MOVE),
    "FILL": (g_fill, MOVE),
    "DEPTH_TO_SPACE": (g_depth_to_space, ("int8", "int32", "int64", "float32")),
    "SPACE_TO_DEPTH": (g_space_to_depth, ("int8", "int32", "int64", "float32")),
    "BATCH_TO_SPACE_ND": (g_batch_to_space, NUM),
    "SPACE_TO_BATCH_ND": (g_space_to_batch, NUM),
    "MIRROR_PAD": (g_mirror_pad, NUM),
    "REVERSE_V2": (g_reverse, MOVE),
    "GATHER": (g_gather, MOVE),
    "GATHER_ND": (g_gather_nd, NUM),
    "EMBEDDING_LOOKUP": (g_embedding, ("int8", "float32", "hybrid")),
    "DYNAMIC_UPDATE_SLICE": (g_dus, ("int8", "int32", "int64", "float32", "bool")),
    "CUMSUM": (g_cumsum, ("int32", "int64", "float32")),
    "RESIZE_BILINEAR": (g_resize_bilinear, ("int8", "int16", "float32")),
    "RESIZE_NEAREST_NEIGHBOR": (g_resize_nearest, ("int8", "int16", "float32")),
    "CONCATENATION": (g_concat, ("int64", "bool")),
}


def cases_for(op: str, n: int) -> list[Case]:
    gen, dtypes = OPS[op]
    out = []
    for i, dt in enumerate(dtypes):
        for k in range(n):
            out.append(gen(dt, k, 7000 + 1000 * i + 37 * len(op) + k))
    return out


#: not registered by 2.14's reference resolver (BUILTIN_REF): the default resolver's kernels (which
#: for these operators are the reference code paths) are the oracle
BUILTIN_ORACLE = {"BROADCAST_TO", "CUMSUM"}


@pytest.mark.parametrize("op", sorted(OPS))
def test_conformance(op):
    cases = cases_for(op, CASES)
    res = check_against_oracle(cases, float_rtol=0.0, builtin=op in BUILTIN_ORACLE)
    print(f"{op}: {res['cases']} cases ({CASES} per type), {res['bit_exact']} bit-exact")
    assert res["bit_exact"] == res["cases"]


CUMSUM_S8_FULL, CUMSUM_S8_CI = 24, 4


def test_cumsum_int8():
    """CUMSUM int8 against TFLite Micro's interpreter, the oracle: TFLite 2.14's CUMSUM kernel takes
    float32, int32 and int64 only (TFLM: float32 and int8). Byte-identical."""
    from math_common import check, sample

    cases = sample([("CUMSUM", "int8", g_cumsum_s8(k)) for k in range(CUMSUM_S8_FULL)], CUMSUM_S8_CI)
    res = check(cases, engine="tflm")
    print(f"CUMSUM int8: {res['cases']} cases, {res['bit_exact']} bit-exact")
    assert res["bit_exact"] == res["cases"]


@pytest.mark.parametrize("dt,s_out,match", [
    ("int8", 1e-8, r"operator #0 CUMSUM: the output rescale factor 1\.9\d* must be below 1"),
    ("int16", 0.1, "input tensor .* is int16; supported: float32, int32, int64, int8"),
])
def test_cumsum_quantized_rejections(dt, s_out, match):
    """int8: 2 s_in / (2^20 s_out) must be below 1 (TFLM's QuantizeMultiplierSmallerThanOneExp aborts
    otherwise); int16: no reference kernel (TFLM: float32 and int8; TFLite: float32, int32, int64)."""
    def build(mb):
        x = mb.tensor([2, 3], dt, scale=0.01, zero_point=0)
        a = mb.tensor([], "int32", data=np.array(1))
        y = mb.tensor([2, 3], dt, scale=s_out, zero_point=0)
        mb.operator("CUMSUM", [x, a], [y])
        return [x], [y]
    _reject(build, match)


# ---- untrusted indices: what our C does where the reference fails ---------------------------------
def test_out_of_range_indices_write_zero_blocks():
    """GATHER / GATHER_ND / EMBEDDING_LOOKUP with run-time indices outside the range: the reference
    fails the invocation; our C writes that block as zero bytes and every other block as the
    reference (checked here against numpy), with no access outside the params (ASan/UBSan build)."""
    params = np.arange(1, 13, dtype=np.int8).reshape(4, 3)
    ids = np.array([1, -1, 4, 3, 2**31 - 1, -2**31], np.int32)
    mb = ModelBuilder()
    x = mb.tensor([4, 3], "int8")
    i = mb.tensor([6], "int32")
    y = mb.tensor([6, 3], "int8")
    mb.operator("GATHER", [x, i], [y], {"axis": 0})
    g_model = mb.build([x, i], [y])
    mb = ModelBuilder()
    x2 = mb.tensor([4, 3], "int8")
    i2 = mb.tensor([4, 2], "int64")
    y2 = mb.tensor([4], "int8")
    mb.operator("GATHER_ND", [x2, i2], [y2])
    nd_model = mb.build([x2, i2], [y2])
    # [-1, 4] -> flat position 1: valid, as in the reference, which checks only the flat position
    nd_ids = np.array([[1, 2], [-1, 4], [3, 3], [2**62, 0]], np.int64)
    mb = ModelBuilder()
    lk = mb.tensor([3], "int32")
    v = mb.tensor([4, 3], "int8", data=params, scale=0.5, zero_point=0)
    y3 = mb.tensor([3, 3], "float32")
    mb.operator("EMBEDDING_LOOKUP", [lk, v], [y3])
    emb_model = mb.build([lk], [y3])
    outs = run_cases([Case(g_model, [params, ids]), Case(nd_model, [params, nd_ids]),
                      Case(emb_model, [np.array([3, 4, -7], np.int32)])])
    want = np.zeros((6, 3), np.int8)
    want[0], want[3] = params[1], params[3]
    assert np.array_equal(outs[0][0], want)
    flat = params.ravel()
    assert list(outs[1][0]) == [flat[5], flat[1], 0, 0]
    want3 = np.stack([params[3] * np.float32(0.5), np.zeros(3), np.zeros(3)]).astype(np.float32)
    assert np.array_equal(outs[2][0], want3)


# ---- part 3: shape operators cost nothing ---------------------------------------------------------
def _calls(model: bytes) -> list[str]:
    from utvm_build.compiler import prepare_operators
    from utvm_build.frontend.tflite import read_tflite
    from utvm_build.passes import run_passes

    g = run_passes(read_tflite(model))
    return [kc.function for p in prepare_operators(g, "generic").values() for kc in p.calls]


def test_shape_operators_fold_to_constants():
    # SHAPE -> FILL(dims from SHAPE, constant value) -> TRANSPOSE -> ADD-free consumer: all constant
    mb = ModelBuilder()
    x = mb.tensor([2, 3], "float32")
    s = mb.tensor([2], "int32")
    mb.operator("SHAPE", [x], [s], {"out_type": "int32"})
    val = mb.tensor([], "float32", data=np.array(1.5, np.float32))
    f = mb.tensor([2, 3], "float32")
    mb.operator("FILL", [s, val], [f])
    p = mb.tensor([2], "int32", data=np.array([1, 0]))
    t = mb.tensor([3, 2], "float32")
    mb.operator("TRANSPOSE", [f, p], [t])
    xt = mb.tensor([3, 2], "float32")
    mb.operator("TRANSPOSE", [x, p], [xt])
    e = mb.tensor([1, 3, 2], "float32")
    ax = mb.tensor([], "int32", data=np.array(0))
    mb.operator("EXPAND_DIMS", [xt, ax], [e])
    y = mb.tensor([2, 3, 2], "float32")
    e2 = mb.tensor([1, 3, 2], "float32")
    mb.operator("EXPAND_DIMS", [t, ax], [e2])
    mb.operator("CONCATENATION", [e, e2], [y], {"axis": 0})
    model = mb.build([x], [y])
    # left: the transpose of the input and the concatenation; SHAPE, FILL, the constant TRANSPOSE
    # and both EXPAND_DIMS (aliases) need no code
    assert _calls(model) == ["utvm_gather_dims", "utvm_concatenation"]
    xin = np.arange(6, dtype=np.float32).reshape(2, 3)
    res = check_against_oracle([Case(model, [xin], "folded chain")], float_rtol=0.0)
    assert res["bit_exact"] == 1


def test_split_writes_only_read_outputs():
    mb = ModelBuilder()
    a = mb.tensor([], "int32", data=np.array(1))
    x = mb.tensor([2, 8], "int8")
    ys = [mb.tensor([2, 2], "int8") for _ in range(4)]
    mb.operator("SPLIT", [a, x], ys, {"num_splits": 4})
    model = mb.build([x], [ys[2]])
    compiled = compile_bytes(model, "m")
    assert compiled.metadata["workspace_bytes"] == 0
    ops_c = compiled.files["src/tvmgen_m_ops.c"].decode()
    assert ops_c.count("utvm_gather_dims(") == 1   # one call: the output that is read
    res = check_against_oracle([Case(model, [np.arange(16, dtype=np.int8).reshape(2, 8)], "split one")])
    assert res["bit_exact"] == 1


# ---- rejections: one line naming the operator and what is supported -------------------------------
def _reject(build, match: str) -> None:
    mb = ModelBuilder()
    ins, outs = build(mb)
    with pytest.raises(UnsupportedError, match=match) as e:
        compile_bytes(mb.build(ins, outs), "m")
    assert "\n" not in str(e.value)


def test_rejections():
    def transpose_bad_perm(mb):
        x, p, y = mb.tensor([2, 3], "int8"), mb.tensor([2], "int32", data=np.array([0, 0])), mb.tensor([2, 3], "int8")
        mb.operator("TRANSPOSE", [x, p], [y])
        return [x], [y]

    def split_int64(mb):
        a, x = mb.tensor([], "int32", data=np.array(0)), mb.tensor([2], "int64")
        ys = [mb.tensor([1], "int64") for _ in range(2)]
        mb.operator("SPLIT", [a, x], ys, {"num_splits": 2})
        return [x], ys

    def gather_const_oob(mb):
        x, i, y = mb.tensor([3], "float32"), mb.tensor([1], "int32", data=np.array([3])), mb.tensor([1], "float32")
        mb.operator("GATHER", [x, i], [y])
        return [x], [y]

    def resize_both(mb):
        x, s, y = mb.tensor([1, 2, 2, 1], "int8"), mb.tensor([2], "int32", data=np.array([4, 4])), \
            mb.tensor([1, 4, 4, 1], "int8")
        mb.operator("RESIZE_BILINEAR", [x, s], [y], {"align_corners": True, "half_pixel_centers": True})
        return [x], [y]

    def fill_runtime_dims(mb):
        d, v, y = mb.tensor([1], "int32"), mb.tensor([], "float32"), mb.tensor([3], "float32")
        mb.operator("FILL", [d, v], [y])
        return [d, v], [y]

    def mirror_too_wide(mb):
        x, p, y = mb.tensor([2], "float32"), mb.tensor([1, 2], "int32", data=np.array([[2, 0]])), \
            mb.tensor([4], "float32")
        mb.operator("MIRROR_PAD", [x, p], [y], {"mode": "REFLECT"})
        return [x], [y]

    def dus_int64_start(mb):
        x, u, s, y = mb.tensor([4], "int8"), mb.tensor([2], "int8"), mb.tensor([1], "int64"), mb.tensor([4], "int8")
        mb.operator("DYNAMIC_UPDATE_SLICE", [x, u, s], [y])
        return [x, u, s], [y]

    _reject(transpose_bad_perm, "not a permutation")
    _reject(split_int64, "int64; supported: int8, int16, int32, float32")
    _reject(gather_const_oob, "outside")
    _reject(resize_both, "cannot both be set")
    _reject(fill_runtime_dims, "must be a constant")
    _reject(mirror_too_wide, "exceeds what REFLECT allows")
    _reject(dus_int64_start, "start tensor")
