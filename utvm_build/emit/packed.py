"""The packed entry point (TVMBackendPackedCFunc) and the system library module of a model.

Emitted only with ``interface="packed"``; the typed entry point stays the only code path of the
"c" interface, so firmware using it links nothing from the CRT. Layout as in docs/crt.md.
"""

from __future__ import annotations

from collections.abc import Sequence

from .crt_config import CrtNeeds
from .ports import Port

# dtype -> (DLDataTypeCode, bits)
_DL_TYPES = {"int8": ("kDLInt", 8), "int16": ("kDLInt", 16), "int32": ("kDLInt", 32), "int64": ("kDLInt", 64),
             "uint8": ("kDLUInt", 8), "float32": ("kDLFloat", 32), "bool": ("kDLUInt", 8)}


def render_packed(prefix: str, banner: str, inputs: list[Port], outputs: list[Port], needs: CrtNeeds,
                  extra: Sequence[str] = (), reset: bool = False) -> str:
    """``extra``: more packed functions of the model's module (``<name>_packed`` defined elsewhere,
    e.g. ``<prefix>_profile_read``), registered after ``<prefix>_run``. ``reset`` (a model with
    state): ``<prefix>_reset`` too, a packed function without arguments calling ``<prefix>_reset()``
    (so that a client over RPC can start the state over between sequences)."""
    up = prefix.upper()
    ports = inputs + outputs
    n = len(ports)
    lines = [banner, "/* Packed entry point and system library module (interface \"packed\"). */", "",
             "#include <tvm/runtime/c_backend_api.h>", "#include <tvm/runtime/c_runtime_api.h>",
             "#include <tvm/runtime/crt/func_registry.h>", "#include <tvm/runtime/crt/module.h>",
             "#include <tvm/runtime/crt/tensor_args.h>", "", '#include "crt_config.h"', f'#include "{prefix}.h"', "",
             "/* This model's needs; a crt_config.h that does not meet them fails the build. */"]
    for macro, value in (("TVM_CRT_MAX_ARGS", needs.max_args), ("TVM_CRT_MAX_NDIM", needs.max_ndim),
                         ("TVM_CRT_MAX_STRLEN_FUNCTION_NAME", needs.function_name_len),
                         ("TVM_CRT_MAX_STRLEN_PARAM_NAME", needs.param_name_len),
                         ("TVM_CRT_MAX_REGISTERED_MODULES", 1)):
        lines += [f"#if {macro} < {value}", f'#error "crt_config.h: {macro} must be at least {value} for {prefix}"',
                  "#endif"]
    sig = (f"int {prefix}_run_packed(TVMValue* args, int* type_codes, int num_args, TVMValue* out_ret_value, "
           "int* out_ret_tcode, void* resource_handle)")
    extra = ([f"{prefix}_reset"] if reset else []) + list(extra)
    names = [f"{prefix}_run", *extra]   # registry order
    lines += [""] + [sig.replace(f"{prefix}_run_packed", f"{e}_packed") + ";" for e in extra]
    if reset:
        lines += ["", "/* The state back to its initial value (no arguments). */",
                  sig.replace(f"{prefix}_run_packed", f"{prefix}_reset_packed") + " {", "  int status = -1;",
                  "  (void)args;", "  (void)type_codes;", "  (void)out_ret_value;", "  (void)out_ret_tcode;",
                  "  (void)resource_handle;", "  if (num_args == 0) {", f"    {prefix}_reset();", "    status = 0;",
                  "  } else {", f'    TVMAPISetLastError("{prefix}_reset takes no arguments");', "  }",
                  "  return status;", "}"]
    lines += ["", f"{sig};", "", f"{sig} {{"]
    for k, p in enumerate(ports):
        dims = ", ".join(str(d) for d in p.tensor.shape) or "1"
        lines.append(f"  static const int64_t shape{k}[{max(1, len(p.tensor.shape))}] = {{{dims}}};")
    lines.append("  /* Inputs in model order, then outputs in model order. */")
    lines.append(f"  static const TVMCRTTensorSpec specs[{n}] = {{")
    for k, p in enumerate(ports):
        code, bits = _DL_TYPES[p.tensor.dtype]
        lines.append(f'      {{"{p.c_name}", shape{k}, {len(p.tensor.shape)}, {{(uint8_t){code}, {bits}U, 1U}}, '
                     f"{p.tensor.nbytes}U}},")
    lines += ["  };", f"  void* data[{n}];", "  int status = -1;", "  (void)out_ret_value;", "  (void)out_ret_tcode;",
              "  (void)resource_handle;",
              f"  if (TVMCRTUnpackTensorArgs(args, type_codes, num_args, specs, {n}U, data) == kTvmErrorNoError) {{",
              f"    struct {prefix}_inputs inputs;", f"    struct {prefix}_outputs outputs;"]
    for k, p in enumerate(inputs):
        lines.append(f"    inputs.{p.c_name} = data[{k}];")
    for k, p in enumerate(outputs):
        lines.append(f"    outputs.{p.c_name} = data[{len(inputs) + k}];")
    lines += [f"    if ({prefix}_run(&inputs, &outputs) == 0) {{", "      status = 0;", "    } else {",
              f'      TVMAPISetLastError("{prefix}_run failed");', "    }", "  }", "  return status;", "}", "",
              "/* Function registry: count byte, names each ending in NUL, one extra NUL (string end). */",
              f"static const TVMBackendPackedCFunc {prefix}_funcs[{1 + len(extra)}] = {{", f"    &{prefix}_run_packed,",
              *[f"    &{e}_packed," for e in extra], "};",
              f"static const TVMFuncRegistry {prefix}_registry = {{", f'    "\\x{1 + len(extra):02x}"',
              *[f'    "{n}\\0"' + ("," if n == names[-1] else "") for n in names],
              f"    {prefix}_funcs,", "};", f"static const TVMModule {prefix}_module = {{&{prefix}_registry}};", "",
              f"const TVMModule* {prefix}_get_module(void);", "",
              f"const TVMModule* {prefix}_get_module(void) {{ return &{prefix}_module; }}", "",
              "/* With several packed models in one firmware, define this macro for all of them and link one",
              " * system library of them all (`utvm-build syslib`; the CMake and SCons integrations do both). */",
              f"#ifndef {up}_NO_SYSTEM_LIB_ENTRY",
              f"const TVMModule* TVMSystemLibEntryPoint(void) {{ return &{prefix}_module; }}", "#endif", ""]
    return "\n".join(lines)
