"""Tables generated from TensorFlow Lite's schema.fbs by scripts/gen_schema.py. Do not edit.

Source: third_party/tflite/schema.fbs (Apache-2.0). Field slots are the schema's field ids (a
union takes two slots: its type, then its value). A field is (name, slot, kind, default, enum
names or None); kind is a scalar kind of utvm_build/frontend/flatbuf.py, or that kind + '[]' for
a vector. Fields of other types (strings, tables) are not listed.
"""

from __future__ import annotations

# BuiltinOperator, indexed by code (codes past the end are reported as "BUILTIN_<code>").
BUILTIN_OPERATORS: tuple[str, ...] = (
    'ADD', 'AVERAGE_POOL_2D', 'CONCATENATION', 'CONV_2D', 'DEPTHWISE_CONV_2D', 'DEPTH_TO_SPACE',
    'DEQUANTIZE', 'EMBEDDING_LOOKUP', 'FLOOR', 'FULLY_CONNECTED', 'HASHTABLE_LOOKUP', 'L2_NORMALIZATION',
    'L2_POOL_2D', 'LOCAL_RESPONSE_NORMALIZATION', 'LOGISTIC', 'LSH_PROJECTION', 'LSTM', 'MAX_POOL_2D', 'MUL',
    'RELU', 'RELU_N1_TO_1', 'RELU6', 'RESHAPE', 'RESIZE_BILINEAR', 'RNN', 'SOFTMAX', 'SPACE_TO_DEPTH',
    'SVDF', 'TANH', 'CONCAT_EMBEDDINGS', 'SKIP_GRAM', 'CALL', 'CUSTOM', 'EMBEDDING_LOOKUP_SPARSE', 'PAD',
    'UNIDIRECTIONAL_SEQUENCE_RNN', 'GATHER', 'BATCH_TO_SPACE_ND', 'SPACE_TO_BATCH_ND', 'TRANSPOSE', 'MEAN',
    'SUB', 'DIV', 'SQUEEZE', 'UNIDIRECTIONAL_SEQUENCE_LSTM', 'STRIDED_SLICE', 'BIDIRECTIONAL_SEQUENCE_RNN',
    'EXP', 'TOPK_V2', 'SPLIT', 'LOG_SOFTMAX', 'DELEGATE', 'BIDIRECTIONAL_SEQUENCE_LSTM', 'CAST', 'PRELU',
    'MAXIMUM', 'ARG_MAX', 'MINIMUM', 'LESS', 'NEG', 'PADV2', 'GREATER', 'GREATER_EQUAL', 'LESS_EQUAL',
    'SELECT', 'SLICE', 'SIN', 'TRANSPOSE_CONV', 'SPARSE_TO_DENSE', 'TILE', 'EXPAND_DIMS', 'EQUAL',
    'NOT_EQUAL', 'LOG', 'SUM', 'SQRT', 'RSQRT', 'SHAPE', 'POW', 'ARG_MIN', 'FAKE_QUANT', 'REDUCE_PROD',
    'REDUCE_MAX', 'PACK', 'LOGICAL_OR', 'ONE_HOT', 'LOGICAL_AND', 'LOGICAL_NOT', 'UNPACK', 'REDUCE_MIN',
    'FLOOR_DIV', 'REDUCE_ANY', 'SQUARE', 'ZEROS_LIKE', 'FILL', 'FLOOR_MOD', 'RANGE',
    'RESIZE_NEAREST_NEIGHBOR', 'LEAKY_RELU', 'SQUARED_DIFFERENCE', 'MIRROR_PAD', 'ABS', 'SPLIT_V', 'UNIQUE',
    'CEIL', 'REVERSE_V2', 'ADD_N', 'GATHER_ND', 'COS', 'WHERE', 'RANK', 'ELU', 'REVERSE_SEQUENCE',
    'MATRIX_DIAG', 'QUANTIZE', 'MATRIX_SET_DIAG', 'ROUND', 'HARD_SWISH', 'IF', 'WHILE',
    'NON_MAX_SUPPRESSION_V4', 'NON_MAX_SUPPRESSION_V5', 'SCATTER_ND', 'SELECT_V2', 'DENSIFY', 'SEGMENT_SUM',
    'BATCH_MATMUL', 'PLACEHOLDER_FOR_GREATER_OP_CODES', 'CUMSUM', 'CALL_ONCE', 'BROADCAST_TO', 'RFFT2D',
    'CONV_3D', 'IMAG', 'REAL', 'COMPLEX_ABS', 'HASHTABLE', 'HASHTABLE_FIND', 'HASHTABLE_IMPORT',
    'HASHTABLE_SIZE', 'REDUCE_ALL', 'CONV_3D_TRANSPOSE', 'VAR_HANDLE', 'READ_VARIABLE', 'ASSIGN_VARIABLE',
    'BROADCAST_ARGS', 'RANDOM_STANDARD_NORMAL', 'BUCKETIZE', 'RANDOM_UNIFORM', 'MULTINOMIAL', 'GELU',
    'DYNAMIC_UPDATE_SLICE', 'RELU_0_TO_1', 'UNSORTED_SEGMENT_PROD', 'UNSORTED_SEGMENT_MAX',
    'UNSORTED_SEGMENT_SUM', 'ATAN2', 'UNSORTED_SEGMENT_MIN', 'SIGN', 'BITCAST', 'BITWISE_XOR', 'RIGHT_SHIFT',
    'STABLEHLO_LOGISTIC', 'STABLEHLO_ADD', 'STABLEHLO_DIVIDE', 'STABLEHLO_MULTIPLY', 'STABLEHLO_MAXIMUM',
    'STABLEHLO_RESHAPE', 'STABLEHLO_CLAMP', 'STABLEHLO_CONCATENATE', 'STABLEHLO_BROADCAST_IN_DIM',
    'STABLEHLO_CONVOLUTION', 'STABLEHLO_SLICE', 'STABLEHLO_CUSTOM_CALL', 'STABLEHLO_REDUCE', 'STABLEHLO_ABS',
    'STABLEHLO_AND', 'STABLEHLO_COSINE', 'STABLEHLO_EXPONENTIAL', 'STABLEHLO_FLOOR', 'STABLEHLO_LOG',
    'STABLEHLO_MINIMUM', 'STABLEHLO_NEGATE', 'STABLEHLO_OR', 'STABLEHLO_POWER', 'STABLEHLO_REMAINDER',
    'STABLEHLO_RSQRT', 'STABLEHLO_SELECT', 'STABLEHLO_SUBTRACT', 'STABLEHLO_TANH', 'STABLEHLO_SCATTER',
    'STABLEHLO_COMPARE', 'STABLEHLO_CONVERT', 'STABLEHLO_DYNAMIC_SLICE', 'STABLEHLO_DYNAMIC_UPDATE_SLICE',
    'STABLEHLO_PAD', 'STABLEHLO_IOTA', 'STABLEHLO_DOT_GENERAL', 'STABLEHLO_REDUCE_WINDOW', 'STABLEHLO_SORT',
    'STABLEHLO_WHILE', 'STABLEHLO_GATHER', 'STABLEHLO_TRANSPOSE', 'DILATE', 'STABLEHLO_RNG_BIT_GENERATOR',
    'REDUCE_WINDOW', 'STABLEHLO_COMPOSITE', 'STABLEHLO_SHIFT_LEFT', 'STABLEHLO_CBRT', 'STABLEHLO_CASE',
)

# TensorType -> element type name.
TENSOR_TYPES: dict[int, str] = {
    0: 'float32',
    1: 'float16',
    2: 'int32',
    3: 'uint8',
    4: 'int64',
    5: 'string',
    6: 'bool',
    7: 'int16',
    8: 'complex64',
    9: 'int8',
    10: 'float64',
    11: 'complex128',
    12: 'uint64',
    13: 'resource',
    14: 'variant',
    15: 'uint32',
    16: 'uint16',
    17: 'int4',
    18: 'bfloat16',
    19: 'int2',
    20: 'uint4',
    21: 'float8_e4m3fn',
    22: 'float8_e5m2',
}

ACTIVATIONS: tuple[str, ...] = (
    'NONE', 'RELU', 'RELU_N1_TO_1', 'RELU6', 'TANH', 'SIGN_BIT',
)
FC_WEIGHTS_FORMATS: tuple[str, ...] = (
    'DEFAULT', 'SHUFFLED4x16INT8',
)
PADDINGS: tuple[str, ...] = (
    'SAME', 'VALID',
)
_COMBINERTYPE: tuple[str, ...] = (
    'SUM', 'MEAN', 'SQRTN',
)
_LSHPROJECTIONTYPE: tuple[str, ...] = (
    'UNKNOWN', 'SPARSE', 'DENSE',
)
_LSTMKERNELTYPE: tuple[str, ...] = (
    'FULL', 'BASIC',
)
_MIRRORPADMODE: tuple[str, ...] = (
    'REFLECT', 'SYMMETRIC',
)
_TENSORTYPE: tuple[str, ...] = (
    'FLOAT32', 'FLOAT16', 'INT32', 'UINT8', 'INT64', 'STRING', 'BOOL', 'INT16', 'COMPLEX64', 'INT8',
    'FLOAT64', 'COMPLEX128', 'UINT64', 'RESOURCE', 'VARIANT', 'UINT32', 'UINT16', 'INT4', 'BFLOAT16', 'INT2',
    'UINT4', 'FLOAT8_E4M3FN', 'FLOAT8_E5M2',
)

Field = tuple[str, int, str, object, 'tuple[str, ...] | None']

# BuiltinOptions union type -> (table name, fields).
OPTION_TABLES: dict[int, tuple[str, tuple[Field, ...]]] = {
    1: ('Conv2DOptions', (
        ('padding', 0, 'int8', 0, PADDINGS),
        ('stride_w', 1, 'int32', 0, None),
        ('stride_h', 2, 'int32', 0, None),
        ('fused_activation_function', 3, 'int8', 0, ACTIVATIONS),
        ('dilation_w_factor', 4, 'int32', 1, None),
        ('dilation_h_factor', 5, 'int32', 1, None),
        ('quantized_bias_type', 6, 'int8', 0, _TENSORTYPE),
    )),
    2: ('DepthwiseConv2DOptions', (
        ('padding', 0, 'int8', 0, PADDINGS),
        ('stride_w', 1, 'int32', 0, None),
        ('stride_h', 2, 'int32', 0, None),
        ('depth_multiplier', 3, 'int32', 0, None),
        ('fused_activation_function', 4, 'int8', 0, ACTIVATIONS),
        ('dilation_w_factor', 5, 'int32', 1, None),
        ('dilation_h_factor', 6, 'int32', 1, None),
    )),
    3: ('ConcatEmbeddingsOptions', (
        ('num_channels', 0, 'int32', 0, None),
        ('num_columns_per_channel', 1, 'int32[]', None, None),
        ('embedding_dim_per_channel', 2, 'int32[]', None, None),
    )),
    4: ('LSHProjectionOptions', (
        ('type', 0, 'int8', 0, _LSHPROJECTIONTYPE),
    )),
    5: ('Pool2DOptions', (
        ('padding', 0, 'int8', 0, PADDINGS),
        ('stride_w', 1, 'int32', 0, None),
        ('stride_h', 2, 'int32', 0, None),
        ('filter_width', 3, 'int32', 0, None),
        ('filter_height', 4, 'int32', 0, None),
        ('fused_activation_function', 5, 'int8', 0, ACTIVATIONS),
    )),
    6: ('SVDFOptions', (
        ('rank', 0, 'int32', 0, None),
        ('fused_activation_function', 1, 'int8', 0, ACTIVATIONS),
        ('asymmetric_quantize_inputs', 2, 'bool', False, None),
    )),
    7: ('RNNOptions', (
        ('fused_activation_function', 0, 'int8', 0, ACTIVATIONS),
        ('asymmetric_quantize_inputs', 1, 'bool', False, None),
    )),
    8: ('FullyConnectedOptions', (
        ('fused_activation_function', 0, 'int8', 0, ACTIVATIONS),
        ('weights_format', 1, 'int8', 0, FC_WEIGHTS_FORMATS),
        ('keep_num_dims', 2, 'bool', False, None),
        ('asymmetric_quantize_inputs', 3, 'bool', False, None),
        ('quantized_bias_type', 4, 'int8', 0, _TENSORTYPE),
    )),
    9: ('SoftmaxOptions', (
        ('beta', 0, 'float32', 0.0, None),
    )),
    10: ('ConcatenationOptions', (
        ('axis', 0, 'int32', 0, None),
        ('fused_activation_function', 1, 'int8', 0, ACTIVATIONS),
    )),
    11: ('AddOptions', (
        ('fused_activation_function', 0, 'int8', 0, ACTIVATIONS),
        ('pot_scale_int16', 1, 'bool', True, None),
    )),
    12: ('L2NormOptions', (
        ('fused_activation_function', 0, 'int8', 0, ACTIVATIONS),
    )),
    13: ('LocalResponseNormalizationOptions', (
        ('radius', 0, 'int32', 0, None),
        ('bias', 1, 'float32', 0.0, None),
        ('alpha', 2, 'float32', 0.0, None),
        ('beta', 3, 'float32', 0.0, None),
    )),
    14: ('LSTMOptions', (
        ('fused_activation_function', 0, 'int8', 0, ACTIVATIONS),
        ('cell_clip', 1, 'float32', 0.0, None),
        ('proj_clip', 2, 'float32', 0.0, None),
        ('kernel_type', 3, 'int8', 0, _LSTMKERNELTYPE),
        ('asymmetric_quantize_inputs', 4, 'bool', False, None),
    )),
    15: ('ResizeBilinearOptions', (
        ('new_height', 0, 'int32', 0, None),
        ('new_width', 1, 'int32', 0, None),
        ('align_corners', 2, 'bool', False, None),
        ('half_pixel_centers', 3, 'bool', False, None),
    )),
    16: ('CallOptions', (
        ('subgraph', 0, 'uint32', 0, None),
    )),
    17: ('ReshapeOptions', (
        ('new_shape', 0, 'int32[]', None, None),
    )),
    18: ('SkipGramOptions', (
        ('ngram_size', 0, 'int32', 0, None),
        ('max_skip_size', 1, 'int32', 0, None),
        ('include_all_ngrams', 2, 'bool', False, None),
    )),
    19: ('SpaceToDepthOptions', (
        ('block_size', 0, 'int32', 0, None),
    )),
    20: ('EmbeddingLookupSparseOptions', (
        ('combiner', 0, 'int8', 0, _COMBINERTYPE),
    )),
    21: ('MulOptions', (
        ('fused_activation_function', 0, 'int8', 0, ACTIVATIONS),
    )),
    22: ('PadOptions', ()),
    23: ('GatherOptions', (
        ('axis', 0, 'int32', 0, None),
        ('batch_dims', 1, 'int32', 0, None),
    )),
    24: ('BatchToSpaceNDOptions', ()),
    25: ('SpaceToBatchNDOptions', ()),
    26: ('TransposeOptions', ()),
    27: ('ReducerOptions', (
        ('keep_dims', 0, 'bool', False, None),
    )),
    28: ('SubOptions', (
        ('fused_activation_function', 0, 'int8', 0, ACTIVATIONS),
        ('pot_scale_int16', 1, 'bool', True, None),
    )),
    29: ('DivOptions', (
        ('fused_activation_function', 0, 'int8', 0, ACTIVATIONS),
    )),
    30: ('SqueezeOptions', (
        ('squeeze_dims', 0, 'int32[]', None, None),
    )),
    31: ('SequenceRNNOptions', (
        ('time_major', 0, 'bool', False, None),
        ('fused_activation_function', 1, 'int8', 0, ACTIVATIONS),
        ('asymmetric_quantize_inputs', 2, 'bool', False, None),
    )),
    32: ('StridedSliceOptions', (
        ('begin_mask', 0, 'int32', 0, None),
        ('end_mask', 1, 'int32', 0, None),
        ('ellipsis_mask', 2, 'int32', 0, None),
        ('new_axis_mask', 3, 'int32', 0, None),
        ('shrink_axis_mask', 4, 'int32', 0, None),
        ('offset', 5, 'bool', False, None),
    )),
    33: ('ExpOptions', ()),
    34: ('TopKV2Options', ()),
    35: ('SplitOptions', (
        ('num_splits', 0, 'int32', 0, None),
    )),
    36: ('LogSoftmaxOptions', ()),
    37: ('CastOptions', (
        ('in_data_type', 0, 'int8', 0, _TENSORTYPE),
        ('out_data_type', 1, 'int8', 0, _TENSORTYPE),
    )),
    38: ('DequantizeOptions', ()),
    39: ('MaximumMinimumOptions', ()),
    40: ('ArgMaxOptions', (
        ('output_type', 0, 'int8', 0, _TENSORTYPE),
    )),
    41: ('LessOptions', ()),
    42: ('NegOptions', ()),
    43: ('PadV2Options', ()),
    44: ('GreaterOptions', ()),
    45: ('GreaterEqualOptions', ()),
    46: ('LessEqualOptions', ()),
    47: ('SelectOptions', ()),
    48: ('SliceOptions', ()),
    49: ('TransposeConvOptions', (
        ('padding', 0, 'int8', 0, PADDINGS),
        ('stride_w', 1, 'int32', 0, None),
        ('stride_h', 2, 'int32', 0, None),
        ('fused_activation_function', 3, 'int8', 0, ACTIVATIONS),
        ('quantized_bias_type', 4, 'int8', 0, _TENSORTYPE),
    )),
    50: ('SparseToDenseOptions', (
        ('validate_indices', 0, 'bool', False, None),
    )),
    51: ('TileOptions', ()),
    52: ('ExpandDimsOptions', ()),
    53: ('EqualOptions', ()),
    54: ('NotEqualOptions', ()),
    55: ('ShapeOptions', (
        ('out_type', 0, 'int8', 0, _TENSORTYPE),
    )),
    56: ('PowOptions', ()),
    57: ('ArgMinOptions', (
        ('output_type', 0, 'int8', 0, _TENSORTYPE),
    )),
    58: ('FakeQuantOptions', (
        ('min', 0, 'float32', 0.0, None),
        ('max', 1, 'float32', 0.0, None),
        ('num_bits', 2, 'int32', 0, None),
        ('narrow_range', 3, 'bool', False, None),
    )),
    59: ('PackOptions', (
        ('values_count', 0, 'int32', 0, None),
        ('axis', 1, 'int32', 0, None),
    )),
    60: ('LogicalOrOptions', ()),
    61: ('OneHotOptions', (
        ('axis', 0, 'int32', 0, None),
    )),
    62: ('LogicalAndOptions', ()),
    63: ('LogicalNotOptions', ()),
    64: ('UnpackOptions', (
        ('num', 0, 'int32', 0, None),
        ('axis', 1, 'int32', 0, None),
    )),
    65: ('FloorDivOptions', ()),
    66: ('SquareOptions', ()),
    67: ('ZerosLikeOptions', ()),
    68: ('FillOptions', ()),
    69: ('BidirectionalSequenceLSTMOptions', (
        ('fused_activation_function', 0, 'int8', 0, ACTIVATIONS),
        ('cell_clip', 1, 'float32', 0.0, None),
        ('proj_clip', 2, 'float32', 0.0, None),
        ('merge_outputs', 3, 'bool', False, None),
        ('time_major', 4, 'bool', True, None),
        ('asymmetric_quantize_inputs', 5, 'bool', False, None),
    )),
    70: ('BidirectionalSequenceRNNOptions', (
        ('time_major', 0, 'bool', False, None),
        ('fused_activation_function', 1, 'int8', 0, ACTIVATIONS),
        ('merge_outputs', 2, 'bool', False, None),
        ('asymmetric_quantize_inputs', 3, 'bool', False, None),
    )),
    71: ('UnidirectionalSequenceLSTMOptions', (
        ('fused_activation_function', 0, 'int8', 0, ACTIVATIONS),
        ('cell_clip', 1, 'float32', 0.0, None),
        ('proj_clip', 2, 'float32', 0.0, None),
        ('time_major', 3, 'bool', False, None),
        ('asymmetric_quantize_inputs', 4, 'bool', False, None),
        ('diagonal_recurrent_tensors', 5, 'bool', False, None),
    )),
    72: ('FloorModOptions', ()),
    73: ('RangeOptions', ()),
    74: ('ResizeNearestNeighborOptions', (
        ('align_corners', 0, 'bool', False, None),
        ('half_pixel_centers', 1, 'bool', False, None),
    )),
    75: ('LeakyReluOptions', (
        ('alpha', 0, 'float32', 0.0, None),
    )),
    76: ('SquaredDifferenceOptions', ()),
    77: ('MirrorPadOptions', (
        ('mode', 0, 'int8', 0, _MIRRORPADMODE),
    )),
    78: ('AbsOptions', ()),
    79: ('SplitVOptions', (
        ('num_splits', 0, 'int32', 0, None),
    )),
    80: ('UniqueOptions', (
        ('idx_out_type', 0, 'int8', 2, _TENSORTYPE),
    )),
    81: ('ReverseV2Options', ()),
    82: ('AddNOptions', ()),
    83: ('GatherNdOptions', ()),
    84: ('CosOptions', ()),
    85: ('WhereOptions', ()),
    86: ('RankOptions', ()),
    87: ('ReverseSequenceOptions', (
        ('seq_dim', 0, 'int32', 0, None),
        ('batch_dim', 1, 'int32', 0, None),
    )),
    88: ('MatrixDiagOptions', ()),
    89: ('QuantizeOptions', ()),
    90: ('MatrixSetDiagOptions', ()),
    91: ('HardSwishOptions', ()),
    92: ('IfOptions', (
        ('then_subgraph_index', 0, 'int32', 0, None),
        ('else_subgraph_index', 1, 'int32', 0, None),
    )),
    93: ('WhileOptions', (
        ('cond_subgraph_index', 0, 'int32', 0, None),
        ('body_subgraph_index', 1, 'int32', 0, None),
    )),
    94: ('DepthToSpaceOptions', (
        ('block_size', 0, 'int32', 0, None),
    )),
    95: ('NonMaxSuppressionV4Options', ()),
    96: ('NonMaxSuppressionV5Options', ()),
    97: ('ScatterNdOptions', ()),
    98: ('SelectV2Options', ()),
    99: ('DensifyOptions', ()),
    100: ('SegmentSumOptions', ()),
    101: ('BatchMatMulOptions', (
        ('adj_x', 0, 'bool', False, None),
        ('adj_y', 1, 'bool', False, None),
        ('asymmetric_quantize_inputs', 2, 'bool', False, None),
    )),
    102: ('CumsumOptions', (
        ('exclusive', 0, 'bool', False, None),
        ('reverse', 1, 'bool', False, None),
    )),
    103: ('CallOnceOptions', (
        ('init_subgraph_index', 0, 'int32', 0, None),
    )),
    104: ('BroadcastToOptions', ()),
    105: ('Rfft2dOptions', ()),
    106: ('Conv3DOptions', (
        ('padding', 0, 'int8', 0, PADDINGS),
        ('stride_d', 1, 'int32', 0, None),
        ('stride_w', 2, 'int32', 0, None),
        ('stride_h', 3, 'int32', 0, None),
        ('fused_activation_function', 4, 'int8', 0, ACTIVATIONS),
        ('dilation_d_factor', 5, 'int32', 1, None),
        ('dilation_w_factor', 6, 'int32', 1, None),
        ('dilation_h_factor', 7, 'int32', 1, None),
    )),
    107: ('HashtableOptions', (
        ('table_id', 0, 'int32', 0, None),
        ('key_dtype', 1, 'int8', 0, _TENSORTYPE),
        ('value_dtype', 2, 'int8', 0, _TENSORTYPE),
    )),
    108: ('HashtableFindOptions', ()),
    109: ('HashtableImportOptions', ()),
    110: ('HashtableSizeOptions', ()),
    111: ('VarHandleOptions', ()),
    112: ('ReadVariableOptions', ()),
    113: ('AssignVariableOptions', ()),
    114: ('RandomOptions', (
        ('seed', 0, 'int64', 0, None),
        ('seed2', 1, 'int64', 0, None),
    )),
    115: ('BucketizeOptions', (
        ('boundaries', 0, 'float32[]', None, None),
    )),
    116: ('GeluOptions', (
        ('approximate', 0, 'bool', False, None),
    )),
    117: ('DynamicUpdateSliceOptions', ()),
    118: ('UnsortedSegmentProdOptions', ()),
    119: ('UnsortedSegmentMaxOptions', ()),
    120: ('UnsortedSegmentMinOptions', ()),
    121: ('UnsortedSegmentSumOptions', ()),
    122: ('ATan2Options', ()),
    123: ('SignOptions', ()),
    124: ('BitcastOptions', ()),
    125: ('BitwiseXorOptions', ()),
    126: ('RightShiftOptions', ()),
}


def operator_name(code: int) -> str:
    if 0 <= code < len(BUILTIN_OPERATORS):
        return BUILTIN_OPERATORS[code]
    return f"BUILTIN_{code}"
