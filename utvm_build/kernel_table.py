"""The kernel table: (kernel function, target) -> source file, C signature, scratch rule.

Kernels are C headers in ``utvm_build/kernels/`` (generic, portable C99) and target overrides
in ``kernels/<folder>/`` with the same file name (``targets.py`` says which folders a target
searches). The table is read from the headers themselves: every ``static`` function named
``utvm_*`` defined at the start of a line is indexed with its parameter types, and so is every
entry point a skeleton macro defines (an instance ``UTVM_X(utvm_name, ...)`` at the start of a
line, read through the macro's ``#define``), so the C declaration stays the single source of
truth. Operator handlers name the function they call
(``KernelCall.function``); this module says which header provides it for a target, checks the
call's arguments against the declared parameters (``check_call``) and sizes its scratch memory
(``scratch_bytes``: the rule belongs to the kernel variant, not to the operator).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources

from .graph import Graph, Operator
from .ops.call import Const, In, KernelCall, Lit, Null, Operand, Out, Params, PtrArray, Scratch
from .targets import kernel_text, kernel_variant

_DEFINITION = re.compile(
    r"^static\s+(?:inline\s+)?(?:UTVM_[A-Z0-9_]+\s+)?(?P<ret>[A-Za-z_][\w\s]*?\**)\s*\b(?P<name>utvm_\w+)\s*"
    r"\((?P<params>[^)]*)\)\s*\{", re.M)


@dataclass(frozen=True)
class KernelSpec:
    function: str
    #: Kernel file name without ``.h`` (the same for every variant).
    header: str
    #: "generic" or the folder of the target override that provides the function.
    variant: str
    #: Declared C parameter types, e.g. ``("const utvm_pool_q_params*", "const int8_t*", "int8_t*")``.
    params: tuple[str, ...]


def _param_type(decl: str) -> str:
    """``const int8_t* in`` -> ``const int8_t*`` (whitespace normalised, the name dropped)."""
    words = decl.replace("*", " * ").split()
    if len(words) > 1 and words[-1] not in ("*", "const"):
        words = words[:-1]
    return " ".join(words).replace(" *", "*")


#: A skeleton macro that defines an entry point: ``#define UTVM_X(NAME, T, ...) static void NAME(...)``
#: (continuation lines joined), its first parameter the function's name.
_DEFINER = re.compile(r"^#define\s+(?P<macro>UTVM_[A-Z0-9_]+)\((?P<formals>[^)]*)\)\s*(?P<head>static\b[^{\n]*)", re.M)
#: An entry point instantiated at the start of a line: ``UTVM_X(utvm_name, int8_t, ...)``.
_INSTANCE = re.compile(r"^(?P<macro>UTVM_[A-Z0-9_]+)\((?P<args>utvm_\w+\s*,[^)]*)\)", re.M)


def parse_definers(text: str) -> dict[str, tuple[tuple[str, ...], str]]:
    """The entry-point skeletons a header defines: macro -> (formal parameters, ``static ... NAME(...)``)."""
    out = {}
    for m in _DEFINER.finditer(text.replace("\\\n", " ")):
        formals = tuple(f.strip() for f in m.group("formals").split(","))
        head = " ".join(m.group("head").split())
        if re.search(rf"\b{re.escape(formals[0])}\s*\(", head):
            out[m.group("macro")] = (formals, head)
    return out


def _types(params: str) -> tuple[str, ...]:
    params = params.strip()
    return () if params in ("", "void") else tuple(_param_type(p) for p in params.split(","))


def parse_definitions(text: str) -> dict[str, tuple[str, ...]]:
    """Every entry point of a kernel header: name -> parameter types. Literal ``static ...
    utvm_*(...) {`` definitions, and instances of the skeletons that define entry points
    (``UTVM_CONV_Q_KERNEL(utvm_conv2d_s16, int16_t, ...)``), read through the skeleton's
    ``#define`` with the instance's arguments put in (``_definers``: every kernel header's)."""
    out = {m.group("name"): _types(m.group("params")) for m in _DEFINITION.finditer(text)}
    definers = _definers()
    for m in _INSTANCE.finditer(text):
        if m.group("macro") not in definers:
            continue
        formals, head = definers[m.group("macro")]
        args = [a.strip() for a in m.group("args").split(",")]
        if len(args) != len(formals):
            raise RuntimeError(f"{m.group('macro')} takes {len(formals)} arguments, {args[0]} gives {len(args)}")
        subst = dict(zip(formals, args))
        expanded = re.sub(r"\b\w+\b", lambda w, subst=subst: subst.get(w.group(0), w.group(0)), head)
        d = _DEFINITION.match(expanded + " {")
        assert d is not None, f"{m.group('macro')}: cannot read the entry point {expanded!r}"
        out[d.group("name")] = _types(d.group("params"))
    return out


@cache
def _definers() -> dict[str, tuple[tuple[str, ...], str]]:
    """The entry-point skeletons of every kernel header (generic and target folders)."""
    root = resources.files("utvm_build.kernels")
    found: dict[str, tuple[tuple[str, ...], str]] = {}
    for entry in [*root.iterdir(), *(e for d in root.iterdir() if d.is_dir() for e in d.iterdir())]:
        if entry.name.endswith(".h"):
            found.update(parse_definers(entry.read_text()))
    return found


@cache
def _index() -> dict[str, str]:
    """Function name -> header name, over utvm_build/kernels/*.h and then the target folders'
    own headers (kernels only a target has, e.g. ``arm_dsp/dsp_s8.h``)."""
    index: dict[str, str] = {}
    root = resources.files("utvm_build.kernels")
    generic = {e.name for e in root.iterdir() if e.name.endswith(".h")}
    folders = sorted(e.name for e in root.iterdir() if e.is_dir() and not e.name.startswith("_"))
    entries = [root.joinpath(n) for n in sorted(generic)]
    entries += [e for f in folders for e in sorted(root.joinpath(f).iterdir(), key=lambda e: e.name)
                if e.name.endswith(".h") and e.name not in generic]
    for entry in entries:
        header = entry.name[:-2]
        for name in parse_definitions(entry.read_text()):
            if index.get(name, header) != header:
                raise RuntimeError(f"kernel function {name} is defined in {index[name]}.h and {header}.h")
            index[name] = header
    return index


@cache
def spec(function: str, target: str = "generic") -> KernelSpec:
    """The kernel that ``function`` names for ``target``: its header, variant and signature."""
    header = _index().get(function)
    if header is None:
        raise KeyError(f"no kernel header defines {function}")
    variant = kernel_variant(header, target)
    root = resources.files("utvm_build.kernels")
    if variant == "generic" and not root.joinpath(f"{header}.h").is_file():
        raise KeyError(f"{function} ({header}.h) exists only in target kernel folders, not for {target}")
    params = parse_definitions(kernel_text(header, target)).get(function)
    if params is None:
        raise KeyError(f"kernels/{variant}/{header}.h overrides {header}.h but does not define {function}")
    return KernelSpec(function, header, variant, params)


# ---- scratch rules --------------------------------------------------------------------------

#: ``rule(call, op, g) -> bytes`` of scratch memory a kernel variant needs while it runs.
ScratchRule = Callable[[KernelCall, Operator, Graph], int]


def _out_elements(call: KernelCall, op: Operator, g: Graph) -> int:
    return g.tensors[op.outputs[0]].size


def _q15_conv_scratch(c: KernelCall, op: Operator, g: Graph) -> int:
    geo = c.field("g")
    strip = 2 * int(c.field("strip_cols")) * int(geo["filter_h"]) * int(geo["in_c"])
    depth4 = int(c.field("depth4"))
    # (conv2d_s8_q15w.h's windows of 28 or 40 bytes: the triple block's context, 40 bytes, three
    # windows, the staging bytes; 4 to align)
    tri = 40 + 7 * depth4 + 4 if depth4 in (28, 40) else 0
    return max(max(5 * depth4, strip) + 12 + 8 * int(geo["out_c"]), tri)


def _q15_1x1_scratch(c: KernelCall, op: Operator, g: Graph) -> int:
    return 6 * int(c.field("g")["in_c"]) + 4


_SCRATCH: dict[tuple[str, str], ScratchRule] = {
    # MEAN: one int32 accumulator per output element
    ("utvm_mean_s8", "generic"): lambda c, op, g: 4 * int(c.field("out_size")),
    ("utvm_mean_s16", "generic"): lambda c, op, g: 4 * int(c.field("out_size")),
    # TRANSPOSE_CONV: the reference's accumulator per output element (int32; int64 for 16x8)
    ("utvm_transpose_conv_s8", "generic"): lambda c, op, g: 4 * _out_elements(c, op, g),
    ("utvm_transpose_conv_s16", "generic"): lambda c, op, g: 8 * _out_elements(c, op, g),
    # DSP CONV_2D (kernels/arm_dsp/conv2d_s8_q15.h): the q15 windows of two pixels (4 bytes per
    # window byte), the sums of both pixels (8 bytes per output channel, an odd count rounded up),
    # a byte staging window, 4 bytes to align the int32 words
    # (conv2d_s8_q15w.h, the int16-weight variant: the same windows, or an output row's strip of
    # input columns, 4 bytes per strip byte, ops/conv.py q15_strip_cols)
    ("utvm_conv2d_s8_q15", "arm_dsp"): _q15_conv_scratch,
    ("utvm_conv2d_s8_q15w", "arm_dsp"): _q15_conv_scratch,
    # their 1x1 entry points (conv2d_q15_1x1.h): the q15 inputs of a pixel triple, 4 bytes to align
    ("utvm_conv2d_s8_q15_1x1", "arm_dsp"): _q15_1x1_scratch,
    ("utvm_conv2d_s8_q15w_1x1", "arm_dsp"): _q15_1x1_scratch,
    # DSP DEPTHWISE_CONV_2D (kernels/arm_dsp/depthwise_conv2d_s8_q15.h): one band of input rows as
    # four planes of int16 (8 bytes per position), 4 bytes to align, 2 x stride_w bytes for the
    # pixel pointers of the 3x3 loop after its last step, 16 bytes that the 4-pixel steps may read
    # past the last plane (a row's last step at stride 2: up to 7 positions)
    ("utvm_depthwise_conv2d_s8_q15", "arm_dsp"): lambda c, op, g: 8 * int(c.field("cols")) * (
        (int(c.field("band_rows")) - 1) * int(c.field("g")["stride_h"])
        + (int(c.field("g")["filter_h"]) - 1) * int(c.field("g")["dilation_h"]) + 1) + 4
        + 2 * int(c.field("g")["stride_w"]) + 16,
    # DSP FULLY_CONNECTED (kernels/arm_dsp/fully_connected_s8_blk4.h): one input row widened to int16
    # lanes, 4 bytes to align; none (4 bytes) for one block of units at the full int8 range, which
    # reads the raw row (the kernel's test: units <= 4, rq_mode UTVM_DSP_RQ_FULL = 2)
    ("utvm_fully_connected_s8_blk4", "arm_dsp"): lambda c, op, g: (
        4 if int(c.field("units")) <= 4 and int(c.field("rq_mode")) == 2 else 2 * int(c.field("depth")) + 4),
    # Helium CONV_2D (kernels/arm_mve/conv2d_s8_mve.h): the gathered windows of two pixels (int8)
    ("utvm_conv2d_s8_mve", "arm_mve"): lambda c, op, g: 2 * int(c.field("depth")),
}


def scratch_rule(function: str, variant: str, rule: ScratchRule) -> None:
    """Register the scratch rule of a kernel variant (for kernels added outside this module)."""
    _SCRATCH[(function, variant)] = rule


def scratch_bytes(call: KernelCall, op: Operator, g: Graph, target: str) -> int:
    """Scratch bytes of one call: its variant's rule, else the generic rule, else 0."""
    s = spec(call.function, target)
    rule = _SCRATCH.get((call.function, s.variant)) or _SCRATCH.get((call.function, "generic"))
    return int(rule(call, op, g)) if rule else 0


# ---- signature check ------------------------------------------------------------------------

_INT_RANGES = {"int8_t": (-2**7, 2**7 - 1), "int16_t": (-2**15, 2**15 - 1), "int32_t": (-2**31, 2**31 - 1),
               "int64_t": (-2**63, 2**63 - 1), "uint8_t": (0, 2**8 - 1), "uint16_t": (0, 2**16 - 1),
               "uint32_t": (0, 2**32 - 1), "uint64_t": (0, 2**64 - 1), "size_t": (0, 2**32 - 1),
               "bool": (0, 1)}


def operand_type(arg: Operand, op: Operator, g: Graph) -> str:
    """The C type an argument has when emitted (``NULL`` for a null pointer)."""
    if isinstance(arg, In):
        t = g.input_tensor(op, arg.k)
        if t is None:
            return "NULL"
        writable = (t.is_variable and not t.is_const) or t.dtype == "resource"   # state, written in place
        return f"{t.ctype}*" if writable else f"const {t.ctype}*"
    if isinstance(arg, Out):
        return f"{g.tensors[op.outputs[arg.k]].ctype}*"
    if isinstance(arg, Const):
        return f"const {arg.ctype}*"
    if isinstance(arg, Params):
        return f"const {arg.ctype}*"
    if isinstance(arg, Lit):
        return arg.ctype
    if isinstance(arg, Null):
        return "NULL"
    if isinstance(arg, Scratch):
        return f"{arg.ctype}*"
    if isinstance(arg, PtrArray):
        return "const void* const*"
    raise TypeError(f"not an operand: {arg!r}")


def _pointer(ctype: str) -> tuple[bool, str] | None:
    """``const T*`` -> (True, "T"); ``T*`` -> (False, "T"); not a single pointer -> None."""
    if not ctype.endswith("*") or ctype.endswith("**") or ctype.endswith("const*"):
        return None
    base = ctype[:-1].strip()
    if base.startswith("const "):
        return True, base[6:].strip()
    return False, base


def compatible(arg_type: str, param_type: str, arg: Operand) -> str | None:
    """None if an argument of ``arg_type`` may be passed for ``param_type``; else why not."""
    if arg_type == param_type:
        if isinstance(arg, Lit):
            return _literal_fits(arg, param_type)
        return None
    p = _pointer(param_type)
    if p is not None:
        if arg_type == "NULL":
            return None
        a = _pointer(arg_type)
        if a is None:
            return f"{arg_type} is not a pointer"
        if a[0] and not p[0]:
            return f"passes {arg_type} (const) for {param_type}"
        if p[1] != "void" and a[1] != p[1]:
            return f"passes {arg_type} for {param_type}"
        return None
    if isinstance(arg, Lit) and param_type in _INT_RANGES and arg.ctype in _INT_RANGES:
        return _literal_fits(arg, param_type)
    if isinstance(arg, Lit) and param_type == "float" and arg.ctype == "float":
        return None
    return f"passes {arg_type} for {param_type}"


def _literal_fits(arg: Lit, param_type: str) -> str | None:
    if param_type in _INT_RANGES:
        if isinstance(arg.value, float) or isinstance(arg.value, bool):
            return f"literal {arg.value!r} for integer {param_type}"
        lo, hi = _INT_RANGES[param_type]
        if not lo <= int(arg.value) <= hi:
            return f"literal {arg.value} out of range of {param_type}"
    return None


def check_call(call: KernelCall, op: Operator, g: Graph, target: str) -> KernelSpec:
    """Check a call against the declared signature of the kernel it calls; return the spec.

    Raises TypeError on a mismatch (a bug in a handler, reported as an internal error).
    """
    s = spec(call.function, target)
    if len(call.args) != len(s.params):
        raise TypeError(f"{call.function} takes {len(s.params)} arguments, the call passes {len(call.args)}")
    for k, (arg, param) in enumerate(zip(call.args, s.params)):
        why = compatible(operand_type(arg, op, g), param, arg)
        if why:
            raise TypeError(f"{call.function} argument {k + 1}: {why}")
    return s
