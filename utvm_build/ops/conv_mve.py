"""The Helium (MVE) targets' int8 CONV_2D and DEPTHWISE_CONV_2D calls (kernels/arm_mve/).

Which kernel a target has comes from the kernel table (``kernel_table.spec(fn, target)``): for
targets whose kernel folders hold ``conv2d_s8_mve.h`` / ``depthwise_conv2d_s8_mve.h``
(cortex-m55, cortex-m85, cortex-m52) ``ops/conv.py`` calls these builders before the DSP ones;
each returns None where its kernel does not apply, and the next rule decides.

Both fold the input offset into the bias at compile time (bias - zp * sum of the channel's
weights, kept in int32 or the kernel is not used) and give the requantization constants per block
of 4 output channels, as the kernels read them with one vector load each.
"""

from __future__ import annotations

import numpy as np

from ..graph import Tensor
from ..selection import offers
from .call import Const, In, KernelCall, Out, Params, Scratch, call

#: int8 CONV_2D with one group (kernels/arm_mve/conv2d_s8_mve.h).
CONV_MVE_KERNEL = "utvm_conv2d_s8_mve"
#: int8 DEPTHWISE_CONV_2D (kernels/arm_mve/depthwise_conv2d_s8_mve.h).
DW_MVE_KERNEL = "utvm_depthwise_conv2d_s8_mve"


def has_mve_kernel(fn: str, target: str) -> bool:
    """The target's Helium path ``fn``, unless a tuning record's variant excludes it for this layer."""
    return offers(fn, target)


def _blocks(cols: list[np.ndarray], channels: int) -> np.ndarray:
    """Per-channel int64 columns as int32, per block of 4 channels each column's 4 values
    (channels padded with zeros to a multiple of 4)."""
    pad = (-channels) % 4
    stacked = np.stack([np.pad(c.astype(np.int64), (0, pad)) for c in cols])  # [col][channel]
    return stacked.reshape(len(cols), -1, 4).transpose(1, 0, 2).reshape(-1).astype(np.int32)


def _bias(bias: Tensor | None, channels: int) -> np.ndarray:
    return np.zeros(channels, np.int64) if bias is None else bias.data.astype(np.int64).reshape(-1)


def _fits32(v: np.ndarray) -> bool:
    return bool(np.all((v >= -2**31) & (v < 2**31)))


def row_padded(filter_h: int, filter_w: int, in_c: int, dilation_w: int, out_c: int) -> bool:
    """Whether CONV_2D takes the row-padded window layout (kernels/arm_mve/conv2d_s8_mve.h): each
    filter row of fewer than 16 bytes padded to one vector, so that windows inside the image are
    read in place (no im2col) at the price of the vector steps the padding adds.

    The rule weighs the two per output pixel, in instructions (measured on the kernel at -Os): a
    vector step is about 7 per pixel and block of 4 channels (14 for the pixel pair), gathering a
    window about 40 plus 25 per filter row. ResNet-8's and VWW's 3x3 x 3 first layers and
    person_detect's 3x3 x 1 take it; KWS's 10x4 x 1 does not (10 steps against 3)."""
    seg = filter_w * in_c
    if seg >= 16 or dilation_w != 1 or filter_h * filter_w == 1:
        return False
    extra = filter_h - (filter_h * seg + 15) // 16
    return extra * ((out_c + 3) // 4) * 7 < 40 + 25 * filter_h


def conv_mve_call(geo, x: Tensor, w: Tensor, bias: Tensor | None, mult: np.ndarray, shift: np.ndarray,
                  fields: dict, target: str) -> KernelCall | None:
    """int8 CONV_2D with one group for a target whose kernels have utvm_conv2d_s8_mve, else None.

    Its data: the weights per block of 4 output channels and per 16 window bytes, 16 bytes of each
    channel (the window zero-padded to a multiple of 16, or each filter row to 16 in the row-padded
    layout, ``row_padded``; the channels to a multiple of 4); per block 12 int32: the folded bias,
    multiplier and shift of its channels."""
    if not has_mve_kernel(CONV_MVE_KERNEL, target):
        return None
    seg = geo.filter_w * geo.in_c
    depth = geo.filter_h * seg
    rows = w.data.astype(np.int8).reshape(geo.out_c, depth)
    folded = _bias(bias, geo.out_c) - x.quant.zp * rows.astype(np.int64).sum(axis=1)
    if not _fits32(folded):
        return None
    row_bytes = seg
    if row_padded(geo.filter_h, geo.filter_w, geo.in_c, geo.dilation_w, geo.out_c):
        # each filter row zero-padded to 16 bytes: the window is filter_h vectors
        row_bytes = 16
        rows = np.pad(rows.reshape(geo.out_c, geo.filter_h, seg), ((0, 0), (0, 0), (0, 16 - seg)))
        depth = geo.filter_h * 16
        rows = rows.reshape(geo.out_c, depth)
    depth16 = (depth + 15) // 16 * 16
    rows = np.pad(rows, ((0, (-geo.out_c) % 4), (0, depth16 - depth)))
    packed = rows.reshape(-1, 4, depth16 // 16, 16).transpose(0, 2, 1, 3).reshape(-1)
    rq = _blocks([folded, mult, shift], geo.out_c)
    p = Params("utvm_conv2d_mve_params", {
        "g": fields["g"], "input_zp": x.quant.zp, "output_offset": fields["output_offset"],
        "act_min": fields["act_min"], "act_max": fields["act_max"], "depth": depth, "depth16": depth16,
        "row_bytes": row_bytes})
    return call(CONV_MVE_KERNEL, p, In(0), Const("weights_mve", np.ascontiguousarray(packed), "int8_t"),
                Const("requant", rq, "int32_t"), Scratch("void"), Out(0))


def depthwise_mve_call(geo, x: Tensor, w: Tensor, bias: Tensor | None, mult: np.ndarray, shift: np.ndarray,
                       fields: dict, target: str) -> KernelCall | None:
    """int8 DEPTHWISE_CONV_2D (any depth multiplier) for a target whose kernels have
    utvm_depthwise_conv2d_s8_mve, else None.

    Its data: the weights per block of 8 channels, per tap the block's 8 weights (the model's
    bytes re-ordered, channels padded to a multiple of 8); per block 24 int32: the folded bias, the
    multiplier and the shift of its even channels, then of its odd channels, per column."""
    if not has_mve_kernel(DW_MVE_KERNEL, target):
        return None
    taps = geo.filter_h * geo.filter_w
    wt = w.data.astype(np.int8).reshape(taps, geo.out_c)  # [tap][channel]
    folded = _bias(bias, geo.out_c) - x.quant.zp * wt.astype(np.int64).sum(axis=0)
    if not _fits32(folded):
        return None
    pad = (-geo.out_c) % 8
    wt = np.pad(wt, ((0, 0), (0, pad)))
    packed = wt.reshape(taps, -1, 8).transpose(1, 0, 2).reshape(-1)
    # per block of 8 channels: each column as its 4 even then its 4 odd channels (the kernel's
    # VMULLB / VMULLT halves)
    cols = np.stack([np.pad(c.astype(np.int64), (0, pad)) for c in (folded, mult, shift)])
    rq = cols.reshape(3, -1, 4, 2).transpose(1, 0, 3, 2).reshape(-1).astype(np.int32)
    p = Params("utvm_dw_mve_params", {
        "g": fields["g"], "input_zp": x.quant.zp, "output_offset": fields["output_offset"],
        "act_min": fields["act_min"], "act_max": fields["act_max"]})
    return call(DW_MVE_KERNEL, p, In(0), Const("weights_mve", np.ascontiguousarray(packed), "int8_t"),
                Const("requant", rq, "int32_t"), Out(0))
