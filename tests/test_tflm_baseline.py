"""The TFLM baseline script's pure parts (benchmarks/tflm_baseline.py) and the cycle models
(benchmarks/cycles.py). The script itself needs a TFLM checkout and its third-party code, which CI
does not have; these tests need neither."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks import cycles, tflm_baseline  # noqa: E402

CMSIS_SH = """
DOWNLOADED_CMSIS_PATH=${DOWNLOADS_DIR}/cmsis
  ZIP_PREFIX="5782d6f8057906d360f4b95ec08a2354afe5c9b9"
  CMSIS_URL="http://github.com/ARM-software/CMSIS_6/archive/${ZIP_PREFIX}.zip"
  CMSIS_MD5="563e7c6465f63bdc034359e9b536b366"
  ZIP_PREFIX="c2c70a97a20fb355815e2ead3d4a40e35a4a3cdf"
  CMSIS_DFP_URL="http://github.com/ARM-software/Cortex_DFP/archive/${ZIP_PREFIX}.zip"
"""
CMSIS_NN_SH = """
ZIP_PREFIX_NN="4ab83cc3cc98fb85ed6dafb55e8ca02f1628dcae"
CMSIS_NN_URL="http://github.com/ARM-software/CMSIS-NN/archive/${ZIP_PREFIX_NN}.zip"
"""
DOWNLOADS_INC = """
GEMMLOWP_URL := "https://github.com/google/gemmlowp/archive/719139ce755a0f31cbf1c37f7f98adcc7fc9f425.zip"
RUY_URL="https://github.com/google/ruy/archive/d37128311b445e758136b8602d1bbd2a755e115d.zip"
FLATBUFFERS_URL := "https://github.com/google/flatbuffers/archive/refs/tags/v25.9.23.zip"
FLATBUFFERS_PATCH_PATH := "tensorflow/lite/micro/tools/make/flatbuffers.patch"
KISSFFT_URL := "https://github.com/mborgerding/kissfft/archive/refs/tags/v130.zip"
KISSFFT_PATCH_PATH := "third_party/kissfft/kissfft.patch"
EYALROZ_PRINTF_URL := "https://github.com/eyalroz/printf/archive/f8ed5a9bd9fa8384430973465e94aa14c925872d.zip"
"""


def _fake_tflm(root: Path) -> Path:
    make = root / tflm_baseline.MAKE_DIR
    (make / "ext_libs").mkdir(parents=True)
    (make / "third_party_downloads.inc").write_text(DOWNLOADS_INC)
    (make / "ext_libs" / "cmsis_download.sh").write_text(CMSIS_SH)
    (make / "ext_libs" / "cmsis_nn_download.sh").write_text(CMSIS_NN_SH)
    return root


def test_script_variables_expand_earlier_assignments() -> None:
    got = tflm_baseline.script_variables('A="x1"\nB := "$(A)/y"\n  C=${B}.zip\nnot an assignment\n')
    assert got == [("A", "x1"), ("B", "x1/y"), ("C", "x1/y.zip")]


def test_github_archives_reads_commits_and_tags() -> None:
    assert tflm_baseline.github_archives(CMSIS_SH) == [
        ("ARM-software/CMSIS_6", "5782d6f8057906d360f4b95ec08a2354afe5c9b9"),
        ("ARM-software/Cortex_DFP", "c2c70a97a20fb355815e2ead3d4a40e35a4a3cdf")]
    assert ("google/flatbuffers", "v25.9.23") in tflm_baseline.github_archives(DOWNLOADS_INC)


def test_dependencies_from_a_checkout(tmp_path: Path) -> None:
    deps = {d.repo: d for d in tflm_baseline.dependencies(_fake_tflm(tmp_path))}
    assert set(deps) == set(tflm_baseline._DESTS)  # eyalroz/printf is another target's
    assert deps["ARM-software/CMSIS-NN"].ref == "4ab83cc3cc98fb85ed6dafb55e8ca02f1628dcae"
    assert deps["ARM-software/Cortex_DFP"].dest == "cmsis/Cortex_DFP"
    assert deps["mborgerding/kissfft"].patch == "third_party/kissfft/kissfft.patch"
    assert deps["google/gemmlowp"].patch is None
    order = [d.dest for d in tflm_baseline.dependencies(tmp_path)]
    assert order.index("cmsis") < order.index("cmsis/Cortex_DFP")


def test_dependencies_missing_one_is_an_error(tmp_path: Path) -> None:
    root = _fake_tflm(tmp_path)
    (root / tflm_baseline.MAKE_DIR / "ext_libs" / "cmsis_nn_download.sh").write_text("# nothing\n")
    with pytest.raises(tflm_baseline.BaselineError, match="CMSIS-NN"):
        tflm_baseline.dependencies(root)


def test_library_objects_keeps_the_operators_kernels() -> None:
    g = "gen/x/obj/"
    objs = [g + "core/tensorflow/lite/micro/micro_interpreter.o", g + "core/tensorflow/lite/micro/test_helpers.o",
            g + "core/tensorflow/lite/micro/recording_micro_allocator.o", g + "core/signal/src/window.o",
            g + "kernels/tensorflow/lite/micro/kernels/cmsis_nn/conv.o",
            g + "kernels/tensorflow/lite/micro/kernels/conv_common.o",
            g + "kernels/tensorflow/lite/micro/kernels/pooling_common.o",
            g + "kernels/tensorflow/lite/micro/kernels/gather.o",
            g + "kernels/tensorflow/lite/micro/kernels/kernel_util.o",
            g + "third_party_kernels/downloads/cmsis_nn/Source/X/arm_convolve_s8.o"]
    kept = {Path(o).name for o in tflm_baseline.library_objects(objs, ("CONV_2D", "AVERAGE_POOL_2D"))}
    assert kept == {"micro_interpreter.o", "conv.o", "conv_common.o", "pooling_common.o", "kernel_util.o",
                    "arm_convolve_s8.o"}


def test_glue_names_the_resolver_entries_and_refuses_unknown_ops() -> None:
    info = tflm_baseline.ModelInfo(("CONV_2D", "SOFTMAX"), ((490, False),), (12,))
    src = tflm_baseline.glue_source("kws", info, 1024)
    assert "resolver.AddConv2D();" in src and "resolver.AddSoftmax();" in src
    assert "MicroMutableOpResolver<2>" in src and "kArenaBytes = 1024" in src
    assert "new (resolver_buf) Resolver()" in src  # no static constructors on the target
    assert "{nullptr, 490u, BENCH_FILL_BYTES}" in src and "{nullptr, 12u, BENCH_FILL_BYTES}" in src
    with pytest.raises(tflm_baseline.BaselineError, match="SIGNAL_FFT"):
        tflm_baseline.glue_source("x", tflm_baseline.ModelInfo(("SIGNAL_FFT",), (), ()), 16)


def test_model_source_is_the_flatbuffer() -> None:
    src = tflm_baseline.model_source(bytes(range(30)))
    body = src.split("{", 1)[1].split("}", 1)[0]
    assert [int(v) for v in body.replace("\n", "").split(",")] == list(range(30))
    assert "g_model_len = 30u" in src


def test_arena_used_line() -> None:
    assert tflm_baseline.arena_used("model x\narena_used 22820\n") == 22820
    with pytest.raises(tflm_baseline.BaselineError):
        tflm_baseline.arena_used("rc 0\n")


def test_splice_section_replaces_or_appends() -> None:
    first = tflm_baseline.splice_section("# Results\n\ntable\n", "## TFLM\nrow 1")
    assert first.startswith("# Results\n\ntable\n\n<!-- tflm-baseline -->\n## TFLM\nrow 1\n")
    second = tflm_baseline.splice_section(first + "after\n", "## TFLM\nrow 2")
    assert "row 1" not in second and "row 2" in second and second.endswith("after\n")
    assert second.count(tflm_baseline.SECTION_BEGIN) == 1


def _record(model: str, core: str, instructions: int, outputs: list[str]) -> dict:
    return {"model": model, "config": f"tflm-{core}", "core": "cortex-m55", "machine": "mps3-an547",
            "instructions": instructions, "mix_classes": {"alu": instructions // 2, "fp": instructions // 2},
            "outputs": outputs, "flash_bytes": 5000, "flatbuffer_bytes": 3000, "ram_bytes": 2000,
            "arena_bytes": 1500, "stack_bytes": 400, "tflm_commit": "90b983c2b0123456"}


def test_render_section_puts_ours_beside_tflm() -> None:
    tflm = [_record("kws_dscnn", "m55", 1000, ["ab"])]
    ours = [{"model": "kws_dscnn", "config": "m55-Os-cortex-m55", "instructions": 500, "flash_bytes": 4000,
             "ram_bytes": 900, "outputs": ["ab"]}]
    text = tflm_baseline.render_section(tflm, ours)
    row = next(line for line in text.splitlines() if line.startswith("| kws_dscnn"))
    m55 = cycles.estimate(tflm[0]["mix_classes"], cycles.CORTEX_M55)
    m85 = cycles.estimate(tflm[0]["mix_classes"], cycles.CORTEX_M85)
    # instructions, anchors.md's figure and the difference, the cycle estimates (M55, then M85)
    assert f"| 1 000 | 2.46 M (-100.0 %) | {m55:,} | {m85:,} |".replace(",", " ") in row
    assert "| 0.50x |" in row and row.endswith("| identical |")
    assert "90b983c2b012" in text
    assert tflm_baseline.render_section([]) == ""


def test_write_and_load_records(tmp_path: Path) -> None:
    rec = _record("ad_autoencoder", "m4", 10, [])
    path = tflm_baseline.write_record(tmp_path, rec)
    assert path.name == "ad_autoencoder--tflm-m4.json"
    assert tflm_baseline.load_records(tmp_path) == [rec]


def test_cycle_models_per_core() -> None:
    mix = {"alu": 10, "ld": 4, "dsp_mac": 6, "fp": 8, "branch": 2, "taken": 2}
    m4 = cycles.estimate(mix, cycles.CORTEX_M4)
    assert m4 == 10 + 8 + 6 + 8 + 2 + 4
    assert cycles.estimate(mix, cycles.CORTEX_M33) == m4  # the same table (documented)
    m7 = cycles.estimate(mix, cycles.CORTEX_M7)
    assert m7 == 5 + 4 + 6 + 8 + 1 + 2
    assert cycles.estimate(mix, cycles.CORTEX_M85) == m7  # MVE/FP 1 cycle, as the M7's FP
    assert {"cortex-m4", "cortex-m33", "cortex-m7", "cortex-m85"} <= set(cycles.MODELS)


def test_results_give_every_applicable_core_beside_instructions() -> None:
    from benchmarks import cycles_report, report

    mix = {"alu": 100, "ld": 20, "dsp_mac": 30, "fp": 40, "taken": 5}
    recs = [{"model": "kws", "config": "m4-Os", "instructions": 190, "mix_classes": mix},
            {"model": "kws", "config": "m55-Os", "instructions": 190, "mix_classes": mix},
            {"model": "old", "config": "m4-O2", "instructions": 7, "cycles": {"cortex-m4": 9}}]
    text = "\n".join(cycles_report.render_cycles(recs))
    m4_row = next(line for line in text.splitlines() if line.startswith("| kws | m4-Os |"))
    want = [cycles.estimate(mix, cycles.MODELS[n]) for n in ("cortex-m4", "cortex-m33", "cortex-m7")]
    assert m4_row == "| kws | m4-Os | 190 | " + " | ".join(f"{c:,}".replace(",", " ") for c in want) + " |"
    assert "M85 cycles (est.)" in text and "| old |" not in text  # no mix: not re-estimated
    assert report.cycles_of(recs[2], "cortex-m4") == 9


def test_cmsis_nn_closure_follows_calls_and_shared_files() -> None:
    sources = {
        "arm_convolve_s8": "arm_cmsis_nn_status arm_convolve_s8(int a)\n{\n    return arm_nn_mat_mult_s8(a);\n}\n",
        "arm_nn_mat_mult_s8": "int arm_nn_mat_mult_s8(int a)\n{\n    return a;\n}\n",
        "arm_convolve_get_buffer_sizes_s8": "int32_t arm_convolve_s8_get_buffer_size(const int *d)\n{\n"
                                            "    return 0;\n}\n",
        "arm_unused_s8": "void arm_unused_s8(void)\n{\n}\n",
    }
    kernel = "status = arm_convolve_s8(x);\nsize = arm_convolve_s8_get_buffer_size(&dims);\n"
    assert tflm_baseline.cmsis_nn_closure([kernel], sources) == {
        "arm_convolve_s8", "arm_nn_mat_mult_s8", "arm_convolve_get_buffer_sizes_s8"}
