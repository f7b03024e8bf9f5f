"""The benchmark models: the real example models, the bundled digits model, our re-creations of
the four MLPerf Tiny networks (generated, deterministic) and the TensorFlow-converted models with
state or post-processing of the test suite (streaming keyword spotter, Keras LSTMs, SSD head)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED_EXAMPLES = REPO.parent / "shared" / "models" / "examples"

#: the real models of ../shared/models/examples (name -> file name)
EXAMPLE_MODELS = {
    "hello_world_int8": "hello_world_int8.tflite",
    "hello_world_float": "hello_world_float.tflite",
    "micro_speech": "micro_speech_quantized.tflite",
    "keyword_scrambled": "keyword_scrambled.tflite",
    "keyword_scrambled_8bit": "keyword_scrambled_8bit.tflite",
    "simple_add": "simple_add_model.tflite",
}
MLPERF_MODELS = ("kws_dscnn", "vww_mobilenet", "ic_resnet8", "ad_autoencoder")
#: real third-party models kept in third_party/ (name -> path): TFLM's person detector, the held-out
#: model of issues 24 and 26 (MobileNetV1 0.25, 96x96x1, trained weights)
THIRD_PARTY_MODELS = {
    "person_detect": REPO / "third_party" / "tflite-micro" / "person_detect.tflite",
}
#: models with state across calls, or the detection post-processing (issue 15): name -> file
STATEFUL_MODELS = {
    "streaming_kws_int8": REPO / "tests" / "data" / "state" / "streaming_kws_int8.tflite",
    "keras_lstm_float": REPO / "tests" / "data" / "lstm" / "keras_lstm_float.tflite",
    "keras_lstm_int8": REPO / "tests" / "data" / "lstm" / "keras_lstm_int8.tflite",
    "ssd_int8": REPO / "tests" / "data" / "detection" / "ssd_int8_regular.tflite",
    "audio_preprocessor_int8": REPO / "third_party" / "tflite-micro" / "audio_preprocessor_int8.tflite",
}
#: stateful models that are not our TensorFlow-converted test models: name -> origin
_STATEFUL_ORIGINS = {"audio_preprocessor_int8": "TFLM's micro_speech audio front end (Signal* operators)"}
#: calls before the measured one for a model with state (firmware/CMakeLists.txt sets BENCH_WARMUP)
WARMUP = 2


def warmup(meta: dict) -> int:
    """Calls bench_main.c makes before the measured one: WARMUP for a model with state, else 0."""
    return WARMUP if meta.get("state_bytes", 0) > 0 else 0


@dataclass(frozen=True)
class BenchModel:
    name: str
    path: Path
    origin: str  # "example", "bundled" or "mlperf-tiny (synthetic weights)"


def model_names() -> list[str]:
    """Names of every benchmark model that can be had here."""
    return ([n for n, f in EXAMPLE_MODELS.items() if (SHARED_EXAMPLES / f).is_file()]
            + ["digits", *MLPERF_MODELS, *THIRD_PARTY_MODELS, *STATEFUL_MODELS])


def get_models(names: list[str], work_dir: Path) -> list[BenchModel]:
    """The named models, in the given order; MLPerf Tiny ones are generated into work_dir."""
    models = []
    for name in names:
        if name in EXAMPLE_MODELS:
            models.append(BenchModel(name, SHARED_EXAMPLES / EXAMPLE_MODELS[name], "example"))
        elif name in STATEFUL_MODELS:
            models.append(BenchModel(name, STATEFUL_MODELS[name],
                                     _STATEFUL_ORIGINS.get(name, "test model (TensorFlow-converted)")))
        elif name in THIRD_PARTY_MODELS:
            models.append(BenchModel(name, THIRD_PARTY_MODELS[name], "TFLM example (trained weights)"))
        elif name == "digits":
            models.append(BenchModel(name, REPO / "examples" / "models" / "digits" / "digits_int8.tflite",
                                     "bundled"))
        else:
            models.append(_mlperf_model(name, work_dir))
    return models


def _mlperf_model(name: str, work_dir: Path) -> BenchModel:
    from benchmarks import mlperf_tiny  # needs the test extras (the TFLite schema package)

    out = work_dir / "models"
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.tflite"
    data = mlperf_tiny.MODELS[name]()
    if not path.is_file() or path.read_bytes() != data:
        path.write_bytes(data)
    return BenchModel(name, path, "mlperf-tiny (synthetic weights)")
