"""crt_config.h: the CRT configuration a generated model needs (macros: docs/crt.md).

Every value is at least the CRT default and at least what this model needs, so the build
integrations can merge the files of several models by taking the maximum of each macro.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CrtNeeds:
    """What a model asks of the CRT."""

    max_args: int
    max_ndim: int
    function_name_len: int   # including the NUL
    param_name_len: int      # including the NUL
    packed: bool

    def as_dict(self) -> dict:
        return {"max_args": self.max_args, "max_ndim": self.max_ndim,
                "max_strlen_function_name": self.function_name_len,
                "max_strlen_param_name": self.param_name_len, "packed": self.packed}


def render_crt_config(banner: str, needs: CrtNeeds) -> str:
    values = [
        ("TVM_CRT_DEBUG", 0),
        ("TVM_CRT_MAX_NDIM", max(6, needs.max_ndim)),
        ("TVM_CRT_MAX_ARGS", max(10, needs.max_args)),
        ("TVM_CRT_MAX_STRLEN_DLTYPE", 10),
        ("TVM_CRT_MAX_STRLEN_FUNCTION_NAME", max(80, needs.function_name_len)),
        ("TVM_CRT_MAX_STRLEN_PARAM_NAME", max(80, needs.param_name_len)),
        ("TVM_CRT_MAX_STRLEN_ERROR_MESSAGE", 128),
        ("TVM_CRT_MAX_REGISTERED_MODULES", 2),
        ("TVM_CRT_GLOBAL_FUNC_REGISTRY_SIZE_BYTES", 256),
        ("TVM_CRT_SYSTEM_LIB", 1),
        ("TVM_CRT_STACK_ALLOCATOR_ALIGN", 16),
        ("TVM_CRT_LOG_LEVEL", 0),
    ]
    return "\n".join([
        banner,
        "/* CRT configuration for this model (see docs/crt.md). Several models in one firmware share",
        " * one CRT: the build integrations merge these files, keeping the maximum of each value. */",
        "#ifndef TVM_RUNTIME_CRT_CONFIG_H_",
        "#define TVM_RUNTIME_CRT_CONFIG_H_",
        "",
        *[f"#define {k} {v}" for k, v in values],
        "",
        "#endif /* TVM_RUNTIME_CRT_CONFIG_H_ */",
        "",
    ])
