#!/usr/bin/env python3
"""Build utvm-build's bundled example model: a tiny int8 CNN for 8x8 digits.

DEV-ONLY SCRIPT. It needs TensorFlow and scikit-learn, which are NOT runtime or
test dependencies of utvm-build. The files it writes are committed, so nothing
at build/test time ever runs this script. To regenerate them, use a separate
virtual environment:

    python3 -m venv ../tfvenv
    ../tfvenv/bin/pip install tensorflow-cpu scikit-learn
    ../tfvenv/bin/python examples/models/digits/make_digits_model.py

Options: ``--out DIR`` writes somewhere else than this script's directory (used
to check determinism: two runs must give byte-identical .tflite files).

Data: scikit-learn's bundled ``load_digits`` (1797 8x8 images, pixel values
0..16; no download). Split 80/20, stratified, ``random_state=0``.

Outputs (next to this script unless ``--out`` is given):

    digits_int8.tflite   full-integer model, int8 input [1,8,8,1] and int8 output [1,10]
    digits_float.tflite  the same network in float32 (for float tests)
    sample_<k>.npy       k = 0..3, int8 [1,8,8,1] test-split inputs, already quantized
    samples.h            the same 4 inputs + labels as C arrays
    README.md            architecture, ops, accuracies, quantization, labels

Everything is deterministic: fixed seeds, ``tf.keras.utils.set_random_seed``,
``tf.config.experimental.enable_op_determinism`` and single-threaded TF ops.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

SEED = 1234
SPLIT_SEED = 0
EPOCHS = 60
BATCH = 32
NUM_REPRESENTATIVE = 400  # first N training images, in split order
SAMPLE_LABELS = (0, 3, 7, 9)  # one test-split sample of each of these digits
HERE = Path(__file__).resolve().parent

ALLOWED_OPS = {
    "CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "AVERAGE_POOL_2D", "MAX_POOL_2D",
    "RESHAPE", "SOFTMAX", "ADD", "MUL", "MEAN", "RELU",
}


def setup_determinism() -> None:
    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    tf.keras.utils.set_random_seed(SEED)  # python random, numpy, tf
    tf.config.experimental.enable_op_determinism()


def load_data():
    d = load_digits()
    pixels = d.images.astype(np.int64)  # (1797, 8, 8), 0..16
    labels = d.target.astype(np.int64)
    p_tr, p_te, y_tr, y_te = train_test_split(
        pixels, labels, test_size=0.2, random_state=SPLIT_SEED, stratify=labels)
    return p_tr, p_te, y_tr, y_te


def to_float_input(pixels: np.ndarray) -> np.ndarray:
    """0..16 pixels -> float32 [N,8,8,1] in [0, 1] (the float model's input)."""
    return (pixels.astype(np.float32) / np.float32(16.0)).reshape(-1, 8, 8, 1)


def build_model(batch_size: int | None = None) -> tf.keras.Model:
    L = tf.keras.layers
    inp = tf.keras.Input(shape=(8, 8, 1), batch_size=batch_size, name="image")
    x = L.Conv2D(8, 3, padding="same", activation="relu", name="conv1")(inp)      # 8x8x8
    x = L.MaxPooling2D(2, name="pool1")(x)                                        # 4x4x8
    x = L.Conv2D(16, 3, padding="same", activation="relu", name="conv2")(x)      # 4x4x16
    x = L.AveragePooling2D(2, name="pool2")(x)                                    # 2x2x16
    x = L.Flatten(name="flatten")(x)                                              # 64
    x = L.Dense(32, activation="relu", name="fc1")(x)
    x = L.Dense(10, name="logits")(x)
    out = L.Softmax(name="probs")(x)
    return tf.keras.Model(inp, out, name="utvm_digits")


def train(p_tr, y_tr) -> tf.keras.Model:
    model = build_model()
    model.compile(optimizer=tf.keras.optimizers.Adam(learning_rate=3e-3),
                  loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    model.fit(to_float_input(p_tr), y_tr, epochs=EPOCHS, batch_size=BATCH,
              shuffle=True, verbose=0)
    return model


def convert(model: tf.keras.Model, rep_pixels: np.ndarray | None) -> bytes:
    # Same network with a fixed batch of 1, so the model's input is [1,8,8,1].
    infer = build_model(batch_size=1)
    infer.set_weights(model.get_weights())
    conv = tf.lite.TFLiteConverter.from_keras_model(infer)
    if rep_pixels is not None:
        rep = to_float_input(rep_pixels)

        def representative_dataset():
            for i in range(rep.shape[0]):
                yield [rep[i:i + 1]]

        conv.optimizations = [tf.lite.Optimize.DEFAULT]
        conv.representative_dataset = representative_dataset
        conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        conv.inference_input_type = tf.int8
        conv.inference_output_type = tf.int8
    return conv.convert()


def interpreter(model_bytes: bytes) -> tf.lite.Interpreter:
    it = tf.lite.Interpreter(
        model_content=model_bytes, num_threads=1,
        experimental_op_resolver_type=tf.lite.experimental.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    it.allocate_tensors()
    return it


def run(it: tf.lite.Interpreter, x: np.ndarray) -> np.ndarray:
    i_det = it.get_input_details()[0]
    o_det = it.get_output_details()[0]
    it.set_tensor(i_det["index"], x)
    it.invoke()
    return it.get_tensor(o_det["index"]).copy()


def quant_params(it: tf.lite.Interpreter, which: str) -> tuple[float, int]:
    det = (it.get_input_details() if which == "input" else it.get_output_details())[0]
    scale, zp = det["quantization"]
    return float(scale), int(zp)


def pixel_lut(scale: float, zp: int) -> np.ndarray:
    """int8 input for each sklearn pixel value 0..16: clamp(round(p/16/scale) + zp)."""
    p = np.arange(17, dtype=np.float64)
    q = np.round(p / 16.0 / scale) + zp
    return np.clip(q, -128, 127).astype(np.int8)


def op_table(model_bytes: bytes) -> list[tuple[str, str, str]]:
    """[(op name, input dtypes, output dtypes)] in execution order."""
    it = tf.lite.Interpreter(model_content=model_bytes)
    tensors = {t["index"]: t for t in it.get_tensor_details()}

    def dt(idx):
        return ",".join(np.dtype(tensors[i]["dtype"]).name for i in idx if i >= 0)

    return [(op["op_name"], dt(op["inputs"]), dt(op["outputs"])) for op in it._get_ops_details()]


def write_header(path: Path, samples: np.ndarray, labels: list[int], in_q, out_q, lut) -> None:
    lines = [
        "/* Generated by examples/models/digits/make_digits_model.py -- do not edit. */",
        "/* Four test-split 8x8 digits, already quantized for digits_int8.tflite's",
        " * int8 input [1,8,8,1] (row-major, 64 values each), and their true labels. */",
        "#ifndef UTVM_DIGIT_SAMPLES_H",
        "#define UTVM_DIGIT_SAMPLES_H",
        "",
        "#include <stdint.h>",
        "",
        "#if defined(__GNUC__) || defined(__clang__)",
        "#define UTVM_DIGITS_MAYBE_UNUSED __attribute__((unused))",
        "#else",
        "#define UTVM_DIGITS_MAYBE_UNUSED",
        "#endif",
        "",
        f"#define UTVM_DIGITS_INPUT_SCALE {in_q[0]!r}f",
        f"#define UTVM_DIGITS_INPUT_ZERO_POINT ({in_q[1]})",
        f"#define UTVM_DIGITS_OUTPUT_SCALE {out_q[0]!r}f",
        f"#define UTVM_DIGITS_OUTPUT_ZERO_POINT ({out_q[1]})",
        "#define UTVM_DIGIT_NUM_SAMPLES 4",
        "",
        "/* int8 input value for each sklearn pixel value 0..16 */",
        "static const int8_t utvm_digit_pixel_to_int8[17] UTVM_DIGITS_MAYBE_UNUSED = {",
        "    " + ", ".join(str(int(v)) for v in lut),
        "};",
        "",
        "static const int8_t utvm_digit_samples[4][64] UTVM_DIGITS_MAYBE_UNUSED = {",
    ]
    for k in range(samples.shape[0]):
        flat = samples[k].reshape(-1)
        lines.append(f"    {{ /* sample {k}: digit {labels[k]} */")
        for r in range(8):
            row = ", ".join(f"{int(v):4d}" for v in flat[r * 8:(r + 1) * 8])
            lines.append(f"        {row},")
        lines.append("    },")
    lines += [
        "};",
        "",
        "static const int utvm_digit_labels[4] UTVM_DIGITS_MAYBE_UNUSED = {"
        + ", ".join(str(v) for v in labels) + "};",
        "",
        "#endif /* UTVM_DIGIT_SAMPLES_H */",
        "",
    ]
    path.write_text("\n".join(lines))


def write_readme(path: Path, info: dict) -> None:
    ops_rows = "\n".join(
        f"| {i} | {op} | {ins} | {outs} |" for i, (op, ins, outs) in enumerate(info["ops_int8"]))
    ops_float = ", ".join(op for op, _, _ in info["ops_float"])
    lut = info["lut"]
    lut_rows = "\n".join(f"| {p} | {int(lut[p])} |" for p in range(17))
    s_rows = "\n".join(
        f"| `sample_{k}.npy` / `utvm_digit_samples[{k}]` | {lab} | test index {ti} | {pi} | {pf} |"
        for k, (lab, ti, pi, pf) in enumerate(info["samples"]))
    in_s, in_zp = info["in_q"]
    out_s, out_zp = info["out_q"]
    text = f"""# digits: bundled example model

A small CNN classifying scikit-learn's bundled 8x8 handwritten digits
(`sklearn.datasets.load_digits`, 1797 images, pixel values 0..16), trained by us
and converted with TensorFlow's TFLite converter. Generated, with every other file
here, by [`make_digits_model.py`](make_digits_model.py), a **dev-only** script: it
needs TensorFlow and scikit-learn, which are not runtime or test dependencies of
utvm-build. Regenerate with:

```sh
python3 -m venv ../tfvenv     # any directory outside the repository
../tfvenv/bin/pip install tensorflow-cpu scikit-learn
../tfvenv/bin/python examples/models/digits/make_digits_model.py
```

Generated with TensorFlow {info["tf_version"]}, Keras {info["keras_version"]},
scikit-learn {info["sklearn_version"]}, NumPy {info["numpy_version"]}. The script is
deterministic (fixed seeds, op determinism, single-threaded ops): two runs with the same
package versions give byte-identical `.tflite` files (other versions of TensorFlow or
Keras may train or convert to different bytes). Accuracies are measured with TFLite's
builtin kernels (no XNNPACK delegate).

## Files

| file | what | size |
| --- | --- | --- |
| `digits_int8.tflite` | full-integer model: int8 input `[1,8,8,1]`, int8 output `[1,10]` | {info["size_int8"]} bytes |
| `digits_float.tflite` | same network in float32: float32 input `[1,8,8,1]`, output `[1,10]` | {info["size_float"]} bytes |
| `sample_0.npy` .. `sample_3.npy` | int8 `[1,8,8,1]` test-split inputs, already quantized | 192 bytes each |
| `samples.h` | the same 4 inputs as `static const int8_t utvm_digit_samples[4][64]`, labels as `static const int utvm_digit_labels[4]`, quantization `#define`s and the pixel lookup table | |

## Architecture

Input `[1,8,8,1]` = pixel / 16 (range [0, 1]).

| layer | output shape | parameters |
| --- | --- | --- |
| Conv2D 8 filters 3x3, padding same, ReLU | 8x8x8 | 80 |
| MaxPool2D 2x2 | 4x4x8 | 0 |
| Conv2D 16 filters 3x3, padding same, ReLU | 4x4x16 | 1168 |
| AveragePooling2D 2x2 | 2x2x16 | 0 |
| Flatten (RESHAPE) | 64 | 0 |
| Dense 32, ReLU | 32 | 2080 |
| Dense 10 | 10 | 330 |
| Softmax | 10 | 0 |

Total parameters: **{info["params"]}**. Trained {EPOCHS} epochs, Adam (lr 3e-3), batch {BATCH},
on the 80% training split (stratified, `random_state={SPLIT_SEED}`; {info["n_train"]} train /
{info["n_test"]} test images).

## Accuracy (test split, {info["n_test"]} images)

| model | accuracy |
| --- | --- |
| float32 (Keras) | {info["acc_keras"]:.4f} |
| float32 (`digits_float.tflite`, TFLite interpreter) | {info["acc_float"]:.4f} |
| int8 (`digits_int8.tflite`, TFLite interpreter) | {info["acc_int8"]:.4f} |

## Operators of `digits_int8.tflite`

Full-integer post-training quantization (`Optimize.DEFAULT`, representative data = the
first {NUM_REPRESENTATIVE} training-split images, `supported_ops=[TFLITE_BUILTINS_INT8]`,
`inference_input_type=inference_output_type=tf.int8`). Weights are int8 (per-channel for
convolutions), biases int32; activations int8.

| # | op | input dtypes (data, weights, bias) | output dtype |
| --- | --- | --- | --- |
{ops_rows}

ReLU is fused into CONV_2D / FULLY_CONNECTED (`fused_activation_function`), there is no
separate RELU op. `digits_float.tflite` has the same ops, all float32: {ops_float}.

## Quantization

- Input: int8, scale = {in_s!r}, zero point = {in_zp}.
- Output: int8 softmax probabilities, scale = {out_s!r}, zero point = {out_zp}
  (probability = (q - ({out_zp})) * {out_s!r}); the predicted digit is the argmax.

Turning an 8x8 image with sklearn's values 0..16 into the int8 input:

    x = pixel / 16                                   # float model input, [0, 1]
    q = clamp(round(x / {in_s!r}) + ({in_zp}), -128, 127)

(row-major, `[1,8,8,1]`, 64 values). The script computes it in float64 with
round-half-to-even. Use the scale stored in the model, not 1/255: with exactly 1/255,
pixel 8 gives 127.5 and may round to 0 instead of -1. As a lookup table (also in
`samples.h` as `utvm_digit_pixel_to_int8[17]`), the exact mapping used for the samples
and for the int8 accuracy above:

| pixel | int8 |
| --- | --- |
{lut_rows}

## Samples

The first test-split image of each of the digits {", ".join(map(str, SAMPLE_LABELS))} that both
the float and the int8 model classify correctly, quantized as above.

| file / array | true label | source | int8 prediction | float prediction |
| --- | --- | --- | --- | --- |
{s_rows}
"""
    path.write_text(text)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=HERE,
                    help="output directory (default: this script's)")
    args = ap.parse_args(argv)
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)

    setup_determinism()
    p_tr, p_te, y_tr, y_te = load_data()
    model = train(p_tr, y_tr)

    x_te = to_float_input(p_te)
    acc_keras = float(np.mean(np.argmax(model.predict(x_te, batch_size=1, verbose=0), -1) == y_te))

    float_bytes = convert(model, None)
    int8_bytes = convert(model, p_tr[:NUM_REPRESENTATIVE])

    it_f = interpreter(float_bytes)
    it_q = interpreter(int8_bytes)
    in_q = quant_params(it_q, "input")
    out_q = quant_params(it_q, "output")
    lut = pixel_lut(*in_q)

    pred_f = np.array([np.argmax(run(it_f, x_te[i:i + 1])) for i in range(len(y_te))])
    q_te = lut[p_te].reshape(-1, 8, 8, 1)
    pred_q = np.array([np.argmax(run(it_q, q_te[i:i + 1])) for i in range(len(y_te))])
    acc_float = float(np.mean(pred_f == y_te))
    acc_int8 = float(np.mean(pred_q == y_te))

    ops_int8 = op_table(int8_bytes)
    ops_float = op_table(float_bytes)
    bad = {op for op, _, _ in ops_int8 + ops_float} - ALLOWED_OPS
    if bad:
        raise SystemExit(f"unexpected ops in converted model: {sorted(bad)}")
    io_dtypes = {it_q.get_input_details()[0]["dtype"], it_q.get_output_details()[0]["dtype"]}
    if io_dtypes != {np.int8}:
        raise SystemExit("int8 model does not have int8 input and output")

    samples, sample_info = [], []
    for lab in SAMPLE_LABELS:
        cand = [i for i in range(len(y_te))
                if y_te[i] == lab and pred_q[i] == lab and pred_f[i] == lab]
        i = cand[0]
        samples.append(q_te[i:i + 1])
        sample_info.append((lab, i, int(pred_q[i]), int(pred_f[i])))
    samples_arr = np.concatenate(samples, axis=0)

    (out / "digits_float.tflite").write_bytes(float_bytes)
    (out / "digits_int8.tflite").write_bytes(int8_bytes)
    for k, s in enumerate(samples):
        np.save(out / f"sample_{k}.npy", np.ascontiguousarray(s, dtype=np.int8))
    write_header(out / "samples.h", samples_arr, list(SAMPLE_LABELS), in_q, out_q, lut)

    import sklearn
    info = {
        "tf_version": tf.__version__,
        "keras_version": getattr(tf.keras, "__version__", "?"),
        "sklearn_version": sklearn.__version__,
        "numpy_version": np.__version__,
        "size_int8": len(int8_bytes),
        "size_float": len(float_bytes),
        "params": model.count_params(),
        "n_train": len(y_tr),
        "n_test": len(y_te),
        "acc_keras": acc_keras,
        "acc_float": acc_float,
        "acc_int8": acc_int8,
        "ops_int8": ops_int8,
        "ops_float": ops_float,
        "in_q": in_q,
        "out_q": out_q,
        "lut": lut,
        "samples": sample_info,
    }
    write_readme(out / "README.md", info)

    print(f"parameters: {info['params']}")
    print(f"test accuracy: keras float {acc_keras:.4f}, "
          f"tflite float {acc_float:.4f}, tflite int8 {acc_int8:.4f}")
    print(f"digits_int8.tflite {len(int8_bytes)} bytes, "
          f"digits_float.tflite {len(float_bytes)} bytes")
    print(f"input quantization: scale={in_q[0]!r} zero_point={in_q[1]}; "
          f"output: scale={out_q[0]!r} zero_point={out_q[1]}")
    print("int8 ops:", ", ".join(f"{op}[{i}->{o}]" for op, i, o in ops_int8))
    print("samples:", sample_info)
    return 0


if __name__ == "__main__":
    sys.exit(main())
