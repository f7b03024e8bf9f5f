"""Every command and code snippet of README.md and docs/ runs as printed (issue 23).

The convention, for whoever writes docs:

- A fenced block in one of the languages of ``RUN`` (sh, bash, python, c) is run by this test, in
  page order, in a scratch copy of the repository (the commands are written for the repository
  root; ``git ls-files`` decides what a checkout holds) that also holds the files a page's commands
  name: ``model.tflite``, ``kws.tflite``, ``vww.tflite`` (the bundled digits model), ``x.npy`` and
  ``input.npy`` (one input), ``slices.npy`` (four successive inputs). sh blocks run under
  ``bash -eo pipefail``, python blocks with this interpreter, C blocks compile as a translation
  unit after ``#include "tvmgen_kws.h"`` (digits as ``kws``, ``--io workspace``,
  ``--interface packed``, the CRT's include directory on the path) with the strict warnings.
  Blocks of one page share their directory: a later block may use what an earlier one made.
- A block that cannot run here (a board, Zephyr, a fragment of a larger file, a setup script) has
  ``<!-- not run: WHY -->`` on the line right before its fence. The reason is required.
- Blocks in other languages (cmake, ld, yaml, ini, cpp, json, unlabeled: output) are not run; a
  cmake block is a fragment of a project like those of examples/ (which tests/test_cmake.py
  builds). They may carry the marker too, to say what they need.

Every unmarked block of those languages runs, so a block that fails as printed fails the test,
and `test_every_runnable_block_is_run_or_marked` checks the markers. One test per page; a page's
blocks that call QEMU, the Arm or RISC-V cross compilers or CMake need them installed (``need``
fails with the apt-get line otherwise, as in the other tests). Builds repeated across pages (the
RPC servers of README.md and docs/rpc.md) come from the run's build cache (docs/testing.md).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from system_tools import need

from utvm_build.host import STRICT_CFLAGS

ROOT = Path(__file__).resolve().parents[1]
DIGITS = ROOT / "examples" / "models" / "digits"
RUN = ("sh", "bash", "python", "c")
_FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", re.S | re.M)
_NOT_RUN = re.compile(r"<!--\s*not run:\s*(.*?)\s*-->\s*$")


@dataclass
class Block:
    page: str
    line: int
    lang: str
    text: str
    not_run: str | None   # the marker's reason


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def blocks_of(page: Path) -> list[Block]:
    text = page.read_text()
    out = []
    for m in _FENCE.finditer(text):
        before = text[:m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        marker = _NOT_RUN.search(before)
        out.append(Block(str(page.relative_to(ROOT)), text.count("\n", 0, m.start()) + 1, m.group(1),
                         m.group(2), marker.group(1) if marker else None))
    return out


def _tools_for(blocks: list[Block]) -> list[str]:
    """The tools the page's runnable blocks call (they skip the page, with its reason, if absent)."""
    text = "\n".join(b.text for b in blocks)
    tools = ["cc"]
    if "qemu-m" in text or "arm-none-eabi" in text or "qemu-system-arm" in text:
        tools += ["arm-none-eabi-gcc", "qemu-system-arm"]
    if "riscv64-unknown-elf-gcc" in text:
        tools += ["riscv64-unknown-elf-gcc"]
    if "cmake " in text:
        tools += ["cmake", "ninja"]
    return tools


def _workdir(tmp: Path) -> Path:
    """A checkout's files plus the inputs the docs name."""
    work = tmp / "repo"
    names = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True,
                           text=True, check=True).stdout.split("\n")
    for name in filter(None, names):
        src = ROOT / name
        if "build" in Path(name).parts[:-1] or name.startswith(("benchmarks/results/", "tests/data/")):
            continue                             # build trees (crt/build of `make -C crt`), big data
        if src.is_file():
            (work / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, work / name)
    for model in ("model", "kws", "vww"):
        shutil.copy(DIGITS / "digits_int8.tflite", work / f"{model}.tflite")
    samples = [np.load(DIGITS / f"sample_{k}.npy") for k in range(4)]
    np.save(work / "x.npy", samples[0])
    np.save(work / "input.npy", samples[0])
    np.save(work / "slices.npy", np.stack(samples))
    return work


def _env(work: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    return env


def _run_c(block: Block, work: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    gen = work / ".docs-c" / "kws"
    if not gen.is_dir():
        subprocess.run([sys.executable, "-m", "utvm_build", "compile", "kws.tflite", "-o", str(gen), "--name", "kws",
                        "--io", "workspace", "--interface", "packed"], cwd=work, env=env, check=True,
                       capture_output=True)
    src = work / ".docs-c" / f"block_{block.line}.c"
    prelude = '#include <stdint.h>\n#include "tvmgen_kws.h"\nvoid read_features(int8_t* x);\n'
    src.write_text(prelude + block.text)
    return subprocess.run(["cc", *STRICT_CFLAGS, "-c", str(src), f"-I{gen / 'include'}",
                           f"-I{ROOT / 'crt' / 'include'}", "-o", str(src.with_suffix(".o"))],
                          capture_output=True, text=True, env=env)


def run_block(block: Block, work: Path, env: dict[str, str]) -> None:
    if block.lang == "c":
        p = _run_c(block, work, env)
    else:
        script = work / f".docs-block-{block.line}"
        script.write_text(block.text)
        cmd = [sys.executable, str(script)] if block.lang == "python" else ["bash", "-eo", "pipefail", str(script)]
        p = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, (f"{block.page}:{block.line} ({block.lang}) failed as printed "
                               f"(exit {p.returncode}):\n{block.text}\n--- stdout\n{p.stdout[-3000:]}\n"
                               f"--- stderr\n{p.stderr[-3000:]}")


def test_every_runnable_block_is_run_or_marked() -> None:
    """The convention holds on every page: a runnable block is run, or says why not."""
    unmarked_runnable = 0
    for page in pages():
        for b in blocks_of(page):
            if b.not_run is not None:
                assert b.not_run, f"{b.page}:{b.line}: `<!-- not run: -->` needs a reason"
            elif b.lang in RUN:
                unmarked_runnable += 1
    assert unmarked_runnable >= 10, "the docs lost their runnable snippets"


@pytest.mark.parametrize("page", [str(p.relative_to(ROOT)) for p in pages()
                                  if any(b.lang in RUN and b.not_run is None for b in blocks_of(p))])
def test_page_runs_as_printed(page: str, tmp_path: Path) -> None:
    blocks = [b for b in blocks_of(ROOT / page) if b.lang in RUN and b.not_run is None]
    need(*_tools_for(blocks))
    work = _workdir(tmp_path)
    env = _env(work)
    for block in blocks:
        run_block(block, work, env)
