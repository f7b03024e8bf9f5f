"""crt_config.h: the CRT configuration a generated model needs (see docs/crt.md)."""

from __future__ import annotations


def render_crt_config(banner: str, n_args: int) -> str:
    max_args = max(8, n_args)
    return "\n".join([
        banner,
        "/* CRT configuration for this model. Several models in one firmware share one CRT: the build",
        " * integrations merge these values (maximum of each). */",
        "#ifndef TVM_RUNTIME_CRT_CONFIG_H_",
        "#define TVM_RUNTIME_CRT_CONFIG_H_",
        "",
        "#define TVM_CRT_DEBUG 0",
        "#define TVM_CRT_LOG_LEVEL 0",
        "#define TVM_CRT_MAX_NDIM 6",
        f"#define TVM_CRT_MAX_ARGS {max_args}",
        "#define TVM_CRT_MAX_STRLEN_DLTYPE 10",
        "#define TVM_CRT_MAX_STRLEN_FUNCTION_NAME 120",
        "#define TVM_CRT_MAX_STRLEN_PARAM_NAME 80",
        "#define TVM_CRT_MAX_REGISTERED_MODULES 2",
        "#define TVM_CRT_GLOBAL_FUNC_REGISTRY_SIZE_BYTES 512",
        "",
        "#endif /* TVM_RUNTIME_CRT_CONFIG_H_ */",
        "",
    ])
