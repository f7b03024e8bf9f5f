"""Per-operator timing (``CompileOptions(profile=True)``, ``compile --profile``): the entry point
calls ``<prefix>_profile_begin()`` / ``<prefix>_profile_end(k)`` around operator k, which time it
with ``TVMPlatformTimerStart/Stop`` into the table ``<prefix>_profile[]`` that the application
reads (and prints) after a run. With the packed interface, ``<prefix>_profile_read`` (a packed
function in the system library) copies the table into a tensor and clears it: what ``utvm-build
profile`` reads over RPC.

Files: ``include/<prefix>_profile.h`` (the table's type, size macro, functions) and
``src/<prefix>_profile.c``. They need the CRT's headers and a platform with the timer hooks (the
host's ``crt/src/platform_host.c``, a firmware's SysTick port, ...)."""

from __future__ import annotations

from .cnames import c_comment


def wrap_call(prefix: str, k: int, call: str) -> list[str]:
    """The entry point's lines for operator call ``call`` (k: its position in execution order)."""
    return [f"  {prefix}_profile_begin();", call, f"  {prefix}_profile_end({k}u);"]


def packed_functions(prefix: str) -> list[str]:
    """Extra packed functions for the system library registry."""
    return [f"{prefix}_profile_read"]


def render_profile(prefix: str, banner: str, ops: list[dict], packed: bool) -> dict[str, str]:
    """``ops``: metadata records of the operators in execution order (index, op, function)."""
    up = prefix.upper()
    n = max(1, len(ops))
    guard = f"{up}_PROFILE_H_"
    header = [banner, f"#ifndef {guard}", f"#define {guard}", "", "#include <stdint.h>", "",
              "#ifdef __cplusplus", 'extern "C" {', "#endif", "",
              "/* Operators timed: one entry each, in execution order. */",
              f"#define {up}_PROFILE_OPS {len(ops)}", "",
              "typedef struct {",
              "  const char* op;       /* TFLite operator, e.g. \"CONV_2D\" */",
              "  const char* function; /* the generated C function */",
              "  uint32_t op_index;    /* operator number in the model (utvm-build info) */",
              "  uint32_t calls;       /* timed calls since the last reset */",
              "  double seconds;       /* their total time (TVMPlatformTimerStop) */",
              "  double last_seconds;  /* the last call's time */",
              f"}} {prefix}_profile_entry;", "",
              f"extern {prefix}_profile_entry {prefix}_profile[{n}];",
              "/* Timer errors (TVMPlatformTimerStart/Stop failed: that call is not counted). */",
              f"extern uint32_t {prefix}_profile_timer_errors;", "",
              "/* Clear the counts and times. */",
              f"void {prefix}_profile_reset(void);",
              "/* Called by the entry point around each operator. */",
              f"void {prefix}_profile_begin(void);",
              f"void {prefix}_profile_end(uint32_t k);", "",
              "#ifdef __cplusplus", "}", "#endif", "", f"#endif /* {guard} */", ""]
    src = [banner, "/* Per-operator timing with the platform timer (compile --profile). */", "",
           "#include <stddef.h>", "#include <stdint.h>", "", "#include <tvm/runtime/crt/platform.h>"]
    if packed:
        src += ["#include <tvm/runtime/c_runtime_api.h>", "#include <tvm/runtime/crt/tensor_args.h>"]
    src += ["", f'#include "{prefix}_profile.h"', "", f"{prefix}_profile_entry {prefix}_profile[{n}] = {{"]
    for r in ops:
        src.append(f'    {{"{r["op"]}", "{r["function"]}", {r["index"]}U, 0U, 0.0, 0.0}},'
                   f" /* {c_comment(r['function'])} */")
    if not ops:
        src.append('    {"", "", 0U, 0U, 0.0, 0.0},')
    src += ["};", f"uint32_t {prefix}_profile_timer_errors = 0U;", "",
            f"void {prefix}_profile_reset(void) {{", "  uint32_t k;",
            f"  for (k = 0U; k < {n}U; ++k) {{",
            f"    {prefix}_profile[k].calls = 0U;", f"    {prefix}_profile[k].seconds = 0.0;",
            f"    {prefix}_profile[k].last_seconds = 0.0;", "  }", f"  {prefix}_profile_timer_errors = 0U;", "}", "",
            f"void {prefix}_profile_begin(void) {{",
            "  if (TVMPlatformTimerStart() != kTvmErrorNoError) {",
            f"    {prefix}_profile_timer_errors += 1U;", "  }", "}", "",
            f"void {prefix}_profile_end(uint32_t k) {{", "  double seconds = 0.0;",
            "  if (TVMPlatformTimerStop(&seconds) != kTvmErrorNoError) {",
            f"    {prefix}_profile_timer_errors += 1U;",
            f"  }} else if (k < {n}U) {{",
            f"    {prefix}_profile[k].calls += 1U;", f"    {prefix}_profile[k].seconds += seconds;",
            f"    {prefix}_profile[k].last_seconds = seconds;", "  } else {", "    /* not an operator */", "  }",
            "}", ""]
    if packed:
        sig = (f"int {prefix}_profile_read_packed(TVMValue* args, int* type_codes, int num_args, "
               "TVMValue* out_ret_value, int* out_ret_tcode, void* resource_handle)")
        src += ["/* Packed: (float64 tensor [OPS + 1, 2]) <- per operator (seconds, calls), then",
                " * (timer errors, 0); the table is cleared. */",
                f"{sig};", "", f"{sig} {{",
                f"  static const int64_t shape[2] = {{{len(ops) + 1}, 2}};",
                '  static const TVMCRTTensorSpec spec[1] = {{"profile", shape, 2, {(uint8_t)kDLFloat, 64U, 1U}, '
                f"{(len(ops) + 1) * 16}U}}}};",
                "  void* data[1];", "  int status = -1;", "  (void)out_ret_value;", "  (void)out_ret_tcode;",
                "  (void)resource_handle;",
                "  if (TVMCRTUnpackTensorArgs(args, type_codes, num_args, spec, 1U, data) == kTvmErrorNoError) {",
                "    double* out = (double*)data[0];", "    uint32_t k;",
                f"    for (k = 0U; k < {len(ops)}U; ++k) {{",
                f"      out[2U * k] = {prefix}_profile[k].seconds;",
                f"      out[(2U * k) + 1U] = (double){prefix}_profile[k].calls;", "    }",
                f"    out[2U * {len(ops)}U] = (double){prefix}_profile_timer_errors;",
                f"    out[(2U * {len(ops)}U) + 1U] = 0.0;",
                f"    {prefix}_profile_reset();", "    status = 0;", "  }", "  return status;", "}", ""]
    return {f"include/{prefix}_profile.h": "\n".join(header), f"src/{prefix}_profile.c": "\n".join(src)}
