"""ADD, SUB, MUL: int8, int16, float32 and int32 with TFLite broadcasting (TFLite reference semantics).

Prepare work done here, as in tensorflow/lite/kernels/{add,sub,mul}.cc:
- ADD/SUB int8 and int16 general scale: left_shift 20 (int8) / 15 (int16);
  ``twice_max_input_scale = 2 * max(s1, s2)`` (float32, exact), input multipliers
  ``s_i / twice_max`` and output multiplier ``twice_max / (2^left_shift * s_out)`` in double,
  each through QuantizeMultiplierSmallerThanOneExp; SUB negates input2's multiplier.
- ADD/SUB int16 with ``pot_scale_int16`` true and all scales powers of two (CheckedLog2, float32,
  tolerance 1e-3): the fixed-point path (shift one input right, saturating int16 add/sub).
- MUL int8/int16: ``s1 * s2 / s_out`` computed in float32 (the operands are floats in mul.cc),
  then QuantizeMultiplier.
Broadcast strides are computed here; the C kernel walks at most UTVM_EW_MAX_DIMS collapsed dims.
"""

from __future__ import annotations

import numpy as np

from ..graph import Graph, Operator, Tensor
from ..quant import UnrepresentableMultiplier, activation_range_float, activation_range_quantized, quantize_multiplier
from ..selection import offers
from .add_s8_lin import fit_linear_add, reference_table
from .base import OpHandler, dtype_suffix, expect_counts, expect_dtype, expect_scale, fail, out_tensor, register, tensor
from .call import Const, In, KernelCall, Lit, Out, Params, Prepared, call

MAX_DIMS = 6

#: The highest rank TFLite 2.14's reference kernels broadcast (RuntimeShape::ExtendedShape(N, ...);
#: they abort beyond it; operands of one shape take the elementwise path and have no limit), probed
#: against tflite-runtime's BUILTIN_REF per operator and type. Not listed: 4.
#: DIV int8 exists only in TFLite Micro (the oracle there): BroadcastBinaryOpSimple takes up to 8 dims,
#: TFLM's RuntimeShape holds 6.
_BROADCAST_RANK = {"ADD": 6, "SUB": 5, "MAXIMUM": 5, "MINIMUM": 5, "DIV": 5, "SELECT_V2": 5,
                   ("SQUARED_DIFFERENCE", "int8"): 6, ("DIV", "int8"): 6}


def check_broadcast_rank(op: Operator, *tensors: Tensor) -> None:
    """Refuse a broadcast of higher rank than the reference kernel handles (it aborts there)."""
    shapes = [tuple(t.shape) for t in tensors]
    if len(set(shapes)) <= 1:
        return
    limit = _BROADCAST_RANK.get((op.op, tensors[-1].dtype), _BROADCAST_RANK.get(op.op, 4))
    rank = max(len(s) for s in shapes)
    if rank > limit:
        raise fail(op, f"broadcasting {rank}-D operands is not supported (the reference kernels broadcast up to "
                       f"{limit}-D; operands of the same shape may have any rank)")
_ACTS = ("NONE", "RELU", "RELU6", "RELU_N1_TO_1")


def broadcast_plan(shape1: tuple[int, ...], shape2: tuple[int, ...], out_shape: tuple[int, ...],
                   max_dims: int = MAX_DIMS) -> tuple[list[int], list[int], list[int]] | None:
    """Collapsed output dims and element strides of both inputs (0 on broadcast dims).

    Returns None when the shapes do not broadcast to ``out_shape`` or need more than max_dims
    collapsed dimensions. Dims are outermost first, padded at the front with extent 1.
    """
    rank = max(len(shape1), len(shape2), len(out_shape))
    s1 = (1,) * (rank - len(shape1)) + tuple(shape1)
    s2 = (1,) * (rank - len(shape2)) + tuple(shape2)
    so = (1,) * (rank - len(out_shape)) + tuple(out_shape)
    for a, b, o in zip(s1, s2, so):
        if a not in (1, o) or b not in (1, o) or (o != 1 and a == 1 and b == 1):
            return None
    # Drop extent-1 output dims, then merge neighbours with the same broadcast pattern.
    groups: list[list[int]] = []  # [extent, in1 present, in2 present]
    for a, b, o in zip(s1, s2, so):
        if o == 1:
            continue
        kind = [o, int(a == o), int(b == o)]
        if groups and groups[-1][1:] == kind[1:]:
            groups[-1][0] *= o
        else:
            groups.append(kind)
    if len(groups) > max_dims:
        return None
    groups = [[1, 1, 1]] * (max_dims - len(groups)) + groups
    dims = [g[0] for g in groups]
    st1, st2 = [0] * max_dims, [0] * max_dims
    acc1 = acc2 = 1
    for d in range(max_dims - 1, -1, -1):
        ext, p1, p2 = groups[d]
        if p1 and ext > 1:
            st1[d] = acc1
            acc1 *= ext
        if p2 and ext > 1:
            st2[d] = acc2
            acc2 *= ext
    return dims, st1, st2


def checked_log2(x: float) -> tuple[bool, int]:
    """TFLite CheckedLog2 (float32 arithmetic): (is a power of two within 1e-3 in log2, log2)."""
    xf = np.float32(x)
    if not xf > 0:
        return False, 0
    log2 = np.float32(np.log(xf)) * (np.float32(1.0) / np.float32(np.log(np.float32(2.0))))
    rounded = np.float32(np.sign(log2) * np.floor(np.abs(log2) + np.float32(0.5)))
    frac = np.float32(log2 - rounded)
    return bool(abs(frac) < np.float32(1e-3)), int(rounded)


def quantize_multiplier_lt1(real: float) -> tuple[int, int]:
    """QuantizeMultiplierSmallerThanOneExp: real in (0, 1) -> (multiplier, shift <= 0)."""
    if not real < 1.0:   # TFLite: TFLITE_CHECK_LT(double_multiplier, 1.)
        raise UnrepresentableMultiplier(f"the rescale factor {real:.6g} (from the quantization scales) must be "
                                        "below 1")
    return quantize_multiplier(real)


def _shape_fields(x1: Tensor, x2: Tensor, out: Tensor) -> dict:
    size = int(np.prod(out.shape, dtype=np.int64))
    if tuple(x1.shape) == tuple(x2.shape) and x1.size == size:
        one = [1] * MAX_DIMS
        zero = [0] * MAX_DIMS
        return {"size": size, "broadcast": 0, "dims": one, "stride1": zero, "stride2": zero}
    plan = broadcast_plan(x1.shape, x2.shape, out.shape)
    assert plan is not None
    dims, st1, st2 = plan
    return {"size": size, "broadcast": 1, "dims": dims, "stride1": st1, "stride2": st2}


def int32_call(op: Operator, x1: Tensor, x2: Tensor, out: Tensor, code: int) -> KernelCall:
    """int32 ADD (0) / SUB (1) / MUL (2): wrap-around arithmetic, CalculateActivationRange<int32_t>."""
    act = op.options.get("fused_activation_function", "NONE")
    lo, hi = {"NONE": (-(1 << 31), (1 << 31) - 1), "RELU": (0, (1 << 31) - 1), "RELU6": (0, 6),
              "RELU_N1_TO_1": (-1, 1)}[act]
    p = Params("utvm_arith_s32_params", {"op": code, "act_min": lo, "act_max": hi})
    s = Params("utvm_ew_shape", _shape_fields(x1, x2, out), "shape")
    return call("utvm_arith_s32", p, s, In(0), In(1), Out(0))


class _Binary(OpHandler):
    supported = "int8, int16 (zero point 0), float32, int32; broadcasting (up to 6 collapsed dims)"

    def validate(self, op: Operator, g: Graph) -> None:
        expect_counts(op, 2)
        x1, x2, out = tensor(g, op, 0), tensor(g, op, 1), out_tensor(g, op)
        expect_dtype(op, x1, ("int8", "int16", "float32", "int32"), "input1")
        expect_dtype(op, x2, (x1.dtype,), "input2")
        expect_dtype(op, out, (x1.dtype,), "output")
        act = op.options.get("fused_activation_function", "NONE")
        if act not in _ACTS:
            raise fail(op, f"fused activation {act} is not supported; supported: {', '.join(_ACTS)}")
        check_broadcast_rank(op, x1, x2)
        same = tuple(x1.shape) == tuple(x2.shape)
        if same and tuple(out.shape) != tuple(x1.shape) and out.size != x1.size:
            raise fail(op, f"output shape {list(out.shape)} does not match the inputs {list(x1.shape)}")
        if not same and broadcast_plan(x1.shape, x2.shape, out.shape) is None:
            raise fail(op, f"shapes {list(x1.shape)} and {list(x2.shape)} do not broadcast to "
                           f"{list(out.shape)} (or need more than {MAX_DIMS} dimensions)")
        if x1.dtype in ("float32", "int32"):
            return
        expect_scale(op, ((x1, "input1"), (x2, "input2"), (out, "output")))
        self.validate_quant(op, g, x1, x2, out)

    def validate_quant(self, op: Operator, g: Graph, x1: Tensor, x2: Tensor, out: Tensor) -> None:
        pass

    def prepared(self, op: Operator, g: Graph, kc: KernelCall) -> Prepared:
        return Prepared([kc], macs=out_tensor(g, op).size)


def _add_pot_path(op: Operator, x1: Tensor, x2: Tensor, out: Tensor) -> tuple[bool, int, int]:
    """add.cc / sub.cc Prepare: does int16 take the power-of-two path? (pot, shift1, shift2)."""
    if x1.dtype != "int16" or not op.options.get("pot_scale_int16", True):
        return False, 0, 0
    p1, l1 = checked_log2(x1.quant.s)
    p2, l2 = checked_log2(x2.quant.s)
    po, lo = checked_log2(out.quant.s)
    if not (p1 and p2 and po) or x1.quant.zp or x2.quant.zp or out.quant.zp:
        return False, 0, 0
    return True, l1 - lo, l2 - lo


@register("ADD", "SUB")
class AddSub(_Binary):
    supported = ("int8, int16 (zero point 0; general scales and pot_scale_int16), float32, int32; "
                 "fused NONE/RELU/RELU6/RELU_N1_TO_1; broadcasting")

    def validate_quant(self, op: Operator, g: Graph, x1: Tensor, x2: Tensor, out: Tensor) -> None:
        pot, sh1, sh2 = _add_pot_path(op, x1, x2, out)
        if pot:
            if not (sh1 == 0 or sh2 == 0) or sh1 > 0 or sh2 > 0:
                raise fail(op, "pot_scale_int16: one input scale must equal the output scale and the "
                               f"other be smaller (input shifts {sh1}, {sh2})")
            if tuple(x1.shape) != tuple(x2.shape) or x1.size != out.size:
                raise fail(op, "pot_scale_int16 (power-of-two scales) does not support broadcasting "
                               "(TFLite runs its non-broadcast kernel there)")
            return
        left_shift = 20 if x1.dtype == "int8" else 15
        m1, m2, mo = self._reals(x1, x2, out, left_shift)
        if not 0 < mo < 1:
            raise fail(op, f"output rescale {mo:.3g} must be in (0, 1) (TFLite "
                           "QuantizeMultiplierSmallerThanOneExp)")

    @staticmethod
    def _reals(x1: Tensor, x2: Tensor, out: Tensor, left_shift: int) -> tuple[float, float, float]:
        s1, s2, so = (float(np.float32(t.quant.s)) for t in (x1, x2, out))
        twice_max = 2.0 * max(s1, s2)                      # float32 * 2: exact
        denom = float(np.float32(np.float32(1 << left_shift) * np.float32(so)))  # int * float in float
        return s1 / twice_max, s2 / twice_max, twice_max / denom

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        self.validate(op, g)
        x1, x2, out = tensor(g, op, 0), tensor(g, op, 1), out_tensor(g, op)
        act = op.options.get("fused_activation_function", "NONE")
        sub = op.op == "SUB"
        if x1.dtype == "int32":
            return self.prepared(op, g, int32_call(op, x1, x2, out, 1 if sub else 0))
        if x1.dtype == "float32":
            lo, hi = activation_range_float(act)
            p = Params("utvm_add_f32_params", {"subtract": int(sub), "act_min": lo, "act_max": hi})
            s = Params("utvm_ew_shape", _shape_fields(x1, x2, out), "shape")
            return self.prepared(op, g, call("utvm_add_f32", p, s, In(0), In(1), Out(0)))
        lo, hi = activation_range_quantized(act, out.dtype, out.quant.s, out.quant.zp)
        pot, sh1, sh2 = _add_pot_path(op, x1, x2, out)
        if pot:
            p = Params("utvm_add_s16_pot_params", {
                "input1_shift": -sh1, "input2_shift": -sh2, "subtract": int(sub), "act_min": lo, "act_max": hi})
            return self.prepared(op, g, call("utvm_add_s16_pot", p, Lit(out.size), In(0), In(1), Out(0)))
        left_shift = 20 if x1.dtype == "int8" else 15
        r1, r2, ro = self._reals(x1, x2, out, left_shift)
        m1, e1 = quantize_multiplier_lt1(r1)
        m2, e2 = quantize_multiplier_lt1(r2)
        mo, eo = quantize_multiplier_lt1(ro)
        if sub:
            m2 = -m2
        p = Params("utvm_add_q_params", {
            "left_shift": left_shift, "input1_offset": -x1.quant.zp, "input1_multiplier": m1,
            "input1_shift": e1, "input2_offset": -x2.quant.zp, "input2_multiplier": m2, "input2_shift": e2,
            "output_offset": out.quant.zp, "output_multiplier": mo, "output_shift": eo,
            "act_min": lo, "act_max": hi})
        fields = _shape_fields(x1, x2, out)
        same_shape = tuple(x1.shape) == tuple(x2.shape) == tuple(out.shape)
        s = Params("utvm_ew_shape", fields, "shape")
        if x1.dtype == "int8" and (same_shape or fields["broadcast"]):
            # the target paths, first applicable first: the linear form (bias: its table's, None: not
            # that form), the Helium 4-lane arithmetic, the DSP tables (same shape only)
            paths = (((ADD_LIN_MVE_KERNEL, 0), (ADD_MVE_KERNEL, None), (ADD_LIN_KERNEL, 128)) if same_shape else
                     ((ADD_LIN_MVE_BC_KERNEL, 0), (ADD_MVE_BC_KERNEL, None), (ADD_LIN_BC_KERNEL, 128)))
            size = (Lit(out.size),) if same_shape else ()
            shape = () if same_shape else (s,)
            for kernel, bias in paths:
                if not _has_kernel(kernel, target):
                    continue
                if bias is None:
                    return self.prepared(op, g, call(kernel, p, *shape, *size, In(0), In(1), Out(0)))
                ref = reference_table((-x1.quant.zp, -x2.quant.zp), (m1, m2, mo), (e1, e2, eo), out.quant.zp,
                                      (lo, hi))
                lin = fit_linear_add(ref, (float(x1.quant.s), float(x2.quant.s)), float(out.quant.s), sub, lo, hi,
                                     bias)
                if lin is None:
                    continue
                ins = (In(0), In(1)) if lin.linear == 0 else (In(1), In(0))
                if lin.linear == 1 and not same_shape:  # the strides go with their operands
                    shape = (Params("utvm_ew_shape", {**fields, "stride1": fields["stride2"],
                                                      "stride2": fields["stride1"]}, "shape"),)
                return self.prepared(op, g, call(kernel, p, *shape, Const("table", lin.table, "int32_t"), Lit(lin.c),
                                                 *size, *ins, Out(0)))
        if x1.dtype == "int8" and same_shape and _has_kernel(ADD_LUT_KERNEL, target):
            t1 = add_s8_input_table(-x1.quant.zp, m1, e1)
            t2 = add_s8_input_table(-x2.quant.zp, m2, e2)
            return self.prepared(op, g, call(ADD_LUT_KERNEL, p, Const("table1", t1, "int32_t"),
                                             Const("table2", t2, "int32_t"), Lit(out.size), In(0), In(1), Out(0)))
        return self.prepared(op, g, call(f"utvm_add_{dtype_suffix(x1.dtype)}", p, s, In(0), In(1), Out(0)))


#: The DSP targets' same-shape int8 ADD/SUB (kernels/arm_dsp/add_s8_lut.h): the input rescales tabulated.
ADD_LUT_KERNEL = "utvm_add_s8_lut"
#: The DSP targets' same-shape int8 ADD/SUB in the linear form (kernels/arm_dsp/add_s8_lut.h, ops/add_s8_lin.py):
#: one input through a multiply, the other through one table, exact on every pair (else the two tables).
ADD_LIN_KERNEL = "utvm_add_s8_lin"
#: The Helium targets' same-shape int8 ADD/SUB in the linear form (kernels/arm_mve/add_s8_mve.h), first.
ADD_LIN_MVE_KERNEL = "utvm_add_s8_lin_mve"
#: The Helium targets' same-shape int8 ADD/SUB (kernels/arm_mve/add_s8_mve.h), before the DSP tables.
ADD_MVE_KERNEL = "utvm_add_s8_mve"
#: The Helium targets' broadcasting int8 ADD/SUB (kernels/arm_mve/add_s8_mve.h): the linear form where it
#: fits, else the reference arithmetic on 4 lanes; rows of the innermost dimension.
ADD_LIN_MVE_BC_KERNEL = "utvm_add_s8_lin_mve_bc"
ADD_MVE_BC_KERNEL = "utvm_add_s8_mve_bc"
#: The DSP targets' broadcasting int8 ADD/SUB in the linear form (kernels/arm_dsp/add_s8_lut.h), else add_s8.h.
ADD_LIN_BC_KERNEL = "utvm_add_s8_lin_bc"


def _has_kernel(fn: str, target: str) -> bool:
    """May this layer take the target path whose kernel is ``fn``? (selection.offers: the target
    has it and the layer's tuning does not exclude it; ``utvm-build tune`` measures both ways.)"""
    return offers(fn, target)


def _srdhm(a: int, b: int) -> int:
    """gemmlowp SaturatingRoundingDoublingHighMul (int32)."""
    if a == b == -2**31:
        return 2**31 - 1
    ab = a * b
    num = ab + ((1 << 30) if ab >= 0 else 1 - (1 << 30))
    q = abs(num) >> 31
    return q if num >= 0 else -q  # C++ division truncates toward zero


def _rdbp(x: int, e: int) -> int:
    """gemmlowp RoundingDivideByPOT."""
    mask = (1 << e) - 1
    threshold = (mask >> 1) + (1 if x < 0 else 0)
    return (x >> e) + (1 if (x & mask) > threshold else 0)


def add_s8_input_table(offset: int, multiplier: int, shift: int) -> np.ndarray:
    """The int8 ADD input rescale for every input byte (index: the byte as unsigned):
    MultiplyByQuantizedMultiplierSmallerThanOneExp((v + offset) * 2^20, multiplier, shift)."""
    vals = [_rdbp(_srdhm(((b - 256 if b >= 128 else b) + offset) * (1 << 20), multiplier), -shift)
            for b in range(256)]
    return np.array(vals, dtype=np.int32)


def mul_multiplier(s1: float, s2: float, so: float) -> float:
    """mul.cc: ``input1->params.scale * input2->params.scale / output->params.scale`` in float32."""
    return float(np.float32(np.float32(s1) * np.float32(s2)) / np.float32(so))


@register("MUL")
class Mul(_Binary):
    supported = ("int8, int16 (zero point 0), float32, int32; fused NONE/RELU/RELU6/RELU_N1_TO_1; "
                 "broadcasting")

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        self.validate(op, g)
        x1, x2, out = tensor(g, op, 0), tensor(g, op, 1), out_tensor(g, op)
        act = op.options.get("fused_activation_function", "NONE")
        s = Params("utvm_ew_shape", _shape_fields(x1, x2, out), "shape")
        if x1.dtype == "int32":
            return self.prepared(op, g, int32_call(op, x1, x2, out, 2))
        if x1.dtype == "float32":
            lo, hi = activation_range_float(act)
            p = Params("utvm_mul_f32_params", {"act_min": lo, "act_max": hi})
            return self.prepared(op, g, call("utvm_mul_f32", p, s, In(0), In(1), Out(0)))
        lo, hi = activation_range_quantized(act, out.dtype, out.quant.s, out.quant.zp)
        mult, shift = quantize_multiplier(mul_multiplier(x1.quant.s, x2.quant.s, out.quant.s))
        p = Params("utvm_mul_q_params", {
            "input1_offset": -x1.quant.zp, "input2_offset": -x2.quant.zp, "output_offset": out.quant.zp,
            "output_multiplier": mult, "output_shift": shift, "act_min": lo, "act_max": hi})
        same_shape = tuple(x1.shape) == tuple(x2.shape) == tuple(out.shape)
        if x1.dtype == "int8" and same_shape and _has_kernel(MUL_MVE_KERNEL, target):
            return self.prepared(op, g, call(MUL_MVE_KERNEL, p, Lit(out.size), In(0), In(1), Out(0)))
        if x1.dtype == "int8" and s.fields["broadcast"] and _has_kernel(MUL_MVE_BC_KERNEL, target):
            return self.prepared(op, g, call(MUL_MVE_BC_KERNEL, p, s, In(0), In(1), Out(0)))
        return self.prepared(op, g, call(f"utvm_mul_{dtype_suffix(x1.dtype)}", p, s, In(0), In(1), Out(0)))


#: The Helium targets' same-shape int8 MUL (kernels/arm_mve/mul_s8_mve.h).
MUL_MVE_KERNEL = "utvm_mul_s8_mve"
#: The Helium targets' broadcasting int8 MUL (kernels/arm_mve/mul_s8_mve.h): rows of the innermost dimension.
MUL_MVE_BC_KERNEL = "utvm_mul_s8_mve_bc"
