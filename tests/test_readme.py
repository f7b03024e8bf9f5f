"""The README's C examples compile against a real model (issue 17: names a user can predict)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from system_tools import need

from utvm_build import CompileOptions, compile_model
from utvm_build.host import STRICT_CFLAGS

ROOT = Path(__file__).resolve().parents[1]
DIGITS = ROOT / "examples" / "models" / "digits" / "digits_int8.tflite"


def readme_c_blocks() -> list[str]:
    blocks = re.findall(r"```c\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    return [b for b in blocks if "tvmgen_kws" in b]


def test_readme_examples_compile(tmp_path: Path) -> None:
    need("gcc")
    blocks = readme_c_blocks()
    assert len(blocks) >= 2, "the README lost its C examples"
    for io in ("caller", "workspace"):
        gen = tmp_path / io
        compile_model(DIGITS, gen, CompileOptions(name="kws", io=io))
        for k, block in enumerate(blocks):
            if "map_inputs" in block and io != "workspace":
                continue
            src = tmp_path / f"{io}_{k}.c"
            prelude = '#include <stdint.h>\n#include "tvmgen_kws.h"\nvoid read_features(int8_t* x);\n'
            src.write_text(prelude + block)
            p = subprocess.run(["cc", *STRICT_CFLAGS, "-c", str(src), f"-I{gen / 'include'}", "-o",
                                str(src.with_suffix(".o"))], capture_output=True, text=True)
            assert p.returncode == 0, f"README block {k} with --io {io}:\n{block}\n{p.stderr}"


def test_positional_names_never_collide(tmp_path: Path) -> None:
    """Tensors named like another port's positional name get another C name; the positional
    macros always mean position k."""
    from tflite_writer import ModelBuilder

    need("gcc")
    mb = ModelBuilder()
    a = mb.tensor([1, 4], "float32", name="input_1")    # port 0: its natural name is input 1's
    b = mb.tensor([1, 6], "float32", name="input_0")    # port 1
    ya = mb.tensor([1, 4], "float32", name="output_0")  # port 0 of the outputs: its own name
    yb = mb.tensor([1, 6], "float32", name="y")
    mb.operator("RELU", [a], [ya])
    mb.operator("RELU", [b], [yb])
    model = tmp_path / "m.tflite"
    model.write_bytes(mb.build(inputs=[a, b], outputs=[ya, yb]))
    gen = tmp_path / "gen"
    compile_model(model, gen, CompileOptions(name="m"))
    header = (gen / "include" / "tvmgen_m.h").read_text()
    assert "#define TVMGEN_M_INPUT_0_SIZE 16" in header and "#define TVMGEN_M_INPUT_1_SIZE 24" in header
    assert "#define TVMGEN_M_OUTPUT_0_SIZE 16" in header and "#define TVMGEN_M_OUTPUT_1_SIZE 24" in header
    members = re.findall(r"void\* (\w+);", header)
    assert members[2] == "output_0" and not {"input_0", "input_1"} & set(members[:2]), members
    src = tmp_path / "use.c"
    src.write_text('#include "tvmgen_m.h"\nstatic float x0[TVMGEN_M_INPUT_0_SIZE / 4], x1[TVMGEN_M_INPUT_1_SIZE / 4];\n'
                   "static float y0[4], y1[6];\nint32_t f(void) {\n  struct tvmgen_m_inputs in = {x0, x1};\n"
                   "  struct tvmgen_m_outputs out = {y0, y1};\n  TVMGEN_M_INPUT_1(in) = x1;\n"
                   "  return tvmgen_m_run(&in, &out);\n}\n")
    p = subprocess.run(["cc", *STRICT_CFLAGS, "-c", str(src), f"-I{gen / 'include'}", "-o", str(tmp_path / "u.o")],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
