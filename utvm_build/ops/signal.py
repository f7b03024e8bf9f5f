"""TFLM's signal library (custom operators ``Signal*``): the audio front end of TFLM's
``audio_preprocessor`` models (window, FFT auto-scale, real FFT, energy, filter bank, its square
root, spectral subtraction, PCAN gain control, log).

Semantics of tflite-micro's ``signal/micro/kernels/*.cc`` and ``signal/src/*.cc`` (the real FFT is
KISS FFT v130 in fixed point, as TFLM builds it). The options are the FlexBuffers maps TFLM's
kernels read by position (keys in sorted order), so the map must have exactly the keys TFLM
expects. What TFLM leaves unchecked (lengths, indices, shifts beyond the type's width) is refused
at compile time with one line naming the operator.

State: SignalFilterBankSpectralSubtraction keeps its noise estimate across invocations (TFLM: a
persistent buffer, zeroed at prepare and by the interpreter's reset). Its handler asks for it with
``state_tensors``; ``passes/kernel_state.py`` adds a variable tensor for it as an extra input, so it
lives in the model's state region (docs/state.md) and ``reset`` zeroes it.
"""

from __future__ import annotations

import math

import numpy as np

from ..graph import Graph, Operator, Tensor
from .base import OpHandler, expect_const, expect_dtype, fail, out_tensor, register, tensor
from .call import Const, In, Lit, Out, Params, Prepared, Scratch, call

_INT32 = (-2**31, 2**31 - 1)
_TENSOR_TYPES = {0: "float32", 2: "int32", 7: "int16"}
_MAX_STAGES = 32


def _name(code: str) -> str:
    return f"CUSTOM({code})"


def _keys(op: Operator, *keys: str) -> None:
    """TFLM reads the options by their position in the key-sorted map: exactly these keys."""
    have = sorted(op.options)
    if have != sorted(keys):
        want = ", ".join(sorted(keys)) or "none"
        raise fail(op, f"custom options {have} do not match what TFLM's kernel reads ({want})")


def _int(op: Operator, key: str, lo: int = _INT32[0], hi: int = _INT32[1]) -> int:
    v = op.options.get(key)
    if isinstance(v, bool):
        v = int(v)
    if not isinstance(v, int) or not _INT32[0] <= v <= _INT32[1]:
        raise fail(op, f"option {key} = {v!r} is not a 32-bit integer")
    if not lo <= v <= hi:
        raise fail(op, f"option {key} = {v} is out of range; supported: {lo}..{hi}")
    return v


def _counts(op: Operator, n_in: int, n_out: int, n_state: int = 0) -> None:
    if len(op.inputs) != n_in + n_state or len(op.outputs) != n_out:
        raise fail(op, f"has {len(op.inputs) - n_state} inputs and {len(op.outputs)} outputs; expected "
                       f"{n_in} and {n_out}")


def _rank(op: Operator, t: Tensor, rank: int, role: str) -> None:
    if len(t.shape) != rank:
        raise fail(op, f"{role} has shape {list(t.shape)}; TFLM's kernel needs rank {rank}")


def _ins(g: Graph, op: Operator, n: int) -> list[Tensor]:
    return [tensor(g, op, k) for k in range(n)]


def _typed(op: Operator, *specs: tuple[Tensor, str, str, int | None]) -> None:
    """The type of every (tensor, dtype, role, rank), then the ranks TFLM's kernel needs (not None)."""
    for t, dtype, role, _ in specs:
        expect_dtype(op, t, (dtype,), role)
    for t, _, role, rank in specs:
        if rank is not None:
            _rank(op, t, rank, role)


def _io(op: Operator, g: Graph, in_dtype: str, out_dtype: str, rank: int | None = None) -> tuple[Tensor, Tensor]:
    """Input 0 and output 0 with their types (and ranks) checked."""
    x, out = tensor(g, op, 0), out_tensor(g, op)
    _typed(op, (x, in_dtype, "input", rank), (out, out_dtype, "output", rank))
    return x, out


@register(_name("SignalWindow"))
class SignalWindow(OpHandler):
    supported = "int16 input (any rank) times an int16 window over its last elements, >> shift (0..31), saturated"

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        _counts(op, 2, 1)
        _keys(op, "shift")
        shift = _int(op, "shift", 0, 31)
        x, w = _ins(g, op, 2)
        out = out_tensor(g, op)
        for t, role in ((x, "input"), (w, "window"), (out, "output")):
            expect_dtype(op, t, ("int16",), role)
        _rank(op, w, 1, "window")
        if not x.shape or len(out.shape) != len(x.shape) or out.size != x.size:
            raise fail(op, f"input {list(x.shape)} and output {list(out.shape)} must have the same rank (>= 1) "
                           "and size")
        if w.size == 0 or x.size % w.size:
            raise fail(op, f"input size {x.size} is not a multiple of the window length {w.size}")
        p = Params("utvm_signal_window_params", {"size": x.size, "weight_size": w.size, "shift": shift})
        return Prepared([call("utvm_signal_window_s16", p, In(0), In(1), Out(0))], macs=x.size)


@register(_name("SignalFftAutoScale"))
class SignalFftAutoScale(OpHandler):
    supported = "int16 [N] -> int16 [N] scaled by 2^scale, int32 [] scale"

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        _counts(op, 1, 2)
        x = tensor(g, op, 0)
        out, scale = out_tensor(g, op, 0), out_tensor(g, op, 1)
        _typed(op, (x, "int16", "input", 1), (out, "int16", "output", 1), (scale, "int32", "scale output", 0))
        if out.size != x.size:
            raise fail(op, f"output {list(out.shape)} must have the input's length {x.size}")
        return Prepared([call("utvm_signal_fft_auto_scale_s16", Lit(x.size), In(0), Out(0), Out(1))], macs=x.size)


def kiss_factors(n: int) -> list[tuple[int, int]]:
    """KISS FFT's kf_factor: (radix, remaining length) pairs, powers of 4 first, then 2, then odd
    primes (a prime above floor(sqrt(n)) ends the search)."""
    out: list[tuple[int, int]] = []
    p = 4
    floor_sqrt = math.floor(math.sqrt(float(n)))
    while True:
        while n % p:
            p = 2 if p == 4 else 3 if p == 2 else p + 2
            if p > floor_sqrt:
                p = n
        n //= p
        out.append((p, n))
        if n <= 1:
            return out


def kiss_leaf_order(factors: list[tuple[int, int]]) -> np.ndarray:
    """Where kf_work's leaves put each input: position -> complex input index."""
    size = factors[0][0] * factors[0][1]
    order = np.zeros(size, np.int64)
    pos = np.zeros(1, np.int64)
    src = np.zeros(1, np.int64)
    stride = 1
    for p, m in factors:
        j = np.arange(p, dtype=np.int64)
        pos = (pos[:, None] + j[None, :] * m).ravel()
        src = (src[:, None] + j[None, :] * stride).ravel()
        stride *= p
    order[pos] = src
    return order


_FIXED_ONE = {"int16": 32767, "int32": 2147483647}
_CTYPE = {"int16": "int16_t", "int32": "int32_t", "float32": "float"}


def _cexp(phase: float, dtype: str) -> tuple[float, float]:
    """kf_cexp: floor(0.5 + SAMP_MAX cos(phase)) in fixed point, (float)cos(phase) in float."""
    if dtype == "float32":
        return float(np.float32(math.cos(phase))), float(np.float32(math.sin(phase)))
    one = _FIXED_ONE[dtype]
    return math.floor(0.5 + one * math.cos(phase)), math.floor(0.5 + one * math.sin(phase))


def kiss_twiddles(n: int, inverse: bool = False, dtype: str = "int16") -> np.ndarray:
    """kiss_fft_alloc's twiddles: phase = -2 pi i / n (times -1 for the inverse)."""
    out = np.zeros(2 * n, dtype)
    for i in range(n):
        phase = -2 * math.pi * i / n
        if inverse:
            phase *= -1
        out[2 * i], out[2 * i + 1] = _cexp(phase, dtype)
    return out


def kiss_super_twiddles(nc: int, inverse: bool = False, dtype: str = "int16") -> np.ndarray:
    """kiss_fftr_alloc's super twiddles for a half length nc."""
    out = np.zeros(2 * max(1, nc // 2), dtype)
    for i in range(nc // 2):
        phase = -3.14159265358979323846264338327 * (float(i + 1) / nc + .5)
        if inverse:
            phase *= -1
        out[2 * i], out[2 * i + 1] = _cexp(phase, dtype)
    return out


def _fft_type(op: Operator) -> str:
    _keys(op, "T", "fft_length")
    code = _int(op, "T")
    if code not in _TENSOR_TYPES:
        raise fail(op, f"option T = {code} is not a type TFLM's kernel registers; supported: 7 (int16), "
                       "2 (int32), 0 (float32)")
    return _TENSOR_TYPES[code]


def _fft_plan(op: Operator, n: int) -> tuple[Params, list[tuple[int, int]]]:
    """fft_length checks and the stages of the complex FFT of n / 2 points (kf_factor)."""
    if n % 2:
        raise fail(op, f"fft_length {n} is odd; the real FFT needs an even length")
    factors = kiss_factors(n // 2)
    bad = sorted({p for p, _ in factors if p not in (2, 3, 4, 5)})
    if bad or len(factors) > _MAX_STAGES:
        raise fail(op, f"fft_length {n}: n/2 has the factors {bad}; supported: products of 2, 3, 4 and 5 "
                       "(TFLM's build has no buffer for KISS FFT's generic butterfly)")
    stride, radix, span, strides = 1, [], [], []
    for p, m in factors:
        radix.append(p)
        span.append(m)
        strides.append(stride)
        stride *= p
    pad = [0] * (_MAX_STAGES - len(factors))
    return Params("utvm_signal_rfft_params", {"fft_length": n, "input_length": 0, "frames": 0,
                                              "n_stages": len(factors), "radix": radix + pad,
                                              "span": span + pad, "stride": strides + pad}), factors


def _fft_macs(frames: int, n: int) -> int:
    nc = n // 2
    return frames * nc * max(1, int(math.log2(max(nc, 2)))) * 4


_SUFFIX = {"int16": "s16", "int32": "s32", "float32": "f32"}


def _fft_operands(op: Operator, g: Graph) -> tuple[str, int, Tensor, Tensor, Params, list[tuple[int, int]]]:
    """What SignalRfft and SignalIrfft check alike: one input and output of the op's type T, of one
    rank, and fft_length; returns (dtype, fft_length, input, output, params, radix factors)."""
    _counts(op, 1, 1)
    dtype = _fft_type(op)
    n = _int(op, "fft_length", 4, 1 << 16)
    x, out = _io(op, g, dtype, dtype)
    if not x.shape or len(out.shape) != len(x.shape):
        raise fail(op, f"input {list(x.shape)} and output {list(out.shape)} must have the same rank (>= 1)")
    params, factors = _fft_plan(op, n)
    return dtype, n, x, out, params, factors


@register(_name("SignalRfft"))
class SignalRfft(OpHandler):
    supported = ("int16, int32 (KISS FFT fixed point 16 / 32, as TFLM), float32 (KISS FFT in float); fft_length "
                 "even, its half a product of 2, 3, 4, 5; frames of input_length <= fft_length samples -> "
                 "fft_length / 2 + 1 complex bins")

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        dtype, n, x, out, params, factors = _fft_operands(op, g)
        length = x.shape[-1]
        if length == 0 or length > n:
            raise fail(op, f"input frames of {length} samples do not fit fft_length {n}")
        frames = x.size // length
        if out.shape[-1] != n + 2 or out.size != frames * (n + 2):
            raise fail(op, f"output {list(out.shape)} must hold {frames} frames of {n // 2 + 1} complex bins "
                           f"(last dimension {n + 2})")
        params.fields.update(input_length=length, frames=frames)
        nc, ctype, suffix = n // 2, _CTYPE[dtype], _SUFFIX[dtype]
        calls = [call(f"utvm_signal_rfft_{suffix}", params, Const("twiddles", kiss_twiddles(nc, False, dtype), ctype),
                      Const("super_twiddles", kiss_super_twiddles(nc, False, dtype), ctype),
                      Const("order", kiss_leaf_order(factors).astype(np.uint16), "uint16_t"),
                      In(0), Out(0), Scratch(ctype))]
        return Prepared(calls, macs=_fft_macs(frames, n), scratch_bytes=np.dtype(dtype).itemsize * n)


@register(_name("SignalIrfft"))
class SignalIrfft(OpHandler):
    supported = ("int16, int32 (KISS FFT fixed point 16 / 32, as TFLM: the result divided by fft_length), float32 "
                 "(divided by fft_length); fft_length even, its half a product of 2, 3, 4, 5; frames of >= "
                 "fft_length / 2 + 1 complex bins -> fft_length samples")

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        dtype, n, x, out, params, factors = _fft_operands(op, g)
        length = x.shape[-1]
        if length % 2 or length < n + 2:
            raise fail(op, f"input frames of {length} values must be complex bins (an even count) holding at "
                           f"least fft_length / 2 + 1 = {n // 2 + 1} bins")
        frames = x.size // length
        if out.shape[-1] != n or out.size != frames * n:
            raise fail(op, f"output {list(out.shape)} must hold {frames} frames of fft_length {n} samples "
                           f"(last dimension {n})")
        params.fields.update(input_length=length, frames=frames)
        nc, ctype, suffix = n // 2, _CTYPE[dtype], _SUFFIX[dtype]
        order = kiss_leaf_order(factors)
        position = np.zeros(nc, np.uint16)
        position[order] = np.arange(nc, dtype=np.uint16)
        calls = [call(f"utvm_signal_irfft_{suffix}", params,
                      Const("twiddles", kiss_twiddles(nc, True, dtype), ctype),
                      Const("super_twiddles", kiss_super_twiddles(nc, True, dtype), ctype),
                      Const("position", position, "uint16_t"), In(0), Out(0))]
        return Prepared(calls, macs=_fft_macs(frames, n))


@register(_name("SignalEnergy"))
class SignalEnergy(OpHandler):
    supported = "complex int16 [2N] -> uint32 [M]: re^2 + im^2 of bins start_index..end_index-1"

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        _counts(op, 1, 1)
        _keys(op, "end_index", "start_index")
        x, out = _io(op, g, "int16", "uint32", rank=1)
        start, end = _int(op, "start_index", 0), _int(op, "end_index", 0)
        if end > min(out.size, x.size // 2):
            raise fail(op, f"end_index {end} is beyond the output's {out.size} elements or the input's "
                           f"{x.size // 2} complex bins")
        p = Params("utvm_signal_energy_params", {"start": start, "end": end, "size": out.size})
        return Prepared([call("utvm_signal_energy_s16", p, In(0), Out(0))], macs=max(0, end - start))


@register(_name("SignalFilterBank"))
class SignalFilterBank(OpHandler):
    supported = ("uint32 [N] spectrum -> uint64 [num_channels]; int16 weights and unweights, constant int16 "
                 "channel starts, weight starts and widths")

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        _counts(op, 6, 1)
        _keys(op, "num_channels")
        x, w, uw, fs, ws, wd = _ins(g, op, 6)
        out = out_tensor(g, op)
        expect_dtype(op, x, ("uint32",), "input")
        expect_dtype(op, out, ("uint64",), "output")
        roles = ("weights", "unweights", "channel frequency starts", "channel weight starts", "channel widths")
        for t, role in zip((w, uw, fs, ws, wd), roles):
            expect_dtype(op, t, ("int16",), role)
            _rank(op, t, 1, role)
        _rank(op, x, 1, "input")
        _rank(op, out, 1, "output")
        nch = _int(op, "num_channels", 0, 1 << 20)
        if out.size != nch:
            raise fail(op, f"output {list(out.shape)} must have num_channels = {nch} elements")
        starts, wstarts, widths = (expect_const(op, t, r).astype(np.int64) for t, r in zip((fs, ws, wd), roles[2:]))
        for arr, role in ((starts, roles[2]), (wstarts, roles[3]), (widths, roles[4])):
            if arr.size < nch + 1:
                raise fail(op, f"{role} has {arr.size} entries; num_channels + 1 = {nch + 1} are needed")
        macs = 0
        for i in range(nch + 1):
            width = int(widths[i])
            if width <= 0:
                continue
            f0, w0 = int(starts[i]), int(wstarts[i])
            if f0 < 0 or f0 + width > x.size or w0 < 0 or w0 + width > min(w.size, uw.size):
                raise fail(op, f"channel {i} (frequency start {f0}, weight start {w0}, width {width}) reads outside "
                               f"the input ({x.size}) or the weights ({min(w.size, uw.size)})")
            macs += 2 * width
        p = Params("utvm_signal_filter_bank_params", {"num_channels": nch})
        return Prepared([call("utvm_signal_filter_bank", p, In(0), In(1), In(2), In(3), In(4), In(5), Out(0))],
                        macs=macs)


@register(_name("SignalFilterBankSquareRoot"))
class SignalFilterBankSquareRoot(OpHandler):
    supported = "uint64 [N] -> uint32 [N]: integer square root >> scale_bits (int32 [])"

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        _counts(op, 2, 1)
        x, s = _ins(g, op, 2)
        out = out_tensor(g, op)
        _typed(op, (x, "uint64", "input", 1), (s, "int32", "scale bits", 0), (out, "uint32", "output", 1))
        if out.size != x.size:
            raise fail(op, f"output {list(out.shape)} must have the input's length {x.size}")
        return Prepared([call("utvm_signal_filter_bank_sqrt", Lit(x.size), In(0), In(1), Out(0))], macs=x.size)


_SS_KEYS = ("alternate_one_minus_smoothing", "alternate_smoothing", "clamping", "min_signal_remaining",
            "num_channels", "one_minus_smoothing", "smoothing", "smoothing_bits", "spectral_subtraction_bits")


@register(_name("SignalFilterBankSpectralSubtraction"))
class SignalFilterBankSpectralSubtraction(OpHandler):
    supported = ("uint32 [num_channels] -> uint32 output and noise estimate; the noise estimate persists across "
                 "invocations in the state region (zero after reset)")

    def _channels(self, op: Operator) -> int:
        _keys(op, *_SS_KEYS)
        return _int(op, "num_channels", 1, 1 << 20)

    def state_tensors(self, op: Operator, g: Graph) -> list[tuple[str, str, tuple[int, ...]]]:
        return [("noise_estimate", "uint32", (self._channels(op),))]

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        _counts(op, 1, 2, n_state=1)
        nch = self._channels(op)
        x, state = tensor(g, op, 0), tensor(g, op, 1)
        out, noise = out_tensor(g, op, 0), out_tensor(g, op, 1)
        for t, role in ((x, "input"), (out, "output"), (noise, "noise estimate output")):
            expect_dtype(op, t, ("uint32",), role)
            _rank(op, t, 1, role)
            if t.size != nch:
                raise fail(op, f"{role} {list(t.shape)} must have num_channels = {nch} elements")
        assert state.is_variable and state.size == nch
        fields = {"num_channels": nch}
        for key in ("smoothing", "one_minus_smoothing", "min_signal_remaining", "alternate_smoothing",
                    "alternate_one_minus_smoothing"):
            fields[key] = _int(op, key) & 0xFFFFFFFF   # TFLM stores the int32 option in a uint32_t
        fields["smoothing_bits"] = _int(op, "smoothing_bits", 0, 31)
        fields["spectral_subtraction_bits"] = _int(op, "spectral_subtraction_bits", 0, 63)
        fields["clamping"] = 1 if _int(op, "clamping") != 0 else 0
        p = Params("utvm_signal_spectral_subtraction_params", fields)
        return Prepared([call("utvm_signal_spectral_subtraction", p, In(0), Out(0), Out(1), In(1))], macs=2 * nch)


@register(_name("SignalPCAN"))
class SignalPCAN(OpHandler):
    supported = "uint32 [N] and uint32 noise estimate [N], int16 gain table (>= 125 entries) -> uint32 [N]"

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        _counts(op, 3, 1)
        _keys(op, "snr_shift")
        shift = _int(op, "snr_shift", 0, 63)
        x, noise, lut = _ins(g, op, 3)
        out = out_tensor(g, op)
        for t, role in ((x, "input"), (noise, "noise estimate"), (out, "output")):
            expect_dtype(op, t, ("uint32",), role)
            _rank(op, t, 1, role)
        expect_dtype(op, lut, ("int16",), "gain table")
        _rank(op, lut, 1, "gain table")
        if out.size != x.size or noise.size < x.size:
            raise fail(op, f"output {list(out.shape)} and noise estimate {list(noise.shape)} must match the input's "
                           f"{x.size} channels")
        if lut.size < 125:
            raise fail(op, f"gain table has {lut.size} entries; TFLM's WideDynamicFunction reads up to 125")
        p = Params("utvm_signal_pcan_params", {"size": x.size, "snr_shift": shift})
        return Prepared([call("utvm_signal_pcan", p, In(0), In(1), In(2), Out(0))], macs=x.size)


@register(_name("SignalFilterBankLog"))
class SignalFilterBankLog(OpHandler):
    supported = "uint32 [N] -> int16 [N]: scaled natural log (input_correction_bits 0..31), saturated to 32767"

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        _counts(op, 1, 1)
        _keys(op, "input_correction_bits", "output_scale")
        x, out = _io(op, g, "uint32", "int16", rank=1)
        if out.size != x.size:
            raise fail(op, f"output {list(out.shape)} must have the input's length {x.size}")
        p = Params("utvm_signal_log_params", {"size": x.size,
                                              "correction_bits": _int(op, "input_correction_bits", 0, 31),
                                              "output_scale": _int(op, "output_scale") & 0xFFFFFFFF})
        return Prepared([call("utvm_signal_filter_bank_log", p, In(0), Out(0))], macs=x.size)


def _rows(op: Operator, x: Tensor) -> tuple[int, int]:
    """(outer rows, innermost length) of a tensor of rank >= 1."""
    if not x.shape or x.shape[-1] == 0:
        raise fail(op, f"input {list(x.shape)} must have rank >= 1 and a non-empty last dimension")
    return x.size // x.shape[-1], x.shape[-1]


@register(_name("SignalDelay"))
class SignalDelay(OpHandler):
    supported = "int16, any rank: each row delayed by delay_length samples (state: the last delay_length per row)"

    def _geometry(self, op: Operator, g: Graph) -> tuple[int, int, int]:
        _keys(op, "delay_length")
        d = _int(op, "delay_length", 0, 1 << 20)
        rows, n = _rows(op, tensor(g, op, 0))
        return rows, n, d

    def state_tensors(self, op: Operator, g: Graph) -> list[tuple[str, str, tuple[int, ...]]]:
        rows, _, d = self._geometry(op, g)
        return [("delay_buffer", "int16", (rows * d,))] if d else []

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        rows, n, d = self._geometry(op, g)
        _counts(op, 1, 1, n_state=1 if d else 0)
        x, out = _io(op, g, "int16", "int16")
        if out.size != x.size:
            raise fail(op, f"output {list(out.shape)} must have the input's size {x.size}")
        p = Params("utvm_signal_delay_params", {"rows": rows, "frame_size": n, "delay_length": d})
        if not d:
            return Prepared([call("utvm_copy", In(0), Out(0), Lit(x.nbytes, "size_t"))])
        return Prepared([call("utvm_signal_delay_s16", p, In(0), Out(0), In(1))], macs=x.size)


@register(_name("SignalOverlapAdd"))
class SignalOverlapAdd(OpHandler):
    supported = ("int16 (saturating) and float32: [..., frames, frame_size] -> [..., frames * frame_step], "
                 "frame_step <= frame_size (state: one frame per row)")

    def _geometry(self, op: Operator, g: Graph) -> tuple[int, int, int, int, str]:
        _keys(op, "T", "frame_step")
        code = _int(op, "T")
        dtype = _TENSOR_TYPES.get(code)
        if dtype not in ("int16", "float32"):
            raise fail(op, f"option T = {code} is not supported; supported: 7 (int16), 0 (float32)")
        x = tensor(g, op, 0)
        if len(x.shape) < 2 or x.shape[-1] == 0 or x.shape[-2] == 0:
            raise fail(op, f"input {list(x.shape)} must be [..., frames, frame_size] with both non-zero")
        frame_size, frames = x.shape[-1], x.shape[-2]
        step = _int(op, "frame_step", 1, frame_size)
        return x.size // (frame_size * frames), frames, frame_size, step, dtype

    def state_tensors(self, op: Operator, g: Graph) -> list[tuple[str, str, tuple[int, ...]]]:
        rows, _, size, _, dtype = self._geometry(op, g)
        return [("overlap_buffer", dtype, (rows * size,))]

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        rows, frames, size, step, dtype = self._geometry(op, g)
        _counts(op, 1, 1, n_state=1)
        x, out = _io(op, g, dtype, dtype)
        if len(out.shape) != len(x.shape) - 1 or out.size != rows * frames * step:
            raise fail(op, f"output {list(out.shape)} must be the input's {list(x.shape[:-2])} rows of "
                           f"{frames * step} samples")
        p = Params("utvm_signal_overlap_add_params", {"rows": rows, "n_frames": frames, "frame_size": size,
                                                      "frame_step": step})
        fn = "utvm_signal_overlap_add_s16" if dtype == "int16" else "utvm_signal_overlap_add_f32"
        return Prepared([call(fn, p, In(0), Out(0), In(1))], macs=x.size)


@register(_name("SignalFramer"))
class SignalFramer(OpHandler):
    supported = ("int16 [..., L] -> [..., L / frame_step, frame_size] and bool output_valid; prefill; "
                 "state: a buffer per row")

    def _geometry(self, op: Operator, g: Graph) -> tuple[int, int, int, int, int, bool]:
        _keys(op, "frame_size", "frame_step", "prefill")
        size, step = _int(op, "frame_size", 1, 1 << 20), _int(op, "frame_step", 1, 1 << 20)
        prefill = bool(_int(op, "prefill"))
        rows, length = _rows(op, tensor(g, op, 0))
        if length % step:
            raise fail(op, f"the input's last dimension {length} is not a multiple of frame_step {step}")
        if prefill and size < step:
            raise fail(op, f"prefill with frame_size {size} < frame_step {step} is not supported (TFLM writes "
                           "a negative count of zeros)")
        capacity = (size + step - 1) // step * step
        return rows, length // step, size, step, capacity, prefill

    def state_tensors(self, op: Operator, g: Graph) -> list[tuple[str, str, tuple[int, ...]]]:
        rows, _, _, _, capacity, _ = self._geometry(op, g)
        return [("frame_buffer", "int16", (rows * capacity,)), ("frame_counts", "int32", (rows + 1,))]

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        rows, frames, size, step, capacity, prefill = self._geometry(op, g)
        _counts(op, 1, 2, n_state=2)
        x, out, valid = tensor(g, op, 0), out_tensor(g, op, 0), out_tensor(g, op, 1)
        _typed(op, (x, "int16", "input", None), (out, "int16", "output", None), (valid, "bool", "output_valid", 0))
        if len(out.shape) != len(x.shape) + 1 or out.size != rows * frames * size:
            raise fail(op, f"output {list(out.shape)} must be [..., {frames}, {size}] for the input {list(x.shape)}")
        p = Params("utvm_signal_framer_params", {"rows": rows, "n_frames": frames, "frame_size": size,
                                                 "frame_step": step, "capacity": capacity,
                                                 "prefill": int(prefill)})
        return Prepared([call("utvm_signal_framer_s16", p, In(0), Out(0), Out(1), In(1), In(2))], macs=x.size)


_STACKER_KEYS = ("num_channels", "stacker_left_context", "stacker_right_context", "stacker_step")


@register(_name("SignalStacker"))
class SignalStacker(OpHandler):
    supported = ("int16 [num_channels] -> [num_channels * (left + right + 1)] and bool output_valid; "
                 "state: the stacking buffer")

    def _geometry(self, op: Operator) -> tuple[int, int, int, int]:
        _keys(op, *_STACKER_KEYS)
        nc = _int(op, "num_channels", 1, 1 << 16)
        left, right = _int(op, "stacker_left_context", 0, 1 << 10), _int(op, "stacker_right_context", 0, 1 << 10)
        step = _int(op, "stacker_step", 1, left + right + 1)
        return nc, left, nc * (left + right + 1), nc * step

    def state_tensors(self, op: Operator, g: Graph) -> list[tuple[str, str, tuple[int, ...]]]:
        _, _, size, _ = self._geometry(op)
        return [("stack_buffer", "int16", (size,)), ("stack_counts", "int32", (2,))]

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        nc, left, size, step = self._geometry(op)
        _counts(op, 1, 2, n_state=2)
        x, out, valid = tensor(g, op, 0), out_tensor(g, op, 0), out_tensor(g, op, 1)
        _typed(op, (x, "int16", "input", 1), (out, "int16", "output", 1), (valid, "bool", "output_valid", 0))
        if x.size != nc or out.size != size:
            raise fail(op, f"input {list(x.shape)} and output {list(out.shape)} must have num_channels = {nc} and "
                           f"{size} elements")
        p = Params("utvm_signal_stacker_params", {"num_channels": nc, "left_context": left, "buffer_size": size,
                                                  "step_size": step})
        return Prepared([call("utvm_signal_stacker_s16", p, In(0), Out(0), Out(1), In(1), In(2))], macs=size)
