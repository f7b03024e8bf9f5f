"""Data movement by per-dimension offset tables (kernels/gather_dims.h), any element type.

Every operator here maps output element (i0, ..., ik) to the input element at
t0[i0] + ... + tk[ik]; the tables are computed at compile time from the reference kernels'
index arithmetic, so the C is one copy loop whatever the operator:

- TRANSPOSE (reference Transpose), SLICE (slice.cc: begin, size -1 = to the end), SPLIT, SPLIT_V
  and UNPACK (one call per output that is read: unread outputs are neither written nor given
  memory, see passes/fold.py), REVERSE_V2, BROADCAST_TO (broadcast dimensions repeat offset 0),
  MIRROR_PAD (mirror_pad.cc GetInputDimension, REFLECT and SYMMETRIC), DEPTH_TO_SPACE,
  SPACE_TO_DEPTH, BATCH_TO_SPACE_ND (crops), RESIZE_NEAREST_NEIGHBOR (GetNearestNeighbor in
  float32, align_corners and half_pixel_centers), GATHER with constant indices;
- PACK is a CONCATENATION of blocks (kernels/concatenation.h); CONCATENATION's bool type is in
  ops/concatenation.py.

The tables hold byte offsets; trailing dimensions that stay contiguous merge into one copy of
``run_bytes`` and adjacent dimensions that compose merge into one (a SPLIT is one table entry per
outer slice). Values move without requantization, as the reference copies them (only PACK's
Prepare asks int8/int16 inputs and output to share their quantization, and so does this).
"""

from __future__ import annotations

import numpy as np

from ..graph import Graph, Operator, Tensor
from .base import OpHandler, expect_const, expect_counts, expect_dtype, fail, out_tensor, register, tensor
from .call import Const, In, KernelCall, Out, Params, Prepared, call

MAX_DIMS = 6
_INT32_MAX = 2**31 - 1


def strides(shape) -> list[int]:
    out, acc = [0] * len(shape), 1
    for d in range(len(shape) - 1, -1, -1):
        out[d] = acc
        acc *= int(shape[d])
    return out


def gather_call(op: Operator, src: Tensor, tables: list[np.ndarray], k_in: int = 0, k_out: int = 0) -> KernelCall:
    """The utvm_gather_dims call for element-offset tables (one per output dimension)."""
    es = np.dtype(src.dtype).itemsize
    dims = [np.asarray(t, dtype=np.int64) * es for t in tables] or [np.zeros(1, np.int64)]
    if any(len(t) == 0 for t in dims):
        raise AssertionError("empty output has no call")
    if any(int(t.min()) < 0 for t in dims):
        raise fail(op, "an element offset falls before the input")
    run = es
    # merge trailing contiguous dimensions into the copy run
    while len(dims) > 1 and len(dims[-1]) > 1 and np.array_equal(dims[-1] - dims[-1][0],
                                                                  np.arange(len(dims[-1])) * run):
        base = int(dims[-1][0])
        run *= len(dims[-1])
        dims.pop()
        dims[-1] = dims[-1] + base
    if len(dims) == 1 and len(dims[0]) > 1 and np.array_equal(dims[0] - dims[0][0], np.arange(len(dims[0])) * run):
        run *= len(dims[0])
        dims = [dims[0][:1]]
    # merge adjacent composable dimensions: t_d = b0 + i*s*n, t_{d+1} = b1 + j*s
    d = len(dims) - 2
    while d >= 0:
        a, b = dims[d], dims[d + 1]
        n = len(b)
        if n > 1 and len(a) > 1:
            s = int(b[1] - b[0])
            if np.array_equal(b - b[0], np.arange(n) * s) and np.array_equal(a - a[0], np.arange(len(a)) * s * n):
                dims[d] = (a[0] + b[0]) + np.arange(len(a) * n, dtype=np.int64) * s
                dims.pop(d + 1)
        elif n == 1:
            dims[d] = a + b[0]
            dims.pop(d + 1)
        d -= 1
    if len(dims) > MAX_DIMS:
        raise fail(op, f"the movement needs {len(dims)} dimensions after merging; at most {MAX_DIMS} are supported")
    dims = [np.zeros(1, np.int64)] * (MAX_DIMS - len(dims)) + dims
    top = sum(int(t.max()) for t in dims) + run
    if top > src.nbytes or top > _INT32_MAX:
        raise fail(op, f"input tensor #{src.index} '{src.name}' is too small for the offsets (internal check)")
    first, acc = [], 0
    for t in dims:
        first.append(acc)
        acc += len(t)
    offsets = np.concatenate(dims).astype(np.int32)
    p = Params("utvm_gather_dims_params", {"count": [len(t) for t in dims], "first": first, "run_bytes": run},
               hint=f"move{k_out}")
    return call("utvm_gather_dims", p, Const(f"offsets{k_out}", offsets, "int32_t"), In(k_in), Out(k_out))


#: op.options key set by passes/fold.alias_unused_outputs: output positions nobody reads
UNUSED_OUTPUTS = "_utvm_unused_outputs"


def ints(op: Operator, g: Graph, k: int, role: str, dtypes=("int32", "int64")) -> list[int]:
    t = tensor(g, op, k, role)
    expect_dtype(op, t, dtypes, role)
    return [int(v) for v in np.asarray(expect_const(op, t, role)).ravel()]


def axis_of(op: Operator, value: int, rank: int, what: str = "axis") -> int:
    a = value + rank if value < 0 else value
    if not 0 <= a < rank:
        raise fail(op, f"{what} {value} is out of range for rank {rank}")
    return a


def same_quant(op: Operator, x: Tensor, y: Tensor, what: str = "output") -> None:
    """int8/int16 movement copies values: the output must share the input's quantization."""
    if x.dtype in ("int8", "int16") and x.quant is not None and y.quant is not None:
        if np.float32(x.quant.s) != np.float32(y.quant.s) or x.quant.zp != y.quant.zp:
            raise fail(op, f"{what} tensor #{y.index} '{y.name}' must have the input's scale and zero point "
                           "(the reference copies values unchanged)")


def check_shape(op: Operator, y: Tensor, want, k: int = 0) -> None:
    if list(y.shape) != [int(v) for v in want]:
        raise fail(op, f"output {k} shape {list(y.shape)} differs from the reference's {[int(v) for v in want]}")


ALL = ("int8", "int16", "int32", "int64", "float32", "bool")


class Movement(OpHandler):
    """Validates, then returns one gather_dims call per written output."""

    dtypes: tuple[str, ...] = ALL

    def tables(self, op: Operator, g: Graph) -> list[tuple[int, int, list[np.ndarray]]]:
        """[(input k, output k, element-offset tables)] for every output to write."""
        raise NotImplementedError

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        x = tensor(g, op, self.data_input)
        expect_dtype(op, x, self.dtypes, "input")
        for k in range(len(op.outputs)):
            y = out_tensor(g, op, k)
            expect_dtype(op, y, (x.dtype,), f"output {k}")
        plans = self.tables(op, g)
        calls = []
        for k_in, k_out, tabs in plans:
            y = out_tensor(g, op, k_out)
            if y.size == 0 or k_out in op.options.get(UNUSED_OUTPUTS, ()):
                continue
            calls.append(gather_call(op, tensor(g, op, k_in), tabs, k_in, k_out))
        return Prepared(calls)

    data_input = 0


@register("TRANSPOSE")
class Transpose(Movement):
    supported = "int8, int16, int32, int64, float32, bool; constant permutation, up to 6-D"

    def tables(self, op, g):
        expect_counts(op, 2)
        x, y = tensor(g, op, 0), out_tensor(g, op)
        perm = ints(op, g, 1, "permutation")
        rank = len(x.shape)
        if rank > 6:
            raise fail(op, f"input rank {rank} is not supported (at most 6, as the reference)")
        if sorted(perm) != list(range(rank)):
            raise fail(op, f"permutation {perm} is not a permutation of {rank} dimensions")
        check_shape(op, y, [x.shape[p] for p in perm])
        st = strides(x.shape)
        return [(0, 0, [np.arange(x.shape[p]) * st[p] for p in perm])]


@register("SLICE")
class Slice(Movement):
    supported = "int8, int16, int32, int64, float32, bool; constant begin and size (-1: to the end), up to 5-D"

    def tables(self, op, g):
        expect_counts(op, 3)
        x, y = tensor(g, op, 0), out_tensor(g, op)
        begin, size = ints(op, g, 1, "begin"), ints(op, g, 2, "size")
        rank = len(x.shape)
        if rank > 5 or len(begin) != rank or len(size) != rank:
            raise fail(op, f"begin {begin} and size {size} must have one entry per dimension (rank {rank}, at most 5)")
        want = []
        for d in range(rank):
            n = x.shape[d]
            s = n - begin[d] if size[d] == -1 else size[d]
            if begin[d] < 0 or s < 0 or begin[d] + s > n:
                raise fail(op, f"begin {begin[d]} size {size[d]} is outside dimension {d} of extent {n}")
            want.append(s)
        check_shape(op, y, want)
        st = strides(x.shape)
        return [(0, 0, [(begin[d] + np.arange(want[d])) * st[d] for d in range(rank)])]


def _split_tables(x: Tensor, axis: int, sizes: list[int]) -> list[tuple[int, int, list[np.ndarray]]]:
    st = strides(x.shape)
    out, start = [], 0
    for k, n in enumerate(sizes):
        shape = list(x.shape)
        shape[axis] = n
        tabs = [np.arange(shape[d]) * st[d] + (start * st[d] if d == axis else 0) for d in range(len(shape))]
        out.append((k, tabs))
        start += n
    return out


@register("SPLIT")
class Split(Movement):
    supported = "int8, int16, int32, float32; constant axis; only the outputs that are read are written"
    dtypes = ('int8', 'int16', 'int32', 'float32')
    data_input = 1

    def tables(self, op, g):
        x = tensor(g, op, 1)
        n = int(op.options.get("num_splits", 0))
        if len(op.inputs) != 2 or n < 1 or len(op.outputs) != n:
            raise fail(op, f"expected 2 inputs and num_splits ({n}) outputs, "
                           f"got {len(op.inputs)} and {len(op.outputs)}")
        ax = ints(op, g, 0, "axis", ("int32",))
        if len(ax) != 1:
            raise fail(op, "axis must be a single value")
        axis = axis_of(op, ax[0], len(x.shape))
        if x.shape[axis] % n:
            raise fail(op, f"dimension {axis} of extent {x.shape[axis]} does not split into {n} equal parts")
        sizes = [x.shape[axis] // n] * n
        return _split_outputs(op, g, x, axis, sizes, 1)


def _split_outputs(op: Operator, g: Graph, x: Tensor, axis: int, sizes: list[int], src: int) -> list:
    """SPLIT / SPLIT_V: each output's copy tables (from input ``src``), its shape checked."""
    res = []
    for k, tabs in _split_tables(x, axis, sizes):
        want = list(x.shape)
        want[axis] = sizes[k]
        check_shape(op, out_tensor(g, op, k), want, k)
        res.append((src, k, tabs))
    return res


@register("SPLIT_V")
class SplitV(Movement):
    supported = "int8, int16, int32, int64, float32; constant sizes (one may be -1) and axis"
    dtypes = ('int8', 'int16', 'int32', 'int64', 'float32')

    def tables(self, op, g):
        x = tensor(g, op, 0)
        if len(op.inputs) != 3 or len(op.outputs) < 1:
            raise fail(op, f"expected 3 inputs, got {len(op.inputs)}")
        sizes = ints(op, g, 1, "size_splits")
        ax = ints(op, g, 2, "axis", ("int32",))
        if len(ax) != 1:
            raise fail(op, "axis must be a single value")
        axis = axis_of(op, ax[0], len(x.shape))
        if len(sizes) != len(op.outputs) or int(op.options.get("num_splits", len(sizes))) != len(sizes):
            raise fail(op, f"{len(sizes)} split sizes for {len(op.outputs)} outputs")
        if sizes.count(-1) > 1 or any(s < -1 for s in sizes):
            raise fail(op, f"split sizes {sizes}: at most one -1, none below")
        if -1 in sizes:
            sizes[sizes.index(-1)] = x.shape[axis] - sum(s for s in sizes if s != -1)
        if sum(sizes) != x.shape[axis] or min(sizes) < 0:
            raise fail(op, f"split sizes {sizes} do not add up to dimension {axis} of extent {x.shape[axis]}")
        return _split_outputs(op, g, x, axis, sizes, 0)


@register("UNPACK")
class Unpack(Movement):
    supported = "int8, int16, int32, float32, bool; any axis"
    dtypes = ('int8', 'int16', 'int32', 'float32', 'bool')

    def tables(self, op, g):
        x = tensor(g, op, 0)
        rank = len(x.shape)
        axis = axis_of(op, int(op.options.get("axis", 0)), rank)
        n = int(op.options.get("num", 0))
        if len(op.inputs) != 1 or n != x.shape[axis] or len(op.outputs) != n:
            raise fail(op, f"num {n} and {len(op.outputs)} outputs must equal dimension {axis} ({x.shape[axis]})")
        st = strides(x.shape)
        res = []
        for k in range(n):
            want = [x.shape[d] for d in range(rank) if d != axis]
            check_shape(op, out_tensor(g, op, k), want, k)
            tabs = [np.arange(x.shape[d]) * st[d] for d in range(rank) if d != axis] or [np.zeros(1, np.int64)]
            tabs[0] = tabs[0] + k * st[axis]
            res.append((0, k, tabs))
        return res


@register("REVERSE_V2")
class Reverse(Movement):
    supported = "int8, uint8, int16, int32, int64, float32, bool; constant axes, up to 8-D"
    dtypes = ALL + ("uint8",)   # a byte move: TFLite Micro's kernel takes uint8 too

    def tables(self, op, g):
        expect_counts(op, 2)
        x, y = tensor(g, op, 0), out_tensor(g, op)
        rank = len(x.shape)
        axes = {axis_of(op, a, rank) for a in ints(op, g, 1, "axis")}
        check_shape(op, y, x.shape)
        st = strides(x.shape)
        return [(0, 0, [(np.arange(x.shape[d])[::-1] if d in axes else np.arange(x.shape[d])) * st[d]
                        for d in range(rank)])]


@register("BROADCAST_TO")
class BroadcastTo(Movement):
    supported = "int8, uint8, int16, int32, int64, uint32, float32, bool; constant shape, up to 8-D"
    dtypes = ALL + ("uint8", "uint32")   # a byte move: TFLite Micro's kernel takes these too

    def tables(self, op, g):
        expect_counts(op, 2)
        x, y = tensor(g, op, 0), out_tensor(g, op)
        shape = ints(op, g, 1, "shape")
        if len(shape) > 8 or len(shape) < len(x.shape):
            raise fail(op, f"shape {shape} has fewer dimensions than the input or more than 8")
        xs = [1] * (len(shape) - len(x.shape)) + list(x.shape)
        for a, b in zip(xs, shape):
            if a != b and a != 1:
                raise fail(op, f"input shape {list(x.shape)} does not broadcast to {shape}")
        check_shape(op, y, shape)
        st = strides(xs)
        return [(0, 0, [np.arange(n) * st[d] if xs[d] == n else np.zeros(n, np.int64) for d, n in enumerate(shape)])]


@register("MIRROR_PAD")
class MirrorPad(Movement):
    supported = "int8, int16, int32, int64, float32; REFLECT and SYMMETRIC, constant paddings"

    dtypes = ("int8", "int16", "int32", "int64", "float32")

    def tables(self, op, g):
        expect_counts(op, 2)
        x, y = tensor(g, op, 0), out_tensor(g, op)
        rank = len(x.shape)
        pads = ints(op, g, 1, "paddings")
        if len(pads) != 2 * rank:
            raise fail(op, f"paddings must be [{rank}, 2]")
        mode = op.options.get("mode", "REFLECT")
        offset = 1 if mode in ("REFLECT", 0) else 0
        st = strides(x.shape)
        tabs, want = [], []
        for d in range(rank):
            n, lo, hi = x.shape[d], pads[2 * d], pads[2 * d + 1]
            if lo < 0 or hi < 0 or lo > n - offset or hi > n - offset:
                raise fail(op, f"padding [{lo}, {hi}] of dimension {d} (extent {n}) exceeds what {mode} allows")
            idx = []
            for i in range(n + lo + hi):
                if i < lo:
                    orig = lo + offset - 1
                    v = orig - min(i, orig - offset)
                elif i - lo >= n:
                    j = i - lo - n
                    orig = n - (1 + offset)
                    v = orig - min(j, orig)
                else:
                    v = i - lo
                idx.append(v)
            if idx and (min(idx) < 0 or max(idx) >= n):
                raise fail(op, f"padding of dimension {d} reads outside the input")
            tabs.append(np.array(idx, np.int64) * st[d])
            want.append(n + lo + hi)
        check_shape(op, y, want)
        return [(0, 0, tabs)]


def _block(op: Operator) -> int:
    bs = int(op.options.get("block_size", 0))
    if bs < 1:
        raise fail(op, f"block_size {bs} must be at least 1")
    return bs


@register("DEPTH_TO_SPACE")
class DepthToSpace(Movement):
    supported = "int8, int32, int64, float32; 4-D NHWC"
    dtypes = ('int8', 'int32', 'int64', 'float32')

    def tables(self, op, g):
        expect_counts(op, 1)
        x, y = tensor(g, op, 0), out_tensor(g, op)
        bs = _block(op)
        if len(x.shape) != 4 or x.shape[3] % (bs * bs):
            raise fail(op, f"input {list(x.shape)} must be 4-D with depth divisible by block_size^2 ({bs * bs})")
        b, h, w, c = x.shape
        od = c // (bs * bs)
        check_shape(op, y, [b, h * bs, w * bs, od])
        st = strides(x.shape)
        oh, ow = np.arange(h * bs), np.arange(w * bs)
        return [(0, 0, [np.arange(b) * st[0], (oh // bs) * st[1] + (oh % bs) * bs * od,
                        (ow // bs) * st[2] + (ow % bs) * od, np.arange(od)])]


@register("SPACE_TO_DEPTH")
class SpaceToDepth(Movement):
    supported = "int8, int32, int64, float32; 4-D NHWC"
    dtypes = ('int8', 'int32', 'int64', 'float32')

    def tables(self, op, g):
        expect_counts(op, 1)
        x, y = tensor(g, op, 0), out_tensor(g, op)
        bs = _block(op)
        if len(x.shape) != 4 or x.shape[1] % bs or x.shape[2] % bs:
            raise fail(op, f"input {list(x.shape)} must be 4-D with height and width divisible by {bs}")
        b, h, w, c = x.shape
        check_shape(op, y, [b, h // bs, w // bs, c * bs * bs])
        st = strides(x.shape)
        od = np.arange(c * bs * bs)
        blk = od // c
        return [(0, 0, [np.arange(b) * st[0], np.arange(h // bs) * bs * st[1], np.arange(w // bs) * bs * st[2],
                        (od % c) + (blk // bs) * st[1] + (blk % bs) * st[2]])]


def _spatial(op: Operator, g: Graph, x: Tensor, what: str) -> tuple[list[int], list[int], list[int]]:
    """The 4-D view (3-D inputs: [batch, h, 1, depth]), block [bh, bw] and pads/crops [t, b, l, r]."""
    rank = len(x.shape)
    if rank not in (3, 4):
        raise fail(op, f"input rank {rank} is not supported (3 or 4, as the reference)")
    block = ints(op, g, 1, "block_shape", ("int32",))
    pads = ints(op, g, 2, what, ("int32",))
    if len(block) != rank - 2 or len(pads) != 2 * (rank - 2):
        raise fail(op, f"block_shape {block} and {what} {pads} must cover the {rank - 2} spatial dimensions")
    if min(block) < 1 or min(pads) < 0:
        raise fail(op, f"block_shape {block} must be >= 1 and {what} {pads} >= 0")
    if rank == 3:
        return [x.shape[0], x.shape[1], 1, x.shape[2]], [block[0], 1], [pads[0], pads[1], 0, 0]
    return list(x.shape), block, pads


@register("BATCH_TO_SPACE_ND")
class BatchToSpace(Movement):
    supported = "int8, int16, int32, int64, float32; 3-D or 4-D, constant block shape and crops"
    dtypes = ('int8', 'int16', 'int32', 'int64', 'float32')

    def tables(self, op, g):
        expect_counts(op, 3)
        x, y = tensor(g, op, 0), out_tensor(g, op)
        (b, h, w, c), (bh, bw), (ct, cb, cl, cr) = _spatial(op, g, x, "crops")
        if b % (bh * bw):
            raise fail(op, f"batch {b} is not a multiple of the block size {bh * bw}")
        ob, oh, ow = b // (bh * bw), h * bh - ct - cb, w * bw - cl - cr
        if oh < 0 or ow < 0:
            raise fail(op, "the crops are larger than the output")
        want = [ob, oh, ow, c] if len(x.shape) == 4 else [ob, oh, c]
        check_shape(op, y, want)
        st = strides([b, h, w, c])
        hf, wf = np.arange(oh) + ct, np.arange(ow) + cl
        tabs = [np.arange(ob) * st[0], (hf % bh) * bw * ob * st[0] + (hf // bh) * st[1],
                (wf % bw) * ob * st[0] + (wf // bw) * st[2], np.arange(c)]
        if len(x.shape) == 3:
            tabs = [tabs[0], tabs[1] + tabs[2][0] if ow else tabs[1], tabs[3]]
        return [(0, 0, tabs)]


@register("RESIZE_NEAREST_NEIGHBOR")
class ResizeNearest(Movement):
    supported = "int8, int16, float32; align_corners, half_pixel_centers, constant size"
    dtypes = ('int8', 'int16', 'float32')

    def tables(self, op, g):
        expect_counts(op, 2)
        x, y = tensor(g, op, 0), out_tensor(g, op)
        size = ints(op, g, 1, "size", ("int32",))
        if len(x.shape) != 4 or len(size) != 2 or min(size) < 1:
            raise fail(op, f"input must be 4-D and size two positive values, got {list(x.shape)} and {size}")
        b, h, w, c = x.shape
        check_shape(op, y, [b, size[0], size[1], c])
        ac = bool(op.options.get("align_corners", False))
        hp = bool(op.options.get("half_pixel_centers", False))
        st = strides(x.shape)
        return [(0, 0, [np.arange(b) * st[0], nearest(size[0], h, ac, hp) * st[1],
                        nearest(size[1], w, ac, hp) * st[2], np.arange(c)])]


def nearest(out_size: int, in_size: int, align_corners: bool, half_pixel: bool) -> np.ndarray:
    """reference GetNearestNeighbor for every output index, in float32 as the reference."""
    f32 = np.float32
    if align_corners and out_size > 1:
        scale = f32(in_size - 1) / f32(out_size - 1)
    else:
        scale = f32(in_size) / f32(out_size)
    off = f32(0.5) if half_pixel else f32(0.0)
    res = []
    for i in range(out_size):
        v = (f32(i) + off) * scale
        if align_corners:
            r = int(np.trunc(np.sign(v) * np.floor(np.abs(v) + f32(0.5))))   # std::round: half away from zero
        else:
            r = int(np.floor(v))
        r = min(r, in_size - 1)
        if half_pixel:
            r = max(0, r)
        res.append(r)
    return np.array(res, np.int64)


@register("PACK")
class Pack(OpHandler):
    supported = "int8, int16, int32, int64, float32; any axis"

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        n = int(op.options.get("values_count", 0))
        if len(op.inputs) < 1 or len(op.inputs) != n or len(op.outputs) != 1:
            raise fail(op, f"values_count {n} must equal the {len(op.inputs)} inputs (and 1 output)")
        ins = [tensor(g, op, k) for k in range(n)]
        y = out_tensor(g, op)
        expect_dtype(op, ins[0], ("int8", "int16", "int32", "int64", "float32"), "input")
        rank = len(ins[0].shape)
        axis = axis_of(op, int(op.options.get("axis", 0)), rank + 1)
        for k, t in enumerate(ins):
            expect_dtype(op, t, (ins[0].dtype,), f"input {k}")
            if t.shape != ins[0].shape:
                raise fail(op, f"input {k} shape {list(t.shape)} differs from input 0 {list(ins[0].shape)}")
            same_quant(op, t, y, "output")
        expect_dtype(op, y, (ins[0].dtype,), "output")
        want = list(ins[0].shape)
        want.insert(axis, n)
        check_shape(op, y, want)
        if y.size == 0:
            return Prepared()
        outer = int(np.prod(want[:axis], dtype=np.int64))
        block = int(np.prod(ins[0].shape[axis:], dtype=np.int64)) * np.dtype(y.dtype).itemsize
        from .call import PtrArray
        p = Params("utvm_concat_params", {"outer": outer, "count": n})
        return Prepared([call("utvm_concatenation", p, PtrArray(tuple(In(k) for k in range(n)), "ins"),
                              Const("block_bytes", np.full(n, block, np.int32), "int32_t"), Out(0))])


@register("SPACE_TO_BATCH_ND")
class SpaceToBatch(OpHandler):
    supported = "int8, int16, int32, int64, float32; 3-D or 4-D, constant block shape and paddings"

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        expect_counts(op, 3)
        x, y = tensor(g, op, 0), out_tensor(g, op)
        expect_dtype(op, x, ("int8", "int16", "int32", "int64", "float32"), "input")
        expect_dtype(op, y, (x.dtype,), "output")
        (b, h, w, c), (bh, bw), (pt, pb, pl, pr) = _spatial(op, g, x, "paddings")
        if (h + pt + pb) % bh or (w + pl + pr) % bw:
            raise fail(op, f"padded spatial size is not a multiple of block_shape {[bh, bw]}")
        ob, oh, ow = b * bh * bw, (h + pt + pb) // bh, (w + pl + pr) // bw
        check_shape(op, y, [ob, oh, ow, c] if len(x.shape) == 4 else [ob, oh, c])
        if y.size == 0:
            return Prepared()
        # space_to_batch_nd.cc: the pad value is the output zero point (int8) or 0, memset byte-wise
        pad = y.quant.zp if (y.quant is not None and x.dtype in ("int8", "int16")) else 0
        es = np.dtype(x.dtype).itemsize
        p = Params("utvm_space_to_batch_params", {
            "in_batch": b, "in_h": h, "in_w": w, "out_batch": ob, "out_h": oh, "out_w": ow, "block_h": bh,
            "block_w": bw, "pad_top": pt, "pad_left": pl, "depth_bytes": c * es, "pad_byte": int(pad) & 0xFF})
        return Prepared([call("utvm_space_to_batch", p, In(0), Out(0))])
