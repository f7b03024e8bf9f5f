"""The four MLPerf Tiny v1.0 reference networks, re-created with deterministic synthetic int8 weights.

Architectures follow github.com/mlcommons/tiny, ``benchmark/training/*`` (and the paper "MLPerf Tiny
Benchmark", Banbury et al., 2021), as the TFLite converter turns them into fully int8 models:
BatchNorm folded into the preceding convolution / dense layer, ReLU fused into it, Dropout gone,
``Flatten`` a RESHAPE, ``Dense(..., activation='softmax')`` a FULLY_CONNECTED followed by SOFTMAX.

==================  ==========================================================  ==============
name                network                                                     input (int8)
==================  ==========================================================  ==============
``kws_dscnn``       DS-CNN-S: conv 10x4/2 -> 64, 4 x (dw 3x3 + pw 64), avg pool   [1,49,10,1]
                    24x5 (``final_pool_size`` = (int(49/2), int(10/2))), FC 12,
                    softmax
``vww_mobilenet``   MobileNetV1 alpha 0.25 (vww_model.py: 8..256 filters, 13       [1,96,96,3]
                    depthwise-separable blocks), avg pool 3x3, FC 2, softmax
``ic_resnet8``      ResNet-8 v1 (keras_model.py ``resnet_v1_eembc``, 16/32/64      [1,32,32,3]
                    filters, 1x1/2 shortcut convs), avg pool 8x8, FC 10, softmax
``ad_autoencoder``  FC autoencoder 640-128x4-8-128x4-640 (ReLU, no final act.)   [1,640]
==================  ==========================================================  ==============

Quantization is what the converter produces for int8 (``TFLITE_BUILTINS_INT8``, int8 input and
output): activations per-tensor, asymmetric (ReLU outputs have zero point -128); CONV_2D and
DEPTHWISE_CONV_2D weights per-channel symmetric (zero point 0, quantized dimension 0 resp. 3);
FULLY_CONNECTED weights per-tensor symmetric (as the converters of the MLPerf Tiny reference models
made them; recent converters quantize dense weights per channel); int32 biases with scale
input_scale * weight_scale; AVERAGE_POOL_2D and RESHAPE keep their input's quantization; SOFTMAX
outputs scale 1/256, zero point -128. Input quantization is chosen, not copied from the real models:
images scale 1/255, zero point -128 (pixels in [0, 1]); MFCCs scale 0.5, zero point 83; the
autoencoder's log-mel features scale 0.25, zero point -20.

Weights are synthetic: He-normal float weights from ``numpy.random.default_rng`` with a fixed seed,
quantized as above. Biases and output scales are calibrated layer by layer on a fixed batch of
uniformly random int8 inputs (the distribution the conformance tests feed): each layer's bias
centres its int32 accumulator (median per output channel, plus a little per-channel noise, the way
folded BatchNorm shifts a trained layer), and its output scale / zero point spans the 0.05..99.95 %
quantiles of the resulting real values (0.5..99.5 % for the autoencoder), so every layer uses most
of the int8 range without saturating. The logits layer is scaled so that the softmax stays soft (its
outputs change with the input). Calibration runs in numpy with exact integer arithmetic (float64
holding integers below 2**53, elementwise float ops, sort-based quantiles), so the model bytes do
not depend on BLAS, CPU or thread count: the same call always returns byte-identical bytes (given
numpy's ``Generator`` streams, which numpy keeps stable across releases barring bug fixes).

API::

    MODELS["kws_dscnn"]() -> bytes       # one .tflite model
    write_models(out_dir) -> {name: Path}

CLI (from the repository root)::

    python -m benchmarks.mlperf_tiny --out DIR

The models are built with the repository's test-suite TFLite writer, ``tests/tflite_writer.py``;
importing this module puts the repository's ``tests/`` directory on ``sys.path`` (at the end, so it
shadows nothing) to make ``import tflite_writer`` work. It needs ``numpy``, ``flatbuffers`` and the
``tflite`` schema package (the test extras of the project).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

_TESTS_DIR = Path(__file__).resolve().parents[1] / "tests"
if str(_TESTS_DIR) not in sys.path:
    sys.path.append(str(_TESTS_DIR))

from tflite_writer import ModelBuilder  # noqa: E402  (needs the tests dir on sys.path)

__all__ = ["MODELS", "SEED", "build_model", "weight_bytes", "write_models"]

#: base seed; each model draws from ``default_rng([SEED, model number])``
SEED = 20210607
#: calibration batch size per model (random int8 inputs)
_CALIB_BATCH = {"kws_dscnn": 8, "vww_mobilenet": 4, "ic_resnet8": 8, "ad_autoencoder": 64}
#: output range = [quantile q, quantile 1 - q] of the real values on the calibration batch; the
#: autoencoder's decoder (fed by 8 ReLU units) has heavy tails, a 0.05 % clip would waste half its range
_CLIP_QUANTILE = {"kws_dscnn": 0.0005, "vww_mobilenet": 0.0005, "ic_resnet8": 0.0005, "ad_autoencoder": 0.005}
_BIAS_NOISE = 0.5               # per-channel bias offset, in half inter-quantile (16..84 %) spreads
_LOGIT_RANGE = 4.0              # |logit| (clip quantile) before the softmax, in real units


# ---------------------------------------------------------------- helpers
def _quantile(a: np.ndarray, q: float) -> float:
    """Order statistic (no interpolation, no float reduction): deterministic everywhere."""
    flat = np.asarray(a).ravel()
    k = int(round(q * (flat.size - 1)))
    return float(np.partition(flat, k)[k])


def _channel_quantile(a: np.ndarray, q: float) -> np.ndarray:
    """Per-channel order statistic over all but the last axis."""
    m = np.asarray(a).reshape(-1, a.shape[-1])
    k = int(round(q * (m.shape[0] - 1)))
    return np.partition(m, k, axis=0)[k]


def _f32(x: float | np.ndarray) -> np.ndarray:
    return np.asarray(x, dtype=np.float32)


def _same_padding(size: int, kernel: int, stride: int) -> tuple[int, int, int]:
    """(output size, pad before, pad after) of TF's 'SAME' padding."""
    out = -(-size // stride)
    total = max((out - 1) * stride + kernel - size, 0)
    return out, total // 2, total - total // 2


@dataclass
class _Act:
    """An activation tensor: its index in the model and its calibration values."""

    index: int
    shape: tuple[int, ...]   # the model's shape (batch 1)
    scale: float             # float32 value
    zp: int
    q: np.ndarray            # int8 calibration batch, [N, *shape[1:]]

    def centred(self) -> np.ndarray:
        """q - zero point as float64 (exact integers)."""
        return self.q.astype(np.float64) - self.zp


class _Net:
    """ModelBuilder plus a numpy simulation of the int8 network on a calibration batch."""

    def __init__(self, name: str, number: int, description: str) -> None:
        self.name = name
        self.mb = ModelBuilder(f"MLPerf Tiny {name}: {description}; synthetic int8 weights, seed "
                               f"[{SEED}, {number}] (utvm-build benchmarks/mlperf_tiny.py)")
        self.rng = np.random.default_rng([SEED, number])
        self.batch = _CALIB_BATCH[name]
        self.clip = _CLIP_QUANTILE[name]
        self.param_bytes = 0
        self.first = -1    # model input tensor
        self.output = -1   # model output tensor

    # ------------------------------------------------------------ tensors
    def input(self, shape: Sequence[int], scale: float, zp: int) -> _Act:
        shape = tuple(shape)
        idx = self.mb.tensor(shape, "int8", scale=float(scale), zero_point=zp, name="input")
        q = self.rng.integers(-128, 127, size=(self.batch, *shape[1:]), dtype=np.int8, endpoint=True)
        self.first = idx
        return _Act(idx, shape, float(_f32(scale)), zp, q)

    def _const(self, name: str, data: np.ndarray, dtype: str, scale: np.ndarray, zp_count: int,
               qdim: int = 0) -> int:
        self.param_bytes += data.size * np.dtype(dtype).itemsize
        sc = [float(s) for s in np.atleast_1d(scale)]
        return self.mb.tensor(data.shape, dtype, data=data, scale=sc if len(sc) > 1 else sc[0],
                              zero_point=[0] * zp_count if zp_count > 1 else 0, quantized_dimension=qdim,
                              name=name)

    def _weights(self, shape: tuple[int, ...], fan_in: int, channel_axis: int | None) -> tuple[np.ndarray, np.ndarray]:
        """He-normal float weights, symmetric int8 quantization per channel (or per tensor)."""
        w = self.rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)
        if channel_axis is None:
            amax = np.array([np.max(np.abs(w))])
            scale = _f32(amax / 127.0)
            q = np.clip(np.round(w / float(scale[0])), -127, 127)
        else:
            axes = tuple(a for a in range(w.ndim) if a != channel_axis)
            amax = np.max(np.abs(w), axis=axes)
            scale = _f32(amax / 127.0)
            bshape = [1] * w.ndim
            bshape[channel_axis] = -1
            q = np.clip(np.round(w / scale.astype(np.float64).reshape(bshape)), -127, 127)
        return q.astype(np.int8), scale

    def _bias(self, acc: np.ndarray) -> np.ndarray:
        """int32 bias centring each output channel's accumulator (a folded BatchNorm's shift)."""
        med = _channel_quantile(acc, 0.5)
        spread = (_channel_quantile(acc, 0.84) - _channel_quantile(acc, 0.16)) / 2.0
        noise = self.rng.standard_normal(acc.shape[-1]) * _BIAS_NOISE
        return np.round(-med + noise * spread).astype(np.int64)

    def _output(self, name: str, shape: tuple[int, ...], real: np.ndarray, act: str) -> _Act:
        """Choose the output quantization from the real values, quantize them, add the tensor."""
        if act == "RELU":
            real = np.maximum(real, 0.0)
        lo = min(_quantile(real, self.clip), 0.0)
        hi = max(_quantile(real, 1.0 - self.clip), 0.0)
        if act == "RELU":
            lo = 0.0
        if hi - lo <= 0.0:
            hi = lo + 1.0
        scale = float(_f32((hi - lo) / 255.0))
        zp = -128 if act == "RELU" else int(np.clip(np.round(-128.0 - lo / scale), -128, 127))
        q = np.clip(np.round(real / scale) + zp, -128, 127).astype(np.int8)
        idx = self.mb.tensor(shape, "int8", scale=scale, zero_point=zp, name=name)
        return _Act(idx, shape, scale, zp, q)

    # ------------------------------------------------------------ layers
    def conv(self, name: str, x: _Act, filters: int, kernel: tuple[int, int], stride: int = 1,
             act: str = "RELU") -> _Act:
        _, h, w, cin = x.shape
        kh, kw = kernel
        wq, wscale = self._weights((filters, kh, kw, cin), kh * kw * cin, channel_axis=0)
        oh, pt, pb = _same_padding(h, kh, stride)
        ow, pl, pr = _same_padding(w, kw, stride)
        xp = np.pad(x.centred(), ((0, 0), (pt, pb), (pl, pr), (0, 0)))
        wf = wq.astype(np.float64)
        acc = np.zeros((self.batch, oh, ow, filters))
        for i in range(kh):
            for j in range(kw):
                patch = xp[:, i:i + stride * (oh - 1) + 1:stride, j:j + stride * (ow - 1) + 1:stride, :]
                acc += patch @ wf[:, i, j, :].T  # integer-valued float64: exact in any order
        return self._finish_conv("CONV_2D", name, x, wq, wscale, acc, (1, oh, ow, filters), stride, act, qdim=0)

    def depthwise(self, name: str, x: _Act, kernel: tuple[int, int] = (3, 3), stride: int = 1,
                  act: str = "RELU") -> _Act:
        _, h, w, c = x.shape
        kh, kw = kernel
        wq, wscale = self._weights((1, kh, kw, c), kh * kw, channel_axis=3)
        oh, pt, pb = _same_padding(h, kh, stride)
        ow, pl, pr = _same_padding(w, kw, stride)
        xp = np.pad(x.centred(), ((0, 0), (pt, pb), (pl, pr), (0, 0)))
        wf = wq.astype(np.float64)
        acc = np.zeros((self.batch, oh, ow, c))
        for i in range(kh):
            for j in range(kw):
                acc += xp[:, i:i + stride * (oh - 1) + 1:stride, j:j + stride * (ow - 1) + 1:stride, :] * wf[0, i, j]
        return self._finish_conv("DEPTHWISE_CONV_2D", name, x, wq, wscale, acc, (1, oh, ow, c), stride, act, qdim=3)

    def _finish_conv(self, op: str, name: str, x: _Act, wq: np.ndarray, wscale: np.ndarray, acc: np.ndarray,
                     out_shape: tuple[int, ...], stride: int, act: str, qdim: int) -> _Act:
        bias = self._bias(acc)
        bscale = _f32(_f32(x.scale) * wscale)
        real = (acc + bias) * (x.scale * wscale.astype(np.float64))
        channels = len(wscale)
        w_idx = self._const(f"{name}/weights", wq, "int8", wscale, channels, qdim)
        b_idx = self._const(f"{name}/bias", bias.astype(np.int32), "int32", bscale, channels)
        out = self._output(name, out_shape, real, act)
        self.mb.operator(op, [x.index, w_idx, b_idx], [out.index],
                         {"padding": "SAME", "stride_h": stride, "stride_w": stride,
                          "fused_activation_function": act})
        return out

    def dense(self, name: str, x: _Act, units: int, act: str = "RELU", logits: bool = False) -> _Act:
        k = x.shape[-1]
        wq, wscale = self._weights((units, k), k, channel_axis=None)
        acc = x.centred().reshape(self.batch, k) @ wq.astype(np.float64).T
        bias = self._bias(acc)
        if logits:  # rescale the (synthetic) weights so the softmax input spans about +-_LOGIT_RANGE
            span = max(_quantile(np.abs(acc + bias), 1.0 - self.clip), 1.0)
            wscale = _f32([_LOGIT_RANGE / (span * x.scale)])
        bscale = _f32(_f32(x.scale) * wscale)
        real = (acc + bias) * (x.scale * float(wscale[0]))
        w_idx = self._const(f"{name}/weights", wq, "int8", wscale, 1)
        b_idx = self._const(f"{name}/bias", bias.astype(np.int32), "int32", bscale, 1)
        out = self._output(name, (1, units), real, act)
        self.mb.operator("FULLY_CONNECTED", [x.index, w_idx, b_idx], [out.index],
                         {"fused_activation_function": act})
        return out

    def add(self, name: str, a: _Act, b: _Act, act: str = "RELU") -> _Act:
        real = a.centred() * a.scale + b.centred() * b.scale
        out = self._output(name, a.shape, real, act)
        self.mb.operator("ADD", [a.index, b.index], [out.index],
                         {"fused_activation_function": act, "pot_scale_int16": True})
        return out

    def avg_pool(self, name: str, x: _Act, pool: tuple[int, int]) -> _Act:
        """VALID average pooling with stride = pool size (Keras' default); same quantization."""
        _, h, w, c = x.shape
        ph, pw = pool
        oh, ow = (h - ph) // ph + 1, (w - pw) // pw + 1
        q = np.empty((self.batch, oh, ow, c), dtype=np.int8)
        n = ph * pw
        for i in range(oh):
            for j in range(ow):
                s = x.q[:, i * ph:(i + 1) * ph, j * pw:(j + 1) * pw, :].astype(np.int64).sum(axis=(1, 2))
                # reference_integer_ops::AveragePool: round half away from zero on the raw values
                q[:, i, j, :] = np.where(s > 0, (s + n // 2) // n, -((-s + n // 2) // n))
        idx = self.mb.tensor((1, oh, ow, c), "int8", scale=x.scale, zero_point=x.zp, name=name)
        self.mb.operator("AVERAGE_POOL_2D", [x.index], [idx],
                         {"padding": "VALID", "stride_h": ph, "stride_w": pw,
                          "filter_height": ph, "filter_width": pw, "fused_activation_function": "NONE"})
        return _Act(idx, (1, oh, ow, c), x.scale, x.zp, q)

    def flatten(self, name: str, x: _Act) -> _Act:
        n = int(np.prod(x.shape))
        shape_idx = self.mb.tensor([2], "int32", data=np.array([1, n], dtype=np.int32), name=f"{name}/shape")
        idx = self.mb.tensor((1, n), "int8", scale=x.scale, zero_point=x.zp, name=name)
        self.mb.operator("RESHAPE", [x.index, shape_idx], [idx])
        return _Act(idx, (1, n), x.scale, x.zp, x.q.reshape(self.batch, n))

    def softmax(self, name: str, x: _Act) -> int:
        idx = self.mb.tensor(x.shape, "int8", scale=1.0 / 256.0, zero_point=-128, name=name)
        self.mb.operator("SOFTMAX", [x.index], [idx], {"beta": 1.0})
        return idx

    def build(self) -> bytes:
        return self.mb.build(inputs=[self.first], outputs=[self.output])


# ---------------------------------------------------------------- the networks
def _kws_dscnn() -> _Net:
    """benchmark/training/keyword_spotting/keras_model.py, model_name 'ds_cnn' (DS-CNN-S)."""
    net = _Net("kws_dscnn", 1, "keyword spotting, DS-CNN-S, 49x10 MFCC -> 12 classes")
    x0 = net.input((1, 49, 10, 1), scale=0.5, zp=83)
    x = net.conv("conv1", x0, 64, (10, 4), stride=2)
    for k in range(1, 5):
        x = net.depthwise(f"block{k}/depthwise", x)
        x = net.conv(f"block{k}/pointwise", x, 64, (1, 1))
    x = net.avg_pool("avg_pool", x, (24, 5))  # final_pool_size = (int(49/2), int(10/2))
    x = net.flatten("flatten", x)
    x = net.dense("dense", x, 12, act="NONE", logits=True)
    net.output = net.softmax("softmax", x)
    return net


def _vww_mobilenet() -> _Net:
    """benchmark/training/visual_wake_words/vww_model.py ``mobilenet_v1`` (alpha 0.25, 96x96)."""
    net = _Net("vww_mobilenet", 2, "visual wake words, MobileNetV1 alpha 0.25, 96x96x3 -> 2 classes")
    x0 = net.input((1, 96, 96, 3), scale=1.0 / 255.0, zp=-128)
    x = net.conv("conv1", x0, 8, (3, 3), stride=2)
    # (stride of the depthwise conv, pointwise filters) of the 13 depthwise-separable blocks
    blocks = [(1, 16), (2, 32), (1, 32), (2, 64), (1, 64), (2, 128),
              (1, 128), (1, 128), (1, 128), (1, 128), (1, 128), (2, 256), (1, 256)]
    for k, (stride, filters) in enumerate(blocks, start=2):
        x = net.depthwise(f"block{k}/depthwise", x, stride=stride)
        x = net.conv(f"block{k}/pointwise", x, filters, (1, 1))
    x = net.avg_pool("avg_pool", x, (3, 3))
    x = net.flatten("flatten", x)
    x = net.dense("dense", x, 2, act="NONE", logits=True)
    net.output = net.softmax("softmax", x)
    return net


def _ic_resnet8() -> _Net:
    """benchmark/training/image_classification/keras_model.py ``resnet_v1_eembc`` (16 filters)."""
    net = _Net("ic_resnet8", 3, "image classification, ResNet-8, 32x32x3 -> 10 classes")
    x0 = net.input((1, 32, 32, 3), scale=1.0 / 255.0, zp=-128)
    x = net.conv("conv1", x0, 16, (3, 3))
    for stack, filters in enumerate((16, 32, 64), start=1):
        stride = 1 if stack == 1 else 2
        y = net.conv(f"stack{stack}/conv1", x, filters, (3, 3), stride=stride)
        y = net.conv(f"stack{stack}/conv2", y, filters, (3, 3), act="NONE")
        if stack > 1:  # the 1x1 shortcut is defined after the weight layers in keras_model.py
            x = net.conv(f"stack{stack}/shortcut", x, filters, (1, 1), stride=stride, act="NONE")
        x = net.add(f"stack{stack}/add", x, y)
    x = net.avg_pool("avg_pool", x, (8, 8))
    x = net.flatten("flatten", x)
    x = net.dense("dense", x, 10, act="NONE", logits=True)
    net.output = net.softmax("softmax", x)
    return net


def _ad_autoencoder() -> _Net:
    """benchmark/training/anomaly_detection/keras_model.py ``get_model(640)``."""
    net = _Net("ad_autoencoder", 4, "anomaly detection, FC autoencoder 640-128x4-8-128x4-640")
    x0 = net.input((1, 640), scale=0.25, zp=-20)
    x = x0
    for k, units in enumerate((128, 128, 128, 128, 8, 128, 128, 128, 128), start=1):
        x = net.dense(f"dense{k}", x, units)
    out = net.dense("dense10", x, 640, act="NONE")
    net.output = out.index
    return net


_BUILDERS: dict[str, Callable[[], _Net]] = {
    "kws_dscnn": _kws_dscnn,
    "vww_mobilenet": _vww_mobilenet,
    "ic_resnet8": _ic_resnet8,
    "ad_autoencoder": _ad_autoencoder,
}


def build_model(name: str) -> bytes:
    """The .tflite bytes of one network (deterministic)."""
    return _BUILDERS[name]().build()


def weight_bytes(name: str) -> int:
    """Bytes of the network's weights and biases (int8 weights + int32 biases; shape operands excluded)."""
    return _BUILDERS[name]().param_bytes


def _maker(name: str) -> Callable[[], bytes]:
    def make() -> bytes:
        return build_model(name)

    make.__name__ = f"make_{name}"
    make.__doc__ = f"The {name} model as .tflite bytes (deterministic)."
    return make


#: name -> function returning the model's .tflite bytes
MODELS: dict[str, Callable[[], bytes]] = {name: _maker(name) for name in _BUILDERS}


def write_models(out_dir: str | Path) -> dict[str, Path]:
    """Write ``<name>.tflite`` for every model into ``out_dir`` (created); returns name -> path."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, make in MODELS.items():
        path = out / f"{name}.tflite"
        path.write_bytes(make())
        paths[name] = path
    return paths


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.mlperf_tiny",
                                 description="Write the four MLPerf Tiny networks (synthetic int8 weights) "
                                             "as .tflite files.")
    ap.add_argument("--out", required=True, help="output directory")
    a = ap.parse_args(argv)
    for name, path in write_models(a.out).items():
        print(f"{path}: {path.stat().st_size} bytes, weights+biases {weight_bytes(name)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
