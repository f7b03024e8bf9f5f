"""C text of a model group (``utvm-build compile-group``, docs/output.md "Model groups").

A group is several models compiled for one firmware. Its directory holds each model's generated
directory (``models/<name>/``, as ``compile`` writes it, plus the link to the group) and the
group's own files:

* ``include/tvmgen_<group>.h``: the combined sizes (workspace pools, states, RAM) as macros and
  which model may run while another is running;
* ``src/tvmgen_<group>.c``: the one workspace array holding every pool, and the pools' busy flags
  (the debug guard);
* ``src/tvmgen_<group>_kernels.c``: the kernel functions that several models call, compiled once
  (an external function per kernel function forwards to it; the models call that function);
* ``include/crt_config.h``: the CRT configuration all members need (the maximum of each value).

The data comes from ``utvm_build/group.py``; this module only writes text.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: The status a model's run returns when the debug guard finds another model of its pool running.
POOL_BUSY_STATUS = -3


@dataclass
class GroupLink:
    """What one member's generated code needs to know about its group."""

    group: str
    pool_index: int
    #: Byte offset of the member's pool in the group's workspace array.
    pool_offset: int
    pool_bytes: int
    pool_members: tuple[str, ...]
    workspace_bytes: int
    pool_count: int
    #: Kernel functions compiled once for the group that this member calls: name -> parameter types.
    shared: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def prefix(self) -> str:
        return f"tvmgen_{self.group}"

    @property
    def workspace_symbol(self) -> str:
        return f"{self.prefix}_workspace"

    @property
    def busy_symbol(self) -> str:
        return f"{self.prefix}_pool_busy"

    def wrapper(self, function: str) -> str:
        return wrapper_name(self.prefix, function)

    def metadata(self) -> dict:
        return {"name": self.group, "prefix": self.prefix, "pool": self.pool_index,
                "pool_offset": self.pool_offset, "pool_bytes": self.pool_bytes,
                "pool_members": list(self.pool_members), "shared_kernel_functions": sorted(self.shared)}


def wrapper_name(group_prefix: str, function: str) -> str:
    """The external function through which the group's members call a shared kernel function."""
    return f"{group_prefix}_{function}"


def wrapper_prototype(group_prefix: str, function: str, params: tuple[str, ...]) -> str:
    args = ", ".join(f"{t} a{k}" for k, t in enumerate(params)) or "void"
    return f"void {wrapper_name(group_prefix, function)}({args})"


#: Around the kernel headers of a file that calls some of their functions through the group's
#: wrappers: the headers' static functions it no longer calls are not compiled (GCC and Clang emit
#: no code for an unreferenced static function) and must not warn either.
UNUSED_FUNCTION_PRAGMAS = (
    ["#if defined(__GNUC__)", "#pragma GCC diagnostic push",
     '#pragma GCC diagnostic ignored "-Wunused-function"', "#endif"],
    ["#if defined(__GNUC__)", "#pragma GCC diagnostic pop", "#endif"],
)

#: The debug guard: on unless NDEBUG is defined (CMake's Release), or forced on by UTVM_POOL_GUARD.
GUARD_IF = "#if !defined(NDEBUG) || defined(UTVM_POOL_GUARD)"


@dataclass
class Member:
    name: str
    workspace_bytes: int
    state_bytes: int
    pool: int


@dataclass
class GroupText:
    """Everything the group's own files say."""

    group: str
    banner: str
    members: list[Member]
    #: (offset, bytes, member names) of each pool, in order.
    pools: list[tuple[int, int, tuple[str, ...]]]
    workspace_bytes: int
    workspace_align: int
    workspace_section: str
    #: Kernel functions compiled once: name -> parameter types; their headers.
    shared: dict[str, tuple[str, ...]]
    shared_headers: list[str]

    @property
    def prefix(self) -> str:
        return f"tvmgen_{self.group}"


def group_header(t: GroupText) -> str:
    up = t.prefix.upper()
    guard = f"{up}_H_"
    state = sum(m.state_bytes for m in t.members)
    alone = sum(m.workspace_bytes for m in t.members)
    lines = [t.banner, f"#ifndef {guard}", f"#define {guard}", "",
             f"/* Model group '{t.group}': {', '.join(m.name for m in t.members)}, one firmware, one C runtime.",
             " *",
             " * Workspace pools (the workspace is scratch memory, used only while a model's run executes;",
             " * what a model keeps between runs is its state, which is never shared):"]
    for k, (off, size, names) in enumerate(t.pools):
        kind = "shared: these models never run at the same time" if len(names) > 1 else "its own"
        lines.append(f" *   pool {k} at byte {off}, {size} B: {', '.join(names)} ({kind})")
    lines += [" *",
              " * Which model may run while another is running: two models of one pool must not (one run",
              " * returns before the other starts; neither from an interrupt nor from another thread while",
              " * the other runs); models of different pools may. In a debug build (NDEBUG not defined, or",
              f" * UTVM_POOL_GUARD defined) a run that finds its pool busy returns {POOL_BUSY_STATUS} and touches",
              " * nothing.",
              " */", ""]
    for k, (_off, size, names) in enumerate(t.pools):
        lines.append(f"/*! Pool {k}: {', '.join(names)}. */")
        lines.append(f"#define {up}_POOL_{k}_SIZE {size}")
    lines += ["/*! Pools of each model: two models may run at the same time only if these differ. */"]
    for m in t.members:
        lines.append(f"#define {up}_{m.name.upper()}_POOL {m.pool}")
    lines += ["/*! 1 if models A and B (upper-case names) may run at the same time (different pools), else 0:",
              f" *  e.g. #if !{up}_MAY_RUN_TOGETHER({t.members[0].name.upper()}, {t.members[-1].name.upper()}). */",
              f"#define {up}_MAY_RUN_TOGETHER(a, b) ({up}_##a##_POOL != {up}_##b##_POOL)",
              "/*! Bytes of the group's workspace: every pool, each aligned (one static array). */",
              f"#define {up}_WORKSPACE_SIZE {t.workspace_bytes}",
              "/*! What the members' workspaces would take, each alone (for comparison). */",
              f"#define {up}_SEPARATE_WORKSPACE_SIZE {alone}",
              "/*! Bytes of the members' states, together (each model keeps its own region). */",
              f"#define {up}_STATE_SIZE {state}",
              "/*! RAM the group's models take: the workspace and the states. */",
              f"#define {up}_RAM_SIZE {t.workspace_bytes + state}",
              "/*! Returned by a member's run when its pool is busy (debug guard). */",
              f"#define {up}_POOL_BUSY ({POOL_BUSY_STATUS})",
              "", f"#endif /* {guard} */", ""]
    return "\n".join(lines)


def group_source(t: GroupText) -> str:
    up = t.prefix.upper()
    sec = f', section("{t.workspace_section}")' if t.workspace_section else ""
    lines = [t.banner, "/* The group's workspace (every pool) and the pools' busy flags. */", "",
             "#include <stdint.h>", f'#include "{t.prefix}.h"', "",
             "#if defined(__GNUC__) || defined(__clang__)",
             f"#define {up}_WORKSPACE_ATTR __attribute__((aligned({t.workspace_align}){sec}))",
             "#else", f"#define {up}_WORKSPACE_ATTR", "#endif", ""]
    if t.workspace_bytes:
        lines.append(f"uint8_t {t.prefix}_workspace[{up}_WORKSPACE_SIZE] {up}_WORKSPACE_ATTR;")
    lines += ["/* Nonzero while a model of the pool runs (written only by the debug guard). */",
              f"volatile uint8_t {t.prefix}_pool_busy[{len(t.pools)}];", ""]
    return "\n".join(lines)


def kernels_source(t: GroupText) -> str:
    """The shared kernel functions, compiled once: one external function each."""
    lines = [t.banner, "/* Kernel functions called by several models of the group, compiled once here. */", "",
             *UNUSED_FUNCTION_PRAGMAS[0], '#include "kernels/common.h"',
             *[f'#include "kernels/{h}.h"' for h in t.shared_headers], *UNUSED_FUNCTION_PRAGMAS[1], ""]
    for fn, params in sorted(t.shared.items()):
        lines.append(wrapper_prototype(t.prefix, fn, params) + ";")
    lines.append("")
    for fn, params in sorted(t.shared.items()):
        args = ", ".join(f"a{k}" for k in range(len(params)))
        lines += [wrapper_prototype(t.prefix, fn, params) + " {", f"  {fn}({args});", "}", ""]
    if not t.shared:   # ISO C forbids an empty translation unit
        lines.append(f"typedef int {t.prefix}_no_shared_kernels;")
    return "\n".join(lines)

