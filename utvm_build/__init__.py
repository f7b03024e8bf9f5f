"""utvm-build: TensorFlow Lite models to ahead-of-time C for microcontrollers."""

__version__ = "0.1.0"

from .errors import UtvmError  # noqa: E402
from .options import CompileOptions  # noqa: E402

__all__ = ["CompileOptions", "UtvmError", "__version__", "compile_model", "run_on_host"]


def __getattr__(name: str):  # PEP 562: keep `python -m utvm_build --cmake-dir` free of numpy imports
    if name == "compile_model":
        from .compiler import compile_model

        return compile_model
    if name == "run_on_host":
        from .host import run_on_host

        return run_on_host
    raise AttributeError(name)
