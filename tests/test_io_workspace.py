"""--io workspace: inputs and outputs planned in the workspace.

The results must not change (checked against the TFLite reference, through the copy path of
``run`` that the harness uses), the workspace must hold what the caller no longer allocates, and
the zero-copy path (``map_inputs``/``map_outputs``) must give the same bytes as the copy path.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import SHARED_MODELS
from harness import Case, check_against_oracle
from oracle import random_inputs

from utvm_build import CompileOptions, compile_model
from utvm_build.compiler import compile_bytes
from utvm_build.host import STRICT_CFLAGS

REPO = Path(__file__).resolve().parents[1]
DIGITS = REPO / "examples" / "models" / "digits" / "digits_int8.tflite"
SHARED = [SHARED_MODELS / "examples" / f for f in
          ("micro_speech_quantized.tflite", "keyword_scrambled.tflite", "hello_world_float.tflite",
           "simple_add_model.tflite")]


def models() -> list[Path]:
    return [DIGITS] + [p for p in SHARED if p.is_file()]


@pytest.mark.parametrize("workspace", ["static", "user"])
def test_outputs_unchanged(workspace: str) -> None:
    opts = CompileOptions(io="workspace", workspace=workspace)
    cases = [Case(p.read_bytes(), random_inputs(p.read_bytes(), seed=s), f"{p.stem} seed {s}", opts)
             for p in models() for s in (1, 2)]
    check_against_oracle(cases)


def test_workspace_holds_the_io() -> None:
    for p in models():
        caller = compile_bytes(p.read_bytes(), "m").metadata
        inside = compile_bytes(p.read_bytes(), "m", CompileOptions(io="workspace")).metadata
        io_bytes = sum(t["bytes"] for t in caller["inputs"] + caller["outputs"])
        # never worse than caller buffers + workspace, and every port has its place
        assert inside["workspace_bytes"] <= caller["workspace_bytes"] + io_bytes + 16 * 4, p.name
        assert inside["workspace_lower_bound_bytes"] >= caller["workspace_lower_bound_bytes"], p.name
        for port in inside["inputs"] + inside["outputs"]:
            assert 0 <= port["workspace_offset"] <= inside["workspace_bytes"] - port["bytes"], p.name
        assert all("workspace_offset" not in port for port in caller["inputs"] + caller["outputs"])
    digits = compile_bytes(DIGITS.read_bytes(), "m", CompileOptions(io="workspace")).metadata
    assert digits["workspace_bytes"] == 640  # the image and the scores fit beside the intermediates


ZERO_COPY_MAIN = r"""
#include <stdio.h>
#include <string.h>
#include "tvmgen_d.h"

int main(void) {
  static int8_t image[64];
  static int8_t scores[10];
  struct tvmgen_d_inputs in = {image};
  struct tvmgen_d_outputs out = {scores};
  struct tvmgen_d_inputs min;
  struct tvmgen_d_outputs mout;
  for (int i = 0; i < 64; ++i) {
    image[i] = (int8_t)(i * 37 - 100);
  }
  if (tvmgen_d_run(&in, &out) != 0) {
    return 1;
  }
  tvmgen_d_map_inputs(&min);
  tvmgen_d_map_outputs(&mout);
  memcpy(min.serving_default_image_0, image, sizeof image);
  if (tvmgen_d_run(&min, &mout) != 0) {
    return 2;
  }
  for (int i = 0; i < 10; ++i) {
    printf("%d ", ((const int8_t*)mout.statefulpartitionedcall_1_0)[i]);
  }
  printf("\n");
  return memcmp(mout.statefulpartitionedcall_1_0, scores, sizeof scores) == 0 ? 0 : 3;
}
"""


def test_zero_copy_path_matches_copy_path(tmp_path: Path) -> None:
    gen = tmp_path / "gen"
    compile_model(DIGITS, gen, CompileOptions(name="d", io="workspace"))
    (tmp_path / "main.c").write_text(ZERO_COPY_MAIN)
    exe = tmp_path / "zero_copy"
    sources = [str(gen / "src" / f) for f in ("tvmgen_d.c", "tvmgen_d_ops.c", "tvmgen_d_constants.c")]
    subprocess.run(["cc", *STRICT_CFLAGS, "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
                    "-I", str(gen / "include"), str(tmp_path / "main.c"), *sources, "-o", str(exe)], check=True)
    run = subprocess.run([str(exe)], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    assert len(run.stdout.split()) == 10
