"""utvm-build: TensorFlow Lite models to ahead-of-time C for microcontrollers."""

__version__ = "0.1.0"

from .compiler import compile_model  # noqa: E402
from .errors import UtvmError  # noqa: E402
from .host import run_on_host  # noqa: E402
from .options import CompileOptions  # noqa: E402

__all__ = ["CompileOptions", "UtvmError", "__version__", "compile_model", "run_on_host"]
