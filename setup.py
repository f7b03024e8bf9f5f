"""Ship the C runtime (crt/) and the CMake package (cmake/) inside the wheel as utvm_build/crt and
utvm_build/cmake, so the build integrations find them.

Everything else is configured in pyproject.toml. An editable install finds <repo>/crt and
<repo>/cmake directly (see utvm_build/paths.py).
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildPyWithCrt(build_py):
    def run(self) -> None:
        super().run()
        root = Path(__file__).resolve().parent
        for name in ("crt", "cmake"):
            src, dst = root / name, Path(self.build_lib) / "utvm_build" / name
            if src.is_dir():
                shutil.rmtree(dst, ignore_errors=True)
                shutil.copytree(src, dst, ignore=shutil.ignore_patterns("build", "*.o", "*.a", "__pycache__"))


setup(cmdclass={"build_py": BuildPyWithCrt})
