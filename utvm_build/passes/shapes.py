"""Dynamic shapes resolved at compile time.

A model converted with a dynamic batch (Keras' default) marks tensors whose shape depends on it
with ``-1`` in ``shape_signature``; the converter then stores ``1`` in ``shape`` for each unknown
dimension, which is right for a batch dimension but not for e.g. a Tensordot reshape's
``[batch * sequence, features]`` (stored as ``[1, 1]``). The model's inputs are static here (run at
batch 1, ``frontend/tflite.py``), so every such shape is a function of them: this pass walks the
operators in execution order and recomputes each dynamic output from its (now static) inputs,
interleaved with constant folding so that a shape computed at run time by SHAPE / GATHER /
REDUCE_PROD / PACK becomes a constant before the RESHAPE that uses it. A tensor that stays dynamic
is refused in one line naming it and the operator that makes it.

Operators without a shape function keep the converter's stored shape; their handlers check
their output shapes against their inputs (``prepare``), so a wrong stored shape is refused there.
"""

from __future__ import annotations

import numpy as np

from ..errors import UnsupportedError
from ..graph import Graph, Operator, Tensor

_SAME_SHAPE = {
    "RELU", "RELU6", "RELU_N1_TO_1", "RELU_0_TO_1", "LOGISTIC", "TANH", "SOFTMAX", "LOG_SOFTMAX", "QUANTIZE",
    "DEQUANTIZE", "LEAKY_RELU", "HARD_SWISH", "ABS", "NEG", "RSQRT", "SQRT", "EXP", "LOG", "SQUARE", "CAST",
    "ELU", "ZEROS_LIKE", "L2_NORMALIZATION", "FLOOR", "CEIL", "ROUND", "SIN", "COS", "LOGICAL_NOT", "SIGN",
}
_BROADCAST = {
    "ADD", "SUB", "MUL", "DIV", "MAXIMUM", "MINIMUM", "SQUARED_DIFFERENCE", "EQUAL", "NOT_EQUAL", "GREATER",
    "GREATER_EQUAL", "LESS", "LESS_EQUAL", "LOGICAL_AND", "LOGICAL_OR", "FLOOR_DIV", "FLOOR_MOD", "POW",
    "SELECT_V2", "PRELU",
}
_REDUCE = {"MEAN", "SUM", "REDUCE_MAX", "REDUCE_MIN", "REDUCE_PROD", "REDUCE_ANY", "REDUCE_ALL"}
#: int32/int64 arithmetic on constants: shape computations (numpy has the reference's semantics here)
_ARITH = {"REDUCE_PROD": None, "MUL": np.multiply, "ADD": np.add, "SUB": np.subtract,
          "FLOOR_DIV": np.floor_divide, "MAXIMUM": np.maximum, "MINIMUM": np.minimum}


def _const(g: Graph, op: Operator, k: int) -> np.ndarray | None:
    t = g.input_tensor(op, k)
    return None if t is None or not t.is_const else np.asarray(t.data)


def _axes(values: np.ndarray | None, rank: int) -> list[int] | None:
    if values is None:
        return None
    axes = sorted({int(a) + rank if int(a) < 0 else int(a) for a in np.ravel(values)})
    return axes if all(0 <= a < rank for a in axes) else None


def _reshape(op: Operator, g: Graph, x: Tensor) -> tuple[int, ...] | None:
    shape = _const(g, op, 1)
    want = [int(v) for v in np.ravel(shape)] if shape is not None else op.options.get("new_shape")
    if want is None:
        return None
    want = [int(v) for v in want]
    if want.count(-1) == 1:
        known = int(np.prod([v for v in want if v != -1], dtype=np.int64))
        if known <= 0 or x.size % known:
            return None
        want[want.index(-1)] = x.size // known
    if any(v < 0 for v in want) or int(np.prod(want, dtype=np.int64)) != x.size:
        return None
    return tuple(want)


def _output_shapes(op: Operator, g: Graph) -> list[tuple[int, ...]] | None:
    """The output shapes of ``op`` from its static inputs, or None when not known here."""
    ins = [g.input_tensor(op, k) for k in range(len(op.inputs))]
    x = ins[0] if ins else None
    name = op.op
    if x is None:
        return None
    if name in _SAME_SHAPE:
        return [x.shape]
    if name in _BROADCAST:
        try:
            return [tuple(np.broadcast_shapes(*(t.shape for t in ins if t is not None)))]
        except ValueError:
            return None
    if name in ("RESHAPE",):
        s = _reshape(op, g, x)
        return None if s is None else [s]
    if name == "SHAPE":
        return [(len(x.shape),)]
    if name == "FULLY_CONNECTED" and len(ins) > 1 and ins[1] is not None and len(ins[1].shape) == 2:
        units, depth = ins[1].shape
        if op.options.get("keep_num_dims"):
            return [(*x.shape[:-1], units)]
        return [(x.size // depth, units)] if depth and x.size % depth == 0 else None
    if name == "BATCH_MATMUL" and len(ins) > 1 and ins[1] is not None:
        a, b = x.shape, ins[1].shape
        if len(a) < 2 or len(b) < 2:
            return None
        m = a[-1] if op.options.get("adj_x") else a[-2]
        n = b[-2] if op.options.get("adj_y") else b[-1]
        try:
            batch = tuple(np.broadcast_shapes(a[:-2], b[:-2]))
        except ValueError:
            return None
        return [(*batch, m, n)]
    if name == "TRANSPOSE":
        perm = _const(g, op, 1)
        if perm is None or sorted(int(p) for p in np.ravel(perm)) != list(range(len(x.shape))):
            return None
        return [tuple(x.shape[int(p)] for p in np.ravel(perm))]
    if name in _REDUCE:
        axes = _axes(_const(g, op, 1), len(x.shape))
        if axes is None:
            return None
        if op.options.get("keep_dims"):
            return [tuple(1 if d in axes else n for d, n in enumerate(x.shape))]
        return [tuple(n for d, n in enumerate(x.shape) if d not in axes)]
    if name == "CONCATENATION":
        axis = int(op.options.get("axis", 0))
        axis += len(x.shape) if axis < 0 else 0
        if not 0 <= axis < len(x.shape) or any(t is None or len(t.shape) != len(x.shape) for t in ins):
            return None
        return [(*x.shape[:axis], sum(t.shape[axis] for t in ins), *x.shape[axis + 1:])]
    if name == "PACK":
        axis = int(op.options.get("axis", 0))
        axis += len(x.shape) + 1 if axis < 0 else 0
        if not 0 <= axis <= len(x.shape):
            return None
        return [(*x.shape[:axis], len(ins), *x.shape[axis:])]
    if name == "GATHER" and len(ins) > 1 and ins[1] is not None and not op.options.get("batch_dims"):
        axis = int(op.options.get("axis", 0))
        axis += len(x.shape) if axis < 0 else 0
        if not 0 <= axis < len(x.shape):
            return None
        return [(*x.shape[:axis], *ins[1].shape, *x.shape[axis + 1:])]
    if name == "EXPAND_DIMS":
        axis = _const(g, op, 1)
        if axis is None or np.size(axis) != 1:
            return None
        a = int(np.ravel(axis)[0])
        a += len(x.shape) + 1 if a < 0 else 0
        return [(*x.shape[:a], 1, *x.shape[a:])] if 0 <= a <= len(x.shape) else None
    if name == "SQUEEZE":
        dims = op.options.get("squeeze_dims") or [d for d, n in enumerate(x.shape) if n == 1]
        axes = _axes(np.asarray(dims), len(x.shape))
        return None if axes is None else [tuple(n for d, n in enumerate(x.shape) if d not in axes)]
    return None


def _signature_allows(t: Tensor, shape: tuple[int, ...]) -> bool:
    sig = t.shape_signature
    return sig is None or (len(sig) == len(shape) and all(s < 0 or s == n for s, n in zip(sig, shape)))


#: outputs of TFLite_Detection_PostProcess: at most this many detection slots are sized here
_MAX_DETECTION_SLOTS = 1 << 16


def _prepare_sized(op: Operator, g: Graph) -> list[tuple[int, ...]] | None:
    """Output shapes an operator's kernel sets in Prepare whatever the model stores, or None.

    TFLite_Detection_PostProcess resizes its four outputs to [1, M, 4], [1, M], [1, M], [1] with
    M = max_detections x max_classes_per_detection (detection_postprocess.cc); TensorFlow's MLIR
    converter stores [] for them (the Object Detection API's placeholder function returns scalars).
    Options that are not small positive integers are left to the handler's one-line error."""
    if op.op != "CUSTOM(TFLite_Detection_PostProcess)" or len(op.outputs) != 4:
        return None
    md, mc = op.options.get("max_detections"), op.options.get("max_classes_per_detection")
    if not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in (md, mc)):
        return None
    m = md * mc
    if m > _MAX_DETECTION_SLOTS or any(g.tensors[i].is_const for i in op.outputs):
        return None
    return [(1, m, 4), (1, m), (1, m), (1,)]


def resolve_op_shapes(op: Operator, g: Graph) -> None:
    """Recompute the dynamic outputs of ``op`` from its static inputs (in place)."""
    outs = [g.tensors[i] for i in op.outputs]
    sized = _prepare_sized(op, g)
    if sized is not None:
        for t, shape in zip(outs, sized):
            t.shape, t.dynamic = shape, False
        return
    if not any(t.dynamic for t in outs):
        return
    if any(t is not None and t.dynamic for t in (g.input_tensor(op, k) for k in range(len(op.inputs)))):
        return
    shapes = _output_shapes(op, g)
    if shapes is None:
        if op.op in _SAME_SHAPE | _BROADCAST | _REDUCE | {"RESHAPE", "FULLY_CONNECTED", "BATCH_MATMUL",
                                                          "TRANSPOSE", "CONCATENATION", "PACK", "GATHER"}:
            return   # known operator, unknowable shape: stays dynamic and is reported
        for t in outs:   # no shape function: the stored shape, checked by the operator's handler
            t.dynamic = False
        return
    for t, shape in zip(outs, shapes):
        if t.dynamic and _signature_allows(t, shape):
            t.shape = tuple(int(d) for d in shape)
            t.dynamic = False


def fold_shape_arithmetic(op: Operator, g: Graph) -> bool:
    """Evaluate integer arithmetic on constants (shape computations): True if ``op`` was folded."""
    if op.op not in _ARITH or len(op.outputs) != 1:
        return False
    out = g.tensors[op.outputs[0]]
    ins = [g.input_tensor(op, k) for k in range(len(op.inputs))]
    if out.dtype not in ("int32", "int64") or out.dynamic or op.outputs[0] in g.outputs or \
            any(t is None or not t.is_const or t.dtype != out.dtype for t in ins[:2]):
        return False
    if op.options.get("fused_activation_function", "NONE") != "NONE":
        return False
    with np.errstate(all="ignore"):
        if op.op == "REDUCE_PROD":
            axes = _axes(ins[1].data if len(ins) > 1 else None, len(ins[0].shape))
            if axes is None:
                return False
            value = np.prod(ins[0].data, axis=tuple(axes), keepdims=bool(op.options.get("keep_dims")))
        else:
            if op.op == "FLOOR_DIV" and np.any(ins[1].data == 0):
                return False
            value = _ARITH[op.op](ins[0].data, ins[1].data)
    value = np.asarray(value).astype(out.dtype)
    if value.shape != tuple(out.shape):
        return False
    out.data = value
    return True


def check_resolved(g: Graph) -> None:
    """Refuse a model with a tensor whose shape stayed dynamic, naming it and its producer."""
    for op in g.operators:
        for i in op.outputs:
            t = g.tensors[i]
            if t.dynamic:
                raise UnsupportedError(
                    f"tensor #{t.index} '{t.name}' has a dynamic shape {list(t.shape_signature or [])} that cannot "
                    "be resolved at compile time (convert the model with fixed input sizes, e.g. batch 1)",
                    op_index=op.index, op_name=op.op)
