"""utvm_build/build_cache.py: the test suite's content-keyed build cache reuses a build only when
every input is the same (the files, headers next to them and under -I, the flags)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from system_tools import need

from utvm_build.host import _compile


def _tree(root: Path, value: int) -> list[str]:
    (root / "inc").mkdir(parents=True)
    (root / "inc" / "v.h").write_text(f"#define V {value}\n")
    (root / "local.h").write_text("#define W 1\n")
    (root / "main.c").write_text('#include "v.h"\n#include "local.h"\nint main(void) { return V + W; }\n')
    return ["cc", f"-I{root / 'inc'}", str(root / "main.c"), "-o", str(root / "prog")]


def _status(root: Path) -> int:
    return subprocess.run([str(root / "prog")]).returncode


def test_same_inputs_elsewhere_hit_changed_inputs_miss(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    need("cc")
    cache = tmp_path / "cache"
    monkeypatch.setenv("UTVM_BUILD_CACHE", str(cache))
    _compile(_tree(tmp_path / "a", 2))
    assert _status(tmp_path / "a") == 3 and len(list(cache.iterdir())) == 1
    _compile(_tree(tmp_path / "b", 2))          # same content in another directory: copied
    assert _status(tmp_path / "b") == 3 and len(list(cache.iterdir())) == 1
    _compile(_tree(tmp_path / "c", 5))          # a header under -I changed: built
    assert _status(tmp_path / "c") == 6 and len(list(cache.iterdir())) == 2
    cmd = _tree(tmp_path / "d", 2)
    (tmp_path / "d" / "local.h").write_text("#define W 4\n")   # a header next to the source changed
    _compile(cmd)
    assert _status(tmp_path / "d") == 6 and len(list(cache.iterdir())) == 3
    _compile(cmd[:1] + ["-DUNUSED=1"] + cmd[1:])   # another flag: built
    assert len(list(cache.iterdir())) == 4
