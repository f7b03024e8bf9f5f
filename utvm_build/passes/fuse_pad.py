"""A PAD folded into the window of the CONV_2D / DEPTHWISE_CONV_2D that reads it: no padded copy.

TFLite's reference convolutions skip the taps outside the image (int8: a tap is
``(x + input_offset) * w`` with ``input_offset = -zero_point``, so a skipped tap is the same as a
tap on a value equal to the zero point; float32: a skipped tap is a tap on 0). A PAD whose pad
value is the input's zero point (int8, int16) or 0 (float32), followed by a VALID convolution,
therefore gives the same output as the convolution over the unpadded input with the PAD's
top/left rows and columns as its padding: the kernels take any top/left padding and clip the
bottom/right edges (``ops/conv.PAD_OPTION`` gives the geometry). The padded tensor disappears.

It applies when: the PAD pads only height and width of a 4-D tensor; its input and output have
the same quantisation (PAD copies raw values: the convolution then reads them with the same
offsets); the pad value is the zero point (PAD always; PADV2 when its constant is); its output is
read by one convolution only (VALID, input 0, not hybrid), is no model output and no state; and
no padding is as wide as the filter's extent (every window still touches the image, as with
SAME). AVERAGE_POOL_2D is not fused: the reference averages over the taps inside the image only,
while padded values count in the average after a PAD. Runs with --memory balanced|min;
docs/architecture.md ("Memory below the activation bound").
"""

from __future__ import annotations

import numpy as np

from ..graph import Graph, Operator
from ..ops.conv import PAD_OPTION, PATCH_OPTION
from ..ops.hybrid import is_hybrid

FUSED_INTO = ("CONV_2D", "DEPTHWISE_CONV_2D")


def _pads(g: Graph, pad: Operator) -> tuple[int, int, int, int] | None:
    """(top, bottom, left, right) of a PAD that pads only height and width with the zero point."""
    if pad.op not in ("PAD", "PADV2") or len(pad.outputs) != 1 or len(pad.inputs) < 2 or min(pad.inputs[:2]) < 0:
        return None
    x, paddings, out = g.tensors[pad.inputs[0]], g.tensors[pad.inputs[1]], g.tensors[pad.outputs[0]]
    if x.is_const or not paddings.is_const or len(x.shape) != 4 or x.dtype not in ("int8", "int16", "float32"):
        return None
    p = np.asarray(paddings.data).astype(np.int64)
    if p.shape != (4, 2) or np.any(p < 0) or np.any(p[0] != 0) or np.any(p[3] != 0):
        return None
    if (x.quant is None) != (out.quant is None):
        return None
    if x.quant is not None and (x.quant.per_channel or out.quant.per_channel or x.quant.zp != out.quant.zp
                                or np.float32(x.quant.s) != np.float32(out.quant.s)):
        return None
    zero = out.quant.zp if out.quant is not None else 0
    if len(pad.inputs) > 2 and pad.inputs[2] >= 0:   # PADV2: its constant must be that zero
        cv = g.tensors[pad.inputs[2]]
        if not cv.is_const or cv.size != 1 or float(np.asarray(cv.data).reshape(-1)[0]) != zero:
            return None
    return int(p[1][0]), int(p[1][1]), int(p[2][0]), int(p[2][1])


def _consumer(g: Graph, pad: Operator) -> Operator | None:
    """The one convolution that reads the PAD's output, when it may take the padding."""
    t = pad.outputs[0]
    tensor = g.tensors[t]
    if t in g.outputs or tensor.is_variable or g.storage_root(t) != t or t in g.aliases.values():
        return None
    readers = [op for op in g.operators for i in op.inputs if i == t]
    if len(readers) != 1:
        return None
    conv = readers[0]
    if (conv.op not in FUSED_INTO or conv.inputs[0] != t or conv.options.get("padding", "SAME") != "VALID"
            or PATCH_OPTION in conv.options or PAD_OPTION in conv.options or is_hybrid(conv, g)):
        return None
    return conv


def _extent(conv: Operator, g: Graph, axis: int) -> int:
    """The filter's extent along height (1) or width (2), dilation included."""
    w = g.tensors[conv.inputs[1]]
    dilation = int(conv.options.get("dilation_h_factor" if axis == 1 else "dilation_w_factor", 1))
    return (int(w.shape[axis]) - 1) * dilation + 1


def fuse_pads(g: Graph) -> list[dict]:
    """Fold every eligible PAD into its convolution; returns what was done (metadata.json) with
    the convolutions to prepare again (``"into"``: their operator indices)."""
    done: list[dict] = []
    if len(g.all_graphs) > 1:
        return done
    for pad in list(g.operators):
        pads = _pads(g, pad)
        conv = _consumer(g, pad) if pads is not None else None
        if conv is None:
            continue
        top, bottom, left, right = pads
        eh, ew = _extent(conv, g, 1), _extent(conv, g, 2)
        if max(top, bottom) >= eh or max(left, right) >= ew:   # a window wholly in the padding
            continue
        conv.inputs = [pad.inputs[0]] + conv.inputs[1:]
        conv.options = {**conv.options, PAD_OPTION: {"top": top, "bottom": bottom, "left": left, "right": right}}
        g.operators = [op for op in g.operators if op is not pad]
        done.append({"operator": pad.index, "op": pad.op, "into": conv.index, "into_op": conv.op,
                     "padding": [top, bottom, left, right], "tensor": g.tensors[pad.outputs[0]].name})
    return done
