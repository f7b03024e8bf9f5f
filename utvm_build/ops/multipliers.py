"""Requantization scales of the matrix-like operators (CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV,
FULLY_CONNECTED, BATCH_MATMUL), as TFLite's Prepare computes them. Below every handler that uses
them, so that no operator module imports another for its arithmetic."""

from __future__ import annotations

import numpy as np

from ..graph import Tensor
from ..quant import MAX_MULTIPLIER, MAX_MULTIPLIER_64, quantize_multiplier


def conv_multiplier(input_scale: float, filter_scale: float, output_scale: float) -> float:
    """TFLite GetQuantizedConvolutionMultipler: the product is taken in float32."""
    product = float(np.float32(input_scale) * np.float32(filter_scale))
    return product / float(np.float32(output_scale))


def unit_multipliers(x: Tensor, w: Tensor, out: Tensor, units: int) -> np.ndarray:
    """The rescale factor of every output unit (per-tensor weights: the same for all)."""
    if w.quant.per_channel:
        return real_multipliers(x, w, out, units)
    return np.full(units, conv_multiplier(x.quant.s, w.quant.s, out.quant.s), dtype=np.float64)


def per_channel_multipliers(x: Tensor, w: Tensor, out: Tensor, channels: int) -> tuple[np.ndarray, np.ndarray]:
    """PopulateConvolutionQuantizationParams: per output channel (multiplier, shift), int32 arrays.

    effective_output_scale = double(input_scale) * double(filter_scale) / double(output_scale),
    the scales being the float32 values stored in the model; a per-tensor filter scale is broadcast.
    """
    max_real = MAX_MULTIPLIER if x.dtype == "int8" else MAX_MULTIPLIER_64
    pairs = [quantize_multiplier(float(r), max_real) for r in real_multipliers(x, w, out, channels)]
    return (np.array([p[0] for p in pairs], dtype=np.int32), np.array([p[1] for p in pairs], dtype=np.int32))


def real_multipliers(x: Tensor, w: Tensor, out: Tensor, channels: int) -> np.ndarray:
    """The per-channel effective output scales, float64 (see per_channel_multipliers)."""
    s_in = float(np.float32(x.quant.s))
    s_out = float(np.float32(out.quant.s))
    scales = np.asarray(w.quant.scale, dtype=np.float32)
    if len(scales) == 1:
        scales = np.repeat(scales, channels)
    return np.array([s_in * float(sc) / s_out for sc in scales], dtype=np.float64)
