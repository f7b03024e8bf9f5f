"""The generator writes only what it owns (docs/output.md): every data-loss scenario of issue 12
through the command line, each refusal one line with exit status 2 and nothing changed."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from utvm_build.compiler import compile_bytes
from utvm_build.emit import output
from utvm_build.emit.output import MANIFEST, write_output
from utvm_build.errors import UtvmError

REPO = Path(__file__).resolve().parents[1]
DIGITS = REPO / "examples" / "models" / "digits" / "digits_int8.tflite"
DIGITS_FLOAT = REPO / "examples" / "models" / "digits" / "digits_float.tflite"


def cli(*args: object, cwd: Path | None = None, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "utvm_build", *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, timeout=300, **kw)


def snapshot(root: Path) -> dict[str, bytes | str]:
    """Every entry under ``root``: file contents, symlink targets, folders."""
    out: dict[str, bytes | str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            rel = p.relative_to(root).as_posix()
            if p.is_symlink():
                out[rel] = "-> " + os.readlink(p)
            elif p.is_dir():
                out[rel] = "dir"
            else:
                out[rel] = p.read_bytes()
    return out


def refused(p: subprocess.CompletedProcess, needle: str) -> None:
    assert p.returncode == 2, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("utvm-build: error: "), p.stderr
    assert needle in lines[0], lines[0]
    assert "Traceback" not in p.stderr


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A firmware project: sources, notes in a sub-folder and the model."""
    root = tmp_path / "proj"
    (root / "sub").mkdir(parents=True)
    (root / "main.c").write_text("int main(void) { return 0; }\n")
    (root / "sub" / "notes.txt").write_text("notes\n")
    (root / "model.tflite").write_bytes(DIGITS.read_bytes())
    return root


@pytest.mark.parametrize("incremental", [False, True])
def test_refuses_directory_with_user_files(project: Path, incremental: bool) -> None:
    before = snapshot(project)
    extra = ["--incremental"] if incremental else []
    refused(cli("compile", project / "model.tflite", "-o", project, *extra), "did not write")
    assert snapshot(project) == before
    assert sorted(os.listdir(project.parent)) == ["proj"]   # no staging leftovers either


def test_refuses_model_folder_cwd_and_dot(project: Path) -> None:
    before = snapshot(project)
    refused(cli("compile", "model.tflite", "-o", ".", cwd=project), "current directory")
    refused(cli("compile", "model.tflite", "-o", project, cwd=project), "current directory")
    refused(cli("compile", project / "model.tflite", "-o", project), "did not write")   # the model's folder
    refused(cli("compile", "proj/model.tflite", "-o", ".", cwd=project.parent), "current directory")
    assert snapshot(project) == before
    assert sorted(os.listdir(project.parent)) == ["proj"]


def test_refuses_symlinks(tmp_path: Path, project: Path) -> None:
    gen = tmp_path / "gen"
    assert cli("compile", DIGITS, "-o", gen).returncode == 0
    before = snapshot(project)
    # The output directory itself is a link to the project: refused, with or without --incremental.
    (tmp_path / "link").symlink_to(project)
    for extra in ([], ["--incremental"]):
        refused(cli("compile", DIGITS, "-o", tmp_path / "link", *extra), "symlink")
    # A link inside a generated directory that leads out of it: not the generator's, refused.
    (gen / "src" / "kernels").rename(tmp_path / "kernels_moved")
    (gen / "src" / "kernels").symlink_to(project)
    gen_before = snapshot(gen)
    for extra in ([], ["--incremental"]):
        refused(cli("compile", DIGITS, "-o", gen, *extra), "did not write")
    assert snapshot(project) == before and snapshot(gen) == gen_before


def test_refuses_generated_directory_a_user_added_to(tmp_path: Path) -> None:
    gen = tmp_path / "gen"
    assert cli("compile", DIGITS, "-o", gen).returncode == 0
    (gen / "src" / "my_glue.c").write_text("/* mine */\n")
    before = snapshot(gen)
    refused(cli("compile", DIGITS, "-o", gen, "--incremental"), "src/my_glue.c")
    assert snapshot(gen) == before


def test_owns_and_replaces_its_own_output(tmp_path: Path) -> None:
    gen = tmp_path / "gen"
    assert cli("compile", DIGITS, "-o", gen, "--name", "a").returncode == 0
    manifest = json.loads((gen / MANIFEST).read_text())
    assert sorted(manifest["files"]) == sorted(snapshot_files(gen))
    # Another model (other kernels, other names) replaces it entirely: nothing of "a" remains.
    p = cli("compile", DIGITS_FLOAT, "-o", gen, "--name", "b")
    assert p.returncode == 0, p.stderr
    files = snapshot_files(gen)
    assert not [f for f in files if "tvmgen_a" in f]
    assert sorted(json.loads((gen / MANIFEST).read_text())["files"]) == sorted(files)
    assert sorted(os.listdir(tmp_path)) == ["gen"]
    # An empty directory, or one holding empty folders only, is taken.
    empty = tmp_path / "empty"
    (empty / "a" / "b").mkdir(parents=True)
    assert cli("compile", DIGITS, "-o", empty).returncode == 0


def snapshot_files(root: Path) -> list[str]:
    return [k for k, v in snapshot(root).items() if isinstance(v, bytes)]


def test_directory_from_before_manifests_is_adopted(tmp_path: Path) -> None:
    gen = tmp_path / "gen"
    assert cli("compile", DIGITS, "-o", gen).returncode == 0
    (gen / MANIFEST).unlink()   # as written by utvm-build 0.1.0 before manifests
    assert cli("compile", DIGITS, "-o", gen, "--incremental").returncode == 0
    assert (gen / MANIFEST).is_file()
    (gen / MANIFEST).unlink()
    (gen / "include" / "mine.h").write_text("/* mine */\n")
    refused(cli("compile", DIGITS, "-o", gen), "did not write")   # then nothing there is known to be ours


def test_incremental_touches_only_what_changed(tmp_path: Path) -> None:
    gen = tmp_path / "gen"
    assert cli("compile", DIGITS, "-o", gen, "--incremental").returncode == 0
    stat = {f: (gen / f).stat().st_mtime_ns for f in snapshot_files(gen)}
    inode = gen.stat().st_ino
    assert cli("compile", DIGITS, "-o", gen, "--incremental").returncode == 0
    assert {f: (gen / f).stat().st_mtime_ns for f in snapshot_files(gen)} == stat
    assert gen.stat().st_ino == inode   # a no-op run does not even swap the directory
    # A different section changes the constants' declarations and the metadata only.
    assert cli("compile", DIGITS, "-o", gen, "--incremental", "--constants-section", ".rodata.x").returncode == 0
    changed = {f for f in snapshot_files(gen) if (gen / f).stat().st_mtime_ns != stat.get(f)}
    assert "metadata.json" in changed and "src/tvmgen_digits_int8_ops.c" not in changed, changed
    assert changed <= {"metadata.json", MANIFEST, "src/tvmgen_digits_int8_constants.c",
                       "src/tvmgen_digits_int8_internal.h"}, changed
    assert sorted(os.listdir(tmp_path)) == ["gen"]


def test_stale_leftovers_of_a_killed_run_are_removed(tmp_path: Path) -> None:
    gen = tmp_path / "gen"
    files = compile_bytes(DIGITS.read_bytes(), "digits").files
    write_output(gen, files)
    # A kill while staging left a half-written staging directory (with its manifest): the next run
    # removes it. One the generator did not make is refused, not deleted.
    staging = tmp_path / ".gen.utvm-staging"
    staging.mkdir()
    (staging / MANIFEST).write_bytes(output.manifest_bytes(["src/x.c"]))
    (staging / "src").mkdir()
    (staging / "src" / "x.c").write_text("half")
    write_output(gen, files)
    assert sorted(os.listdir(tmp_path)) == ["gen"]
    staging.mkdir()
    (staging / "precious.txt").write_text("mine")
    with pytest.raises(UtvmError, match="did not write"):
        write_output(gen, files)
    assert (staging / "precious.txt").read_text() == "mine"


def test_full_disk_and_unwritable_parent(tmp_path: Path) -> None:
    gen = tmp_path / "gen"
    assert cli("compile", DIGITS, "-o", gen, "--name", "old").returncode == 0
    before = snapshot(gen)

    def small_files() -> None:   # files may not grow past 4 KB: the constants do not fit
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

    for extra in ([], ["--incremental"]):
        p = cli("compile", DIGITS, "-o", gen, "--name", "new", *extra, preexec_fn=small_files)
        refused(p, "cannot write the generated directory")
        assert snapshot(gen) == before
        assert sorted(os.listdir(tmp_path)) == ["gen"]
    # A parent nobody can create files in (root ignores permission bits, /proc does not).
    refused(cli("compile", DIGITS, "-o", "/proc/utvm-build-test/gen"), "cannot write the generated directory")


def test_model_text_is_escaped_and_errors_are_one_line(tmp_path: Path) -> None:
    from tflite_writer import ModelBuilder

    mb = ModelBuilder(description="desc\x1b]0;title\x07")
    x = mb.tensor([1, 4], "float32", name="in\n\x1b[31mred\x1b[0m", shape_signature=[1, -1])
    y = mb.tensor([1, 4], "float32", name="out")
    mb.operator("RELU", [x], [y])
    path = tmp_path / "m.tflite"
    path.write_bytes(mb.build(inputs=[x], outputs=[y]))
    p = cli("info", path)
    assert "\x1b" not in p.stdout + p.stderr and "\\x1b[31mred" in p.stdout + p.stderr
    p = cli("compile", path, "-o", tmp_path / "gen")
    refused(p, "dynamic shape")
    assert "\x1b" not in p.stderr and "in\\n\\x1b[31mred" in p.stderr
    assert not (tmp_path / "gen").exists()
