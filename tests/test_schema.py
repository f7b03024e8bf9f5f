"""The reader's tables are generated from TFLite's schema.fbs, not copied by hand (issue 17)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tflite_writer import ModelBuilder

from utvm_build.frontend import schema
from utvm_build.frontend.tflite import read_tflite

ROOT = Path(__file__).resolve().parents[1]


def test_committed_tables_equal_generated() -> None:
    p = subprocess.run([sys.executable, ROOT / "scripts" / "gen_schema.py", "--check"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr


def test_tables_match_the_official_bindings() -> None:
    """Cross-check against the `tflite` package's generated Python (a different generator)."""
    from tflite.BuiltinOperator import BuiltinOperator
    from tflite.TensorType import TensorType

    for name, code in vars(BuiltinOperator).items():
        if not name.startswith("_") and code < len(schema.BUILTIN_OPERATORS):
            assert schema.BUILTIN_OPERATORS[code] == name, (name, code)
    for name, code in vars(TensorType).items():
        if not name.startswith("_") and code in schema.TENSOR_TYPES:
            assert schema.TENSOR_TYPES[code] == name.lower()
    assert schema.OPTION_TABLES[1][0] == "Conv2DOptions" and schema.OPTION_TABLES[89][0] == "QuantizeOptions"


def test_options_of_any_table_are_read() -> None:
    """Tables no handler uses yet are read too (vector and enum fields included)."""
    mb = ModelBuilder()
    x = mb.tensor([1, 2, 3], "float32")
    y = mb.tensor([1, 3, 2], "float32")
    mb.operator("TRANSPOSE", [x, mb.tensor([3], "int32", data=[0, 2, 1])], [y])
    z = mb.tensor([1, 6], "float32")
    mb.operator("RESHAPE", [y], [z], {"new_shape": [1, 6]})
    g = read_tflite(mb.build(inputs=[x], outputs=[z]))
    assert g.operators[1].options["new_shape"] == [1, 6]
    assert g.operators[0].options == {} or "_options_type" not in g.operators[0].options
