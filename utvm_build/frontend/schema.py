"""Facts from TensorFlow Lite's public schema (schema.fbs, version 3) that the reader needs.

Field slots are the schema's field ids (a union takes two slots: type, then value).
"""

from __future__ import annotations

# BuiltinOperator, indexed by code (codes past the end are reported as "BUILTIN_<code>").
BUILTIN_OPERATORS: tuple[str, ...] = (
    "ADD", "AVERAGE_POOL_2D", "CONCATENATION", "CONV_2D", "DEPTHWISE_CONV_2D", "DEPTH_TO_SPACE",
    "DEQUANTIZE", "EMBEDDING_LOOKUP", "FLOOR", "FULLY_CONNECTED", "HASHTABLE_LOOKUP",
    "L2_NORMALIZATION", "L2_POOL_2D", "LOCAL_RESPONSE_NORMALIZATION", "LOGISTIC", "LSH_PROJECTION",
    "LSTM", "MAX_POOL_2D", "MUL", "RELU", "RELU_N1_TO_1", "RELU6", "RESHAPE", "RESIZE_BILINEAR",
    "RNN", "SOFTMAX", "SPACE_TO_DEPTH", "SVDF", "TANH", "CONCAT_EMBEDDINGS", "SKIP_GRAM", "CALL",
    "CUSTOM", "EMBEDDING_LOOKUP_SPARSE", "PAD", "UNIDIRECTIONAL_SEQUENCE_RNN", "GATHER",
    "BATCH_TO_SPACE_ND", "SPACE_TO_BATCH_ND", "TRANSPOSE", "MEAN", "SUB", "DIV", "SQUEEZE",
    "UNIDIRECTIONAL_SEQUENCE_LSTM", "STRIDED_SLICE", "BIDIRECTIONAL_SEQUENCE_RNN", "EXP",
    "TOPK_V2", "SPLIT", "LOG_SOFTMAX", "DELEGATE", "BIDIRECTIONAL_SEQUENCE_LSTM", "CAST", "PRELU",
    "MAXIMUM", "ARG_MAX", "MINIMUM", "LESS", "NEG", "PADV2", "GREATER", "GREATER_EQUAL",
    "LESS_EQUAL", "SELECT", "SLICE", "SIN", "TRANSPOSE_CONV", "SPARSE_TO_DENSE", "TILE",
    "EXPAND_DIMS", "EQUAL", "NOT_EQUAL", "LOG", "SUM", "SQRT", "RSQRT", "SHAPE", "POW", "ARG_MIN",
    "FAKE_QUANT", "REDUCE_PROD", "REDUCE_MAX", "PACK", "LOGICAL_OR", "ONE_HOT", "LOGICAL_AND",
    "LOGICAL_NOT", "UNPACK", "REDUCE_MIN", "FLOOR_DIV", "REDUCE_ANY", "SQUARE", "ZEROS_LIKE",
    "FILL", "FLOOR_MOD", "RANGE", "RESIZE_NEAREST_NEIGHBOR", "LEAKY_RELU", "SQUARED_DIFFERENCE",
    "MIRROR_PAD", "ABS", "SPLIT_V", "UNIQUE", "CEIL", "REVERSE_V2", "ADD_N", "GATHER_ND", "COS",
    "WHERE", "RANK", "ELU", "REVERSE_SEQUENCE", "MATRIX_DIAG", "QUANTIZE", "MATRIX_SET_DIAG",
    "ROUND", "HARD_SWISH", "IF", "WHILE", "NON_MAX_SUPPRESSION_V4", "NON_MAX_SUPPRESSION_V5",
    "SCATTER_ND", "SELECT_V2", "DENSIFY", "SEGMENT_SUM", "BATCH_MATMUL",
    "PLACEHOLDER_FOR_GREATER_OP_CODES", "CUMSUM", "CALL_ONCE", "BROADCAST_TO", "RFFT2D", "CONV_3D",
    "IMAG", "REAL", "COMPLEX_ABS", "HASHTABLE", "HASHTABLE_FIND", "HASHTABLE_IMPORT",
    "HASHTABLE_SIZE", "REDUCE_ALL", "CONV_3D_TRANSPOSE", "VAR_HANDLE", "READ_VARIABLE",
    "ASSIGN_VARIABLE", "BROADCAST_ARGS", "RANDOM_STANDARD_NORMAL", "BUCKETIZE", "RANDOM_UNIFORM",
    "MULTINOMIAL", "GELU", "DYNAMIC_UPDATE_SLICE", "RELU_0_TO_1", "UNSORTED_SEGMENT_PROD",
    "UNSORTED_SEGMENT_MAX", "UNSORTED_SEGMENT_SUM", "ATAN2", "UNSORTED_SEGMENT_MIN", "SIGN",
    "BITCAST", "BITWISE_XOR", "RIGHT_SHIFT",
)

# TensorType -> numpy dtype name (None: not supported as a tensor type here).
TENSOR_TYPES: dict[int, str] = {
    0: "float32", 1: "float16", 2: "int32", 3: "uint8", 4: "int64", 5: "string", 6: "bool",
    7: "int16", 8: "complex64", 9: "int8", 10: "float64", 11: "complex128", 12: "uint64",
    13: "resource", 14: "variant", 15: "uint32", 16: "uint16", 17: "int4", 18: "bfloat16",
}

ACTIVATIONS = ("NONE", "RELU", "RELU_N1_TO_1", "RELU6", "TANH", "SIGN_BIT")
PADDINGS = ("SAME", "VALID")
FC_WEIGHTS_FORMATS = ("DEFAULT", "SHUFFLED4x16INT8")

# Option tables: BuiltinOptions union type -> (table name, fields). A field is
# (name, slot, scalar kind or "int32[]" for a vector, default, enum names or None).
Field = tuple[str, int, str, object, "tuple[str, ...] | None"]
_ACT: Field = ("fused_activation_function", 0, "int8", 0, ACTIVATIONS)


def _act(slot: int) -> Field:
    return ("fused_activation_function", slot, "int8", 0, ACTIVATIONS)


def _pad(slot: int) -> Field:
    return ("padding", slot, "int8", 0, PADDINGS)


OPTION_TABLES: dict[int, tuple[str, tuple[Field, ...]]] = {
    1: ("Conv2DOptions", (_pad(0), ("stride_w", 1, "int32", 0, None), ("stride_h", 2, "int32", 0, None),
                          _act(3), ("dilation_w_factor", 4, "int32", 1, None),
                          ("dilation_h_factor", 5, "int32", 1, None))),
    2: ("DepthwiseConv2DOptions", (_pad(0), ("stride_w", 1, "int32", 0, None),
                                   ("stride_h", 2, "int32", 0, None),
                                   ("depth_multiplier", 3, "int32", 0, None), _act(4),
                                   ("dilation_w_factor", 5, "int32", 1, None),
                                   ("dilation_h_factor", 6, "int32", 1, None))),
    5: ("Pool2DOptions", (_pad(0), ("stride_w", 1, "int32", 0, None), ("stride_h", 2, "int32", 0, None),
                          ("filter_width", 3, "int32", 0, None), ("filter_height", 4, "int32", 0, None),
                          _act(5))),
    6: ("SVDFOptions", (("rank", 0, "int32", 0, None), _act(1),
                        ("asymmetric_quantize_inputs", 2, "bool", False, None))),
    8: ("FullyConnectedOptions", (_act(0), ("weights_format", 1, "int8", 0, FC_WEIGHTS_FORMATS),
                                  ("keep_num_dims", 2, "bool", False, None),
                                  ("asymmetric_quantize_inputs", 3, "bool", False, None))),
    9: ("SoftmaxOptions", (("beta", 0, "float32", 0.0, None),)),
    10: ("ConcatenationOptions", (("axis", 0, "int32", 0, None), _act(1))),
    11: ("AddOptions", (_ACT, ("pot_scale_int16", 1, "bool", True, None))),
    17: ("ReshapeOptions", (("new_shape", 0, "int32[]", None, None),)),
    21: ("MulOptions", (_ACT,)),
    22: ("PadOptions", ()),
    27: ("ReducerOptions", (("keep_dims", 0, "bool", False, None),)),
    28: ("SubOptions", (_ACT, ("pot_scale_int16", 1, "bool", True, None))),
    30: ("SqueezeOptions", (("squeeze_dims", 0, "int32[]", None, None),)),
    32: ("StridedSliceOptions", (("begin_mask", 0, "int32", 0, None), ("end_mask", 1, "int32", 0, None),
                                ("ellipsis_mask", 2, "int32", 0, None),
                                ("new_axis_mask", 3, "int32", 0, None),
                                ("shrink_axis_mask", 4, "int32", 0, None),
                                ("offset", 5, "bool", False, None))),
    38: ("DequantizeOptions", ()),
    49: ("TransposeConvOptions", (_pad(0), ("stride_w", 1, "int32", 0, None),
                                  ("stride_h", 2, "int32", 0, None), _act(3))),
    75: ("LeakyReluOptions", (("alpha", 0, "float32", 0.0, None),)),
    89: ("QuantizeOptions", ()),
}


def operator_name(code: int) -> str:
    if 0 <= code < len(BUILTIN_OPERATORS):
        return BUILTIN_OPERATORS[code]
    return f"BUILTIN_{code}"
