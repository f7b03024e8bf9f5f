"""docs/operators.md is the output of scripts/gen_operator_table.py (it lists every handler)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from utvm_build.ops import supported_operators

ROOT = Path(__file__).resolve().parent.parent


def test_operator_table_is_current() -> None:
    spec = importlib.util.spec_from_file_location("gen_operator_table", ROOT / "scripts" / "gen_operator_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text = (ROOT / "docs" / "operators.md").read_text()
    assert text == module.table(), "run scripts/gen_operator_table.py"
    for name in supported_operators():
        assert f"| {name} |" in text


def test_every_tflm_builtin_of_issue_14_is_supported() -> None:
    wanted = """ABS ADD_N ARG_MAX ARG_MIN BATCH_MATMUL BATCH_TO_SPACE_ND BROADCAST_ARGS BROADCAST_TO CAST CEIL COS
    CUMSUM DEPTH_TO_SPACE DIV ELU EMBEDDING_LOOKUP EQUAL EXP EXPAND_DIMS FILL FLOOR FLOOR_DIV FLOOR_MOD GATHER
    GATHER_ND GREATER GREATER_EQUAL HARD_SWISH L2_NORMALIZATION L2_POOL_2D LESS LESS_EQUAL LOG LOG_SOFTMAX
    LOGICAL_AND LOGICAL_NOT LOGICAL_OR MAXIMUM MINIMUM MIRROR_PAD NEG NOT_EQUAL PACK PRELU REDUCE_ALL REDUCE_MAX
    REDUCE_MIN RESIZE_BILINEAR RESIZE_NEAREST_NEIGHBOR REVERSE_V2 ROUND RSQRT SELECT_V2 SHAPE SIN SLICE
    SPACE_TO_BATCH_ND SPACE_TO_DEPTH SPLIT SPLIT_V SQRT SQUARE SQUARED_DIFFERENCE SUM TRANSPOSE UNPACK ZEROS_LIKE
    DYNAMIC_UPDATE_SLICE""".split()
    assert sorted(set(wanted) - set(supported_operators())) == []
