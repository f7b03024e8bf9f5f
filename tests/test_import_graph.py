"""The modules of utvm_build import each other without circles (docs/architecture.md, "No import circles").

The graph is read from the source (ast), not from a running interpreter, so imports inside
functions and under ``if TYPE_CHECKING:`` count as well: a lazy import hides a circle from Python
but not from a reader. Not counted: a module importing a name from one of its own ancestor
packages (``from .. import __version__``): Python runs a package's ``__init__`` before any of its
submodules, so that edge never orders anything.
"""

from __future__ import annotations

import ast
from pathlib import Path

import utvm_build

PKG = Path(utvm_build.__file__).parent


def module_names(root: Path) -> dict[str, tuple[Path, bool]]:
    """Dotted module name -> (file, is a package ``__init__``)."""
    mods = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        if is_pkg:
            parts = parts[:-1]
        mods[".".join(parts)] = (path, is_pkg)
    return mods


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module -> the modules of the same tree it imports (anywhere in its source)."""
    mods = module_names(root)
    edges: dict[str, set[str]] = {m: set() for m in mods}
    for name, (path, is_pkg) in mods.items():
        package = name.split(".") if is_pkg else name.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = package[: len(package) - node.level + 1] if node.level else []
                module = ".".join(base + ([node.module] if node.module else []))
                # `from pkg import sub` imports the module pkg.sub; `from mod import name` imports mod
                targets = [f"{module}.{a.name}" if f"{module}.{a.name}" in mods else module for a in node.names]
            for t in targets:
                if t in mods and t != name and not name.startswith(t + "."):
                    edges[name].add(t)
    return edges


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One import circle as a path [a, b, ..., a], or None (iterative depth-first search)."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    for start in sorted(edges):
        if state.get(start):
            continue
        path, stack = [start], [iter(sorted(edges[start]))]
        state[start] = 1
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            elif not state.get(nxt):
                state[nxt] = 1
                path.append(nxt)
                stack.append(iter(sorted(edges[nxt])))
    return None


def test_utvm_build_imports_have_no_circle():
    edges = import_graph(PKG)
    assert len(edges) > 80 and edges["utvm_build.compiler"], "the graph was not read"
    cycle = find_cycle(edges)
    assert cycle is None, "import circle: " + " -> ".join(cycle or [])


def test_checker_finds_a_lazy_and_a_type_checking_circle(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("__version__ = '1'\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from . import __version__\nfrom .sub import b\n")
    (pkg / "sub" / "b.py").write_text("def f():\n    from ..c import g\n    return g\n")
    (pkg / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import x\n")
    cycle = find_cycle(import_graph(pkg))
    assert cycle is not None and set(cycle) == {"pkg.a", "pkg.sub.b", "pkg.c"}
    (pkg / "c.py").write_text("import os\n")
    assert find_cycle(import_graph(pkg)) is None
