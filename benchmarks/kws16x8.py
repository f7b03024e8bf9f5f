"""A 16x8 network to measure the int16-activation kernels: DS-CNN-S (the shapes of
``mlperf_tiny.py``'s kws_dscnn: conv 10x4/2 -> 64, 4 x (depthwise 3x3 + pointwise 64), average pool
24x5, FC 12) with int16 activations (zero point 0), int8 per-channel weights (FC per-tensor) and
int64 biases, as TFLite's 16x8 quantization mode makes them. No softmax: the logits are the output.

Weights are synthetic (He-normal, seeded); each layer's output scale is calibrated on a small batch
of uniformly random int16 inputs (the distribution the benchmark program feeds) so that the
0.1..99.9 % range of its values spans the int16 range; biases are small random values. The model
bytes are deterministic.

CLI (from the repository root)::

    python -m benchmarks.kws16x8 --out kws_dscnn_16x8.tflite          # write the model
    python -m benchmarks.kws16x8 --measure [--work-dir DIR]            # generic vs cortex-m55
    python -m benchmarks.kws16x8 --measure --tflm TFLM --downloads DL [--make-python PY]  # and TFLM

``--measure`` builds it with the benchmark firmware for Cortex-M55 (QEMU ``mps3-an547``, ``-Os``)
with ``--target generic`` and ``--target cortex-m55``, checks that both give the host build's
outputs (and the host TFLite's reference), and prints instructions and estimated M55 cycles per
operator; with ``--tflm`` / ``--downloads`` also TFLM + CMSIS-NN (MVE) for the M55, built and counted
by ``tflm_baseline.py`` (its library from the checkout, the same app and plugin), outputs compared.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

_TESTS_DIR = Path(__file__).resolve().parents[1] / "tests"
if str(_TESTS_DIR) not in sys.path:
    sys.path.append(str(_TESTS_DIR))
from tflite_writer import ModelBuilder  # noqa: E402  (needs the tests dir on sys.path)

NAME = "kws_dscnn_16x8"
SEED = 2616
_BATCH = 4


def _same(size: int, k: int, s: int) -> tuple[int, int]:
    out = -(-size // s)
    return out, max((out - 1) * s + k - size, 0) // 2


class _Net:
    def __init__(self) -> None:
        self.mb = ModelBuilder(f"{NAME}: DS-CNN-S with int16 activations and int8 weights (16x8), "
                               f"synthetic weights, seed {SEED} (utvm-build benchmarks/kws16x8.py)")
        self.rng = np.random.default_rng(SEED)

    def tensor(self, shape: tuple[int, ...], real: np.ndarray, act: str) -> tuple[int, float, np.ndarray]:
        """An int16 activation with the scale that spans ``real`` (its calibration values)."""
        if act == "RELU":
            real = np.maximum(real, 0.0)
        amax = max(float(np.quantile(np.abs(real), 0.999)), 1e-6)
        scale = float(np.float32(amax / 32767.0))
        q = np.clip(np.round(real / scale), -32768, 32767)
        return self.mb.tensor(shape, "int16", scale=scale, zero_point=0), scale, q

    def layer(self, op: str, x: tuple[int, float, np.ndarray], wshape: tuple[int, ...], fan_in: int,
              qdim: int | None, opts: dict, out_shape: tuple[int, ...], acc: np.ndarray, wq: np.ndarray,
              wscale: np.ndarray, act: str) -> tuple[int, float, np.ndarray]:
        xi, xs, _ = x
        bias = np.round(self.rng.normal(0.0, 0.05 * float(np.std(acc)) + 1.0, len(wscale))).astype(np.int64)
        bias = np.resize(bias, out_shape[-1])
        real = (acc + bias) * (xs * np.resize(wscale.astype(np.float64), out_shape[-1]))
        ti, s, q = self.tensor(out_shape, real, act)
        n = len(wscale)
        tw = self.mb.tensor(wshape, "int8", data=wq, scale=[float(v) for v in wscale] if n > 1 else float(wscale[0]),
                            zero_point=[0] * n if n > 1 else 0, quantized_dimension=qdim or 0)
        bs = (np.float32(xs) * wscale).astype(np.float32)
        tb = self.mb.tensor((out_shape[-1],), "int64", data=bias,
                            scale=[float(v) for v in bs] if n > 1 else float(bs[0]),
                            zero_point=[0] * n if n > 1 else 0)
        self.mb.operator(op, [xi, tw, tb], [ti], {**opts, "fused_activation_function": act})
        return ti, s, q

    def weights(self, shape: tuple[int, ...], fan_in: int, axis: int | None) -> tuple[np.ndarray, np.ndarray]:
        w = self.rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)
        if axis is None:
            scale = np.array([np.max(np.abs(w)) / 127.0], np.float32)
            return np.clip(np.round(w / float(scale[0])), -127, 127).astype(np.int8), scale
        axes = tuple(a for a in range(w.ndim) if a != axis)
        scale = (np.max(np.abs(w), axis=axes) / 127.0).astype(np.float32)
        bshape = [1] * w.ndim
        bshape[axis] = -1
        return np.clip(np.round(w / scale.astype(np.float64).reshape(bshape)), -127, 127).astype(np.int8), scale

    def conv(self, x: tuple[int, float, np.ndarray], filters: int, k: tuple[int, int], stride: int,
             depthwise: bool = False) -> tuple[int, float, np.ndarray]:
        q = x[2]
        _, h, w, c = q.shape
        kh, kw = k
        oh, pt = _same(h, kh, stride)
        ow, pl = _same(w, kw, stride)
        xp = np.pad(q, ((0, 0), (pt, kh), (pl, kw), (0, 0)))
        if depthwise:
            wq, ws = self.weights((1, kh, kw, c), kh * kw, 3)
            acc = np.zeros((q.shape[0], oh, ow, c))
        else:
            wq, ws = self.weights((filters, kh, kw, c), kh * kw * c, 0)
            acc = np.zeros((q.shape[0], oh, ow, filters))
        wf = wq.astype(np.float64)
        for i in range(kh):
            for j in range(kw):
                patch = xp[:, i:i + stride * (oh - 1) + 1:stride, j:j + stride * (ow - 1) + 1:stride, :]
                acc += patch * wf[0, i, j] if depthwise else patch @ wf[:, i, j, :].T
        opts = {"padding": "SAME", "stride_h": stride, "stride_w": stride}
        if depthwise:
            opts["depth_multiplier"] = 1
        return self.layer("DEPTHWISE_CONV_2D" if depthwise else "CONV_2D", x, wq.shape, 0, 3 if depthwise else 0,
                          opts, (1, oh, ow, acc.shape[-1]), acc, wq, ws, "RELU")


def build_model() -> bytes:
    """The model's .tflite bytes (deterministic)."""
    net = _Net()
    shape = (1, 49, 10, 1)
    xs = float(np.float32(1.0 / 32767.0))
    ti = net.mb.tensor(shape, "int16", scale=xs, zero_point=0, name="input")
    x = (ti, xs, net.rng.integers(-32768, 32768, (_BATCH, *shape[1:])).astype(np.float64))
    x = net.conv(x, 64, (10, 4), 2)
    for _ in range(4):
        x = net.conv(x, 64, (3, 3), 1, depthwise=True)
        x = net.conv(x, 64, (1, 1), 1)
    xi, s, q = x
    pooled = net.mb.tensor((1, 1, 1, 64), "int16", scale=s, zero_point=0)
    net.mb.operator("AVERAGE_POOL_2D", [xi], [pooled], {"padding": "VALID", "stride_h": 24, "stride_w": 5,
                                                         "filter_height": 24, "filter_width": 5,
                                                         "fused_activation_function": "NONE"})
    pq = np.round(q[:, :24, :5, :].mean(axis=(1, 2)))
    flat = net.mb.tensor((1, 64), "int16", scale=s, zero_point=0)
    shp = net.mb.tensor([2], "int32", data=np.array([1, 64], np.int32))
    net.mb.operator("RESHAPE", [pooled, shp], [flat])
    wq, ws = net.weights((12, 64), 64, None)
    acc = pq.reshape(_BATCH, 64) @ wq.astype(np.float64).T
    out, _, _ = net.layer("FULLY_CONNECTED", (flat, s, pq), wq.shape, 64, None, {}, (1, 12), acc, wq, ws, "NONE")
    return net.mb.build([ti], [out])


def measure_tflm(tflm: Path, downloads: Path, work_dir: Path, make_python: Path | None) -> dict:
    """The model under TFLM + CMSIS-NN for the M55 (tflm_baseline.py's library and app)."""
    from benchmarks import qemu_plugin, tflm_baseline

    qemu_plugin.build_plugin()
    data = build_model()
    core = tflm_baseline.CORES["m55"]
    ops = tuple(sorted(tflm_baseline.model_info(data).operators))
    lib = tflm_baseline.build_library(tflm, core, downloads, 2, make_python, ops)
    return tflm_baseline.measure_model(tflm, downloads, core, lib, NAME, data, work_dir / "tflm", 1800.0)


def measure(work_dir: Path, tflm: tuple[Path, Path, Path | None] | None = None) -> int:
    from benchmarks import reference
    from benchmarks.compare import outputs_match
    from benchmarks.cycles import MODELS as CYCLE_MODELS
    from benchmarks.models import BenchModel
    from benchmarks.runner import CORES, build, measure_target, model_metadata, parse_program_output

    work_dir.mkdir(parents=True, exist_ok=True)
    path = work_dir / f"{NAME}.tflite"
    path.write_bytes(build_model())
    model = BenchModel(NAME, path, "16x8 DS-CNN-S (synthetic weights)")
    build([model], None, "O2", work_dir / "host", target="generic")
    host_meta = model_metadata(work_dir / "host", model)
    host = parse_program_output(subprocess.run([str(work_dir / "host" / f"bench_{NAME}")], capture_output=True,
                                               text=True, timeout=300).stdout)
    print(f"host vs TFLite reference: {reference.check(model, host_meta, host.outputs)}")
    core = CORES["m55"]
    runs = {}
    for target in ("generic", "cortex-m55"):
        d = work_dir / f"m55-Os-{target}"
        build([model], core, "Os", d, target=target)
        r = measure_target(d, model, core, timeout=600)
        meta = model_metadata(d, model)
        ok, how = outputs_match(r["outputs"], host.outputs, [t["dtype"] for t in meta["outputs"]])
        print(f"{target}: {r['instructions']} instructions, {r['cycles'][CYCLE_MODELS['cortex-m55'].name]} "
              f"est. M55 cycles, flash {r['flash_bytes']}, vs host: {how}")
        runs[target] = r
        if not ok:
            return 1
    g, m = runs["generic"], runs["cortex-m55"]
    print(f"{'operator':40s} {'generic':>12s} {'cortex-m55':>12s} {'ratio':>7s}")
    m55 = CYCLE_MODELS["cortex-m55"].name
    for a, b in zip(g["per_operator"], m["per_operator"]):
        print(f"{a['op']:40s} {a['instructions']:12d} {b['instructions']:12d} "
              f"{b['instructions'] / a['instructions']:7.3f}   cycles {a['cycles'][m55]:10d} {b['cycles'][m55]:10d}")
    print(f"{'total':40s} {g['instructions']:12d} {m['instructions']:12d} "
          f"{m['instructions'] / g['instructions']:7.3f}   cycles {g['cycles'][m55]:10d} {m['cycles'][m55]:10d}")
    if tflm is not None:
        t = measure_tflm(tflm[0], tflm[1], work_dir, tflm[2])
        same, how = outputs_match(t["outputs"], m["outputs"], ["int16"] * len(t["outputs"]))
        print(f"TFLM + CMSIS-NN (M55, TFLM {tflm_baseline_commit(tflm[0])}): {t['instructions']} instructions, "
              f"{t['cycles'][m55]} est. M55 cycles, flash {t['flash_bytes']}; ours / TFLM "
              f"{m['instructions'] / t['instructions']:.3f} (outputs vs ours: {how})")
        if not same:
            return 1
    return 0


def tflm_baseline_commit(tflm: Path) -> str:
    from benchmarks.tflm_baseline import tflm_commit

    return tflm_commit(tflm)[:7]


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.kws16x8", description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="write the model here")
    ap.add_argument("--measure", action="store_true", help="measure generic vs cortex-m55 on QEMU")
    ap.add_argument("--work-dir", default="build/kws16x8")
    ap.add_argument("--tflm", type=Path, help="with --measure: also TFLM + CMSIS-NN from this checkout "
                                              "(benchmarks/README.md, TFLM baseline)")
    ap.add_argument("--downloads", type=Path, help="the TFLM baseline's prepared downloads")
    ap.add_argument("--make-python", type=Path, help="a python3 with Pillow and numpy for TFLM's Makefile")
    a = ap.parse_args(argv)
    if a.out:
        Path(a.out).write_bytes(build_model())
    if a.measure:
        tflm = (a.tflm.resolve(), a.downloads.resolve(), a.make_python) if a.tflm and a.downloads else None
        return measure(Path(a.work_dir).resolve(), tflm)
    return 0


if __name__ == "__main__":
    sys.exit(main())
