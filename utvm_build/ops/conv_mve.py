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


def conv_mve_call(geo, x: Tensor, w: Tensor, bias: Tensor | None, mult: np.ndarray, shift: np.ndarray,
                  fields: dict, target: str) -> KernelCall | None:
    """int8 CONV_2D with one group for a target whose kernels have utvm_conv2d_s8_mve, else None.

    Its data: the weights per block of 4 output channels and per 16 window bytes, 16 bytes of each
    channel (the window zero-padded to a multiple of 16, the channels to a multiple of 4); per
    block 12 int32: the folded bias, multiplier and shift of its channels."""
    if not has_mve_kernel(CONV_MVE_KERNEL, target):
        return None
    depth = geo.filter_h * geo.filter_w * geo.in_c
    depth16 = (depth + 15) // 16 * 16
    rows = w.data.astype(np.int8).reshape(geo.out_c, depth)
    folded = _bias(bias, geo.out_c) - x.quant.zp * rows.astype(np.int64).sum(axis=1)
    if not _fits32(folded):
        return None
    rows = np.pad(rows, ((0, (-geo.out_c) % 4), (0, depth16 - depth)))
    packed = rows.reshape(-1, 4, depth16 // 16, 16).transpose(0, 2, 1, 3).reshape(-1)
    rq = _blocks([folded, mult, shift], geo.out_c)
    p = Params("utvm_conv2d_mve_params", {
        "g": fields["g"], "input_zp": x.quant.zp, "output_offset": fields["output_offset"],
        "act_min": fields["act_min"], "act_max": fields["act_max"], "depth": depth, "depth16": depth16})
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
