"""Flash and RAM of a firmware ELF, from its sections and its GNU ld map file.

Flash is what the image stores: every allocated, loaded section (vectors, code, read-only data,
constants, the load image of .data). It is split by where the bytes come from:

  constants   the model's const arrays (output section .rodata.tvm)
  model       the generated operator code and kernels (lib<model target>.a)
  runtime     the C runtime (libutvm_crt.a; empty for the "c" interface)
  program     the benchmark program, startup code and glue
  libc        newlib-nano and libgcc

RAM is .data + .bss + the workspace (.bss.noinit.tvm); the stack is measured separately.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

FLASH_SECTIONS = (".vectors", ".rodata.tvm", ".text", ".ARM.exidx", ".data")
RAM_SECTIONS = (".data", ".bss", ".bss.noinit.tvm")

_OUTPUT_SECTION = re.compile(r"^(\.[\w.]+)\s+0x[0-9a-f]+\s+0x([0-9a-f]+)")
_INPUT_WITH_ADDR = re.compile(r"^ (?:\S+)?\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S.*)$")
_FILL = re.compile(r"^ \*fill\*\s+0x[0-9a-f]+\s+0x([0-9a-f]+)")


@dataclass
class ImageSizes:
    sections: dict[str, int]
    flash_by_origin: dict[str, int] = field(default_factory=dict)

    @property
    def flash(self) -> int:
        return sum(self.sections.get(s, 0) for s in FLASH_SECTIONS)

    @property
    def constants(self) -> int:
        return self.sections.get(".rodata.tvm", 0)

    @property
    def data_bss(self) -> int:
        return self.sections.get(".data", 0) + self.sections.get(".bss", 0)

    @property
    def workspace_section(self) -> int:
        return self.sections.get(".bss.noinit.tvm", 0)


def section_sizes(elf: Path, size_tool: str = "arm-none-eabi-size") -> dict[str, int]:
    """Section name -> bytes, from `size -A`."""
    out = subprocess.run([size_tool, "-A", str(elf)], check=True, capture_output=True,
                         text=True).stdout
    sizes: dict[str, int] = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0].startswith(".") and parts[1].isdigit():
            sizes[parts[0]] = int(parts[1])
    return sizes


def classify(origin: str, model_lib: str) -> str:
    """Which part of the product an input file (from the map) belongs to."""
    if "libc" in origin.rsplit("/", 1)[-1] or "/libgcc" in origin or "/libnosys" in origin \
            or "/libm" in origin or origin.startswith("/usr/"):
        return "libc"
    if origin.startswith(model_lib + "("):
        return "model"
    if origin.startswith("libutvm_crt.a("):
        return "runtime"
    return "program"


def flash_by_origin(map_file: Path, model_lib: str) -> dict[str, int]:
    """Bytes of each flash output section's input sections, grouped by classify()."""
    totals = {"constants": 0, "model": 0, "runtime": 0, "program": 0, "libc": 0, "padding": 0}
    lines = map_file.read_text(errors="replace").splitlines()
    try:
        start = lines.index("Linker script and memory map")
    except ValueError as e:
        raise ValueError(f"{map_file}: not a GNU ld map file") from e
    current = None
    pending_name = False
    for line in lines[start + 1:]:
        m = _OUTPUT_SECTION.match(line)
        if m:
            current = m.group(1)
            continue
        if current not in FLASH_SECTIONS or not line.startswith(" "):
            continue
        fill = _FILL.match(line)
        if fill:
            totals["padding"] += int(fill.group(1), 16)
            continue
        # An input section: " .text.name 0xADDR 0xSIZE file", or the name alone on one line
        # and "  0xADDR 0xSIZE file" on the next.
        if re.match(r"^ \.[\w.$]+\s*$", line):
            pending_name = True
            continue
        m = _INPUT_WITH_ADDR.match(line)
        if m and (pending_name or re.match(r"^ \.", line)):
            pending_name = False
            size = int(m.group(2), 16)
            origin = m.group(3).strip()
            if current == ".rodata.tvm":
                totals["constants"] += size
            else:
                totals[classify(origin, model_lib)] += size
    return totals


def measure(elf: Path, map_file: Path, model_lib: str) -> ImageSizes:
    return ImageSizes(section_sizes(elf), flash_by_origin(map_file, model_lib))
