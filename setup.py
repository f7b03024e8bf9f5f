"""Ship the C runtime (crt/) inside the wheel as utvm_build/crt, so the build integrations find it.

Everything else is configured in pyproject.toml. An editable install finds <repo>/crt directly
(see utvm_build/paths.py).
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildPyWithCrt(build_py):
    def run(self) -> None:
        super().run()
        src = Path(__file__).resolve().parent / "crt"
        dst = Path(self.build_lib) / "utvm_build" / "crt"
        if src.is_dir():
            shutil.rmtree(dst, ignore_errors=True)
            shutil.copytree(src, dst, ignore=shutil.ignore_patterns("build", "*.o", "*.a", "__pycache__"))


setup(cmdclass={"build_py": BuildPyWithCrt})
