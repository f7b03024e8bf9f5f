"""Issue 22: one writer at a time, no path component trusted after it was checked, and the same
rules for every command that writes (docs/output.md).

- concurrent `compile` runs into one directory (3 processes, 20 trials in CI) leave exactly one
  complete output; a second run waits with one line, or refuses in one line with exit 2;
- a folder replaced by a symlink at any point of a run (a hook before each file-system call, and
  the real command racing a thread that swaps links) deletes or changes nothing outside;
- `report -o`, `rpc-server -o`, `rpc-bridge -o`, `syslib -o`, `run --output-dir` write only a new
  path or a file they wrote (marked), never through a link (`.<name>.utvm-tmp`, `output_0.npy`
  planted as links included), and `-o` naming a directory is one line;
- legacy adoption: a forged metadata.json gets nothing deleted.
"""

from __future__ import annotations

import json
import os
import pickle
import random
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from utvm_build import safe_fs
from utvm_build.compiler import compile_bytes
from utvm_build.emit.output import MANIFEST, write_output
from utvm_build.errors import UtvmError

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DIGITS = REPO / "examples" / "models" / "digits" / "digits_int8.tflite"
DIGITS_FLOAT = REPO / "examples" / "models" / "digits" / "digits_float.tflite"
FULL = os.environ.get("UTVM_TEST_FULL") == "1"


def cli(*args: object, cwd: Path | None = None, env: dict | None = None, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "utvm_build", *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, timeout=300, env=env, **kw)


def snapshot(root: Path) -> dict[str, bytes | str]:
    out: dict[str, bytes | str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            rel = p.relative_to(root).as_posix()
            out[rel] = "-> " + os.readlink(p) if p.is_symlink() else "dir" if p.is_dir() else p.read_bytes()
    return out


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def refused(p: subprocess.CompletedProcess, needle: str) -> None:
    assert p.returncode == 2, (p.returncode, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("utvm-build: error: "), p.stderr
    assert needle in lines[0], lines[0]


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Two different generated file sets and their expected trees."""
    tmp = tmp_path_factory.mktemp("writers")
    a = compile_bytes(DIGITS.read_bytes(), "a").files
    b = compile_bytes(DIGITS_FLOAT.read_bytes(), "b").files
    write_output(tmp / "ta", a)
    write_output(tmp / "tb", b)
    pa, pb = tmp / "a.pickle", tmp / "b.pickle"
    pa.write_bytes(pickle.dumps(a))
    pb.write_bytes(pickle.dumps(b))
    return {"a": a, "b": b, "tree_a": tree(tmp / "ta"), "tree_b": tree(tmp / "tb"), "pickle_a": pa, "pickle_b": pb}


# ---- one writer at a time -------------------------------------------------------------------

def test_concurrent_runs_leave_one_complete_output(tmp_path: Path, models: dict) -> None:
    trials = 60 if FULL else 20
    rng = random.Random(22)
    waited = 0
    for k in range(trials):
        work = tmp_path / f"t{k}"
        work.mkdir()
        gen = work / "gen"
        if k % 2:   # half the trials replace an existing output, half write a new directory
            write_output(gen, models["a"])
        start = time.time() + 0.4
        procs = []
        for _ in range(3):
            which = rng.choice("ab")
            procs.append(subprocess.Popen(
                [sys.executable, str(HERE / "output_race_child.py"), str(gen), str(models[f"pickle_{which}"]),
                 str(start), str(rng.randrange(2))], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
        for p in procs:
            out, err = p.communicate(timeout=120)
            # A run that found another one writing says so in one line and waits (default), then writes.
            assert p.returncode == 0, (k, out, err)
            lines = err.strip().splitlines()
            assert len(lines) <= 1 and all("another utvm-build run is writing" in ln for ln in lines), err
            waited += len(lines)
        now = tree(gen)
        assert now in (models["tree_a"], models["tree_b"]), f"trial {k}: not one complete output"
        assert sorted(os.listdir(work)) == ["gen"], (k, os.listdir(work))   # no staging, no lock left
    assert waited, "no run ever waited for another: the runs did not overlap"
    print(f"{trials} trials x 3 runs: {waited} runs waited for another")


def test_second_run_refuses_or_waits_with_one_line(tmp_path: Path) -> None:
    gen = tmp_path / "gen"
    assert cli("compile", DIGITS, "-o", gen).returncode == 0
    before = snapshot(gen)
    env0 = dict(os.environ, UTVM_BUILD_LOCK_WAIT="0")
    with safe_fs.Dir.open(tmp_path) as parent, safe_fs.lock(parent, "gen", str(gen)):
        p = cli("compile", DIGITS_FLOAT, "-o", gen, env=env0)
        refused(p, f"another utvm-build run is writing {gen}")
        assert snapshot(gen) == before
        # Waiting (the default): the message appears at once, the run goes on when the lock is free.
        proc = subprocess.Popen([sys.executable, "-m", "utvm_build", "compile", str(DIGITS_FLOAT), "-o", str(gen)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(3)
        assert proc.poll() is None and snapshot(gen) == before
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert err.strip().splitlines() == [f"utvm-build: another utvm-build run is writing {gen}; waiting for it "
                                        "(at most 300 s)"]
    assert any("digits_float" in f for f in tree(gen)) and sorted(os.listdir(tmp_path)) == ["gen"]


# ---- a symlink swapped in during a run ------------------------------------------------------

_OPS = ("open", "mkdir", "rename", "rmdir", "unlink", "link", "scandir")


def _victim(root: Path, files: dict[str, bytes]) -> Path:
    """A user's folder shaped like a generated one (the same names), plus a file of its own."""
    for rel in files:
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(b"user data\n")
    (root / "precious.txt").write_text("mine\n")
    return root


def _run_with_swap(monkeypatch: pytest.MonkeyPatch, work: Path, old: dict, new: dict, at: int, component: str,
                   victim: Path, incremental: bool) -> tuple[int, str]:
    """write_output(work/gen, new) over ``old``; just before the ``at``-th file-system call,
    ``component`` (relative to work) is replaced by a symlink to the same place in ``victim``.
    Returns (number of calls, outcome)."""
    real = {name: getattr(os, name) for name in _OPS}
    count = [0]

    def swap() -> None:
        target = work / component
        if os.path.isdir(target) and not os.path.islink(target):
            real["rename"](target, work / f"moved-{at}")
            rel = component.split("/", 1)[1] if "/" in component else ""
            os.symlink(victim / rel if rel else victim, target)

    def counted(name: str):  # noqa: ANN202
        def call(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            count[0] += 1
            if count[0] == at:
                swap()
            return real[name](*args, **kwargs)
        return call

    with monkeypatch.context() as m:
        for name in _OPS:
            m.setattr(os, name, counted(name))
        try:
            write_output(work / "gen", new, incremental=incremental)
            outcome = "ok"
        except UtvmError as e:
            assert "\n" not in str(e)
            outcome = "refused"
    return count[0], outcome


@pytest.mark.parametrize("incremental", [False, True], ids=["replace", "incremental"])
def test_symlink_swapped_in_at_any_point_touches_nothing_outside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 models: dict, incremental: bool) -> None:
    old, new = models["a"], models["b"]
    components = ["gen", "gen/src", "gen/include", "gen/src/kernels", ".gen.utvm-staging",
                  ".gen.utvm-staging/src", ".gen.utvm-staging/include", ".gen.utvm-staging/src/kernels"]
    work = tmp_path / "probe"
    write_output(work / "gen", old)
    total, _ = _run_with_swap(monkeypatch, work, old, new, 0, "gen", tmp_path, incremental)
    assert total > 40
    rng = random.Random(2022 + incremental)
    victim = _victim(tmp_path / "victim", {**old, **new})
    before = snapshot(victim)
    outcomes: dict[str, int] = {}
    for component in components:   # every component at a seeded sample of points (every point: FULL)
        points = range(1, total + 1) if FULL else sorted(rng.sample(range(1, total + 1), 8))
        for at in points:
            work = tmp_path / "w"
            write_output(work / "gen", old)
            _, outcome = _run_with_swap(monkeypatch, work, old, new, at, component, victim, incremental)
            assert snapshot(victim) == before, f"a link at {component} before call {at} changed the user's files"
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
            shutil.rmtree(work)
    assert outcomes.get("refused") and outcomes.get("ok"), outcomes
    print(f"{len(points)} points x {len(components)} components: {outcomes}")


def test_links_swapped_by_a_racing_process_touch_nothing_outside(tmp_path: Path, models: dict) -> None:
    """The real command while a thread keeps replacing gen/src and gen/include by links (and back)."""
    victim = _victim(tmp_path / "victim", {**models["a"], **models["b"]})
    before = snapshot(victim)
    trials = 30 if FULL else 8
    for k in range(trials):
        work = tmp_path / f"r{k}"
        work.mkdir()
        gen = work / "gen"
        write_output(gen, models["a"] if k % 2 else models["b"])
        stop = threading.Event()

        def flip(gen: Path = gen, k: int = k, stop: threading.Event = stop) -> None:
            rng = random.Random(k)
            n = 0
            while not stop.is_set():
                for sub in ("src", "include"):
                    target = gen / sub
                    try:
                        if target.is_dir() and not target.is_symlink():
                            target.rename(gen.parent / f"moved{n}")
                            target.symlink_to(victim / sub)
                            n += 1
                    except OSError:
                        pass
                time.sleep(rng.uniform(0.0, 0.02))

        t = threading.Thread(target=flip)
        t.start()
        try:
            p = cli("compile", DIGITS_FLOAT if k % 2 else DIGITS, "-o", gen, *(["--incremental"] if k % 3 else []))
        finally:
            stop.set()
            t.join()
        assert p.returncode in (0, 2) and len(p.stderr.strip().splitlines()) <= 1, p.stderr
        assert snapshot(victim) == before, f"trial {k}: the user's files changed"


# ---- other writers ----------------------------------------------------------------------------

@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "main.c").write_text("int main(void) { return 0; }\n")
    (root / "model.tflite").write_bytes(DIGITS.read_bytes())
    (root / "sub").mkdir()
    return root


def test_report_writes_only_its_own_file(project: Path) -> None:
    page = project / "r.html"
    assert cli("report", "model.tflite", "-o", "r.html", cwd=project).returncode == 0
    first = page.read_bytes()
    assert cli("report", "model.tflite", "-o", "r.html", "--name", "other", cwd=project).returncode == 0
    assert page.read_bytes() != first   # its own page: replaced
    (project / "link.html").symlink_to("main.c")
    (project / ".new.html.utvm-tmp").symlink_to("main.c")   # a planted temporary name is never used
    before = snapshot(project)
    refused(cli("report", "model.tflite", "-o", ".", cwd=project), "it is a directory")
    refused(cli("report", "model.tflite", "-o", "sub", cwd=project), "it is a directory")
    refused(cli("report", "model.tflite", "-o", "sub/", cwd=project), "it is a directory")
    refused(cli("report", "model.tflite", "-o", "main.c", cwd=project), "utvm-build did not write it")
    refused(cli("report", "model.tflite", "-o", "model.tflite", cwd=project), "utvm-build did not write it")
    refused(cli("report", "model.tflite", "-o", "link.html", cwd=project), "symlink")
    assert snapshot(project) == before
    assert cli("report", "model.tflite", "-o", "new.html", cwd=project).returncode == 0
    assert (project / ".new.html.utvm-tmp").is_symlink() and (project / "main.c").read_text().startswith("int main")
    assert not [n for n in os.listdir(project) if n.endswith(".utvm-tmp") and n != ".new.html.utvm-tmp"]


def test_syslib_writes_only_its_own_file(tmp_path: Path, project: Path) -> None:
    gen = tmp_path / "gen"
    assert cli("compile", DIGITS, "-o", gen, "--interface", "packed").returncode == 0
    (project / ".lib.c.utvm-tmp").symlink_to("main.c")
    (project / "link.c").symlink_to("main.c")
    before = snapshot(project)
    for target, needle in (("main.c", "utvm-build did not write it"), ("link.c", "symlink"), (".", "directory"),
                           ("sub", "directory")):
        refused(cli("syslib", gen, "-o", target, cwd=project), needle)
    assert snapshot(project) == before
    assert cli("syslib", gen, "-o", "lib.c", cwd=project).returncode == 0
    assert cli("syslib", gen, "-o", "lib.c", cwd=project).returncode == 0   # its own: rewritten (unchanged)
    assert (project / "lib.c").read_bytes().startswith(b"/* Generated by utvm-build")
    assert (project / ".lib.c.utvm-tmp").is_symlink() and (project / "main.c").read_text().startswith("int main")


def test_run_output_dir_never_follows_or_overwrites(project: Path) -> None:
    out = project / "o"
    out.mkdir()
    (out / "output_0.npy").symlink_to(project / "main.c")
    before = snapshot(project)
    refused(cli("run", "model.tflite", "--output-dir", "o", cwd=project), "utvm-build did not write it")
    assert snapshot(project) == before
    (out / "output_0.npy").unlink()
    (out / "output_0.npy").write_bytes(b"a user's file\n")
    refused(cli("run", "model.tflite", "--output-dir", "o", cwd=project), "utvm-build did not write it")
    assert (out / "output_0.npy").read_bytes() == b"a user's file\n"
    (project / "olink").symlink_to(project / "sub")
    refused(cli("run", "model.tflite", "--output-dir", "olink", cwd=project), "symlink")
    refused(cli("run", "model.tflite", "--output-dir", "main.c", cwd=project), "not a directory")
    # Its own outputs are replaced (the record lists their digests); a file it did not write stays.
    fresh = project / "fresh"
    (fresh / "notes.txt").parent.mkdir()
    (fresh / "notes.txt").write_text("mine\n")
    assert cli("run", "model.tflite", "--output-dir", "fresh", cwd=project).returncode == 0
    assert cli("run", "model.tflite", "--output-dir", "fresh", "--input-fill", "max", cwd=project).returncode == 0
    assert sorted(os.listdir(fresh)) == [".utvm-build-outputs.json", "notes.txt", "output_0.npy"]
    assert (project / "main.c").read_text().startswith("int main")


def test_rpc_server_writes_only_its_own_program(project: Path) -> None:
    from utvm_build.rpc.build import PROGRAM_MARK, check_output

    (project / "link").symlink_to("main.c")
    before = snapshot(project)
    for target, needle in (("main.c", "utvm-build did not write it"), ("model.tflite", "utvm-build did not write it"),
                           ("link", "symlink"), (".", "directory"), ("sub", "directory")):
        refused(cli("rpc-server", "model.tflite", "-o", target, cwd=project), needle)
        refused(cli("rpc-bridge", "--command", "true", "-o", target, cwd=project), needle)
    assert snapshot(project) == before
    p = cli("rpc-server", "model.tflite", "-o", "srv", cwd=project)
    assert p.returncode == 0, p.stderr
    assert (project / "srv").read_bytes().endswith(PROGRAM_MARK) and os.access(project / "srv", os.X_OK)
    check_output(project / "srv")   # its own program may be replaced
    with pytest.raises(UtvmError, match="did not write it"):
        check_output(project / "main.c")
    assert cli("rpc-bridge", "--command", "true", "-o", "bridge", cwd=project).returncode == 0
    assert cli("rpc-bridge", "--command", "true", "-o", "bridge", cwd=project).returncode == 0
    # one name may switch between our two kinds (README: `-o srv` for QEMU, then for the host)
    check_output(project / "bridge")
    check_output(project / "srv", launcher=True)


def test_write_file_temporary_names_are_fresh_and_never_followed(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("mine\n")
    (tmp_path / ".f.utvm-tmp").symlink_to(victim)
    owned = safe_fs.owned_by_prefix(b"OURS")
    assert safe_fs.write_file(tmp_path / "f", b"OURS 1", owned=owned)
    assert safe_fs.write_file(tmp_path / "f", b"OURS 2", owned=owned)
    assert not safe_fs.write_file(tmp_path / "f", b"OURS 2", owned=owned)   # unchanged: untouched
    assert (tmp_path / "f").read_bytes() == b"OURS 2" and victim.read_text() == "mine\n"
    assert sorted(os.listdir(tmp_path)) == [".f.utvm-tmp", "f", "victim.txt"]
    with pytest.raises(UtvmError, match="did not write it"):
        safe_fs.write_file(victim, b"OURS", owned=owned)


# ---- legacy adoption ------------------------------------------------------------------------

def test_forged_metadata_gets_nothing_deleted(tmp_path: Path) -> None:
    """A directory without a manifest is adopted only if every file's name and content say that
    utvm-build wrote it: a forged metadata.json listing a user's files gets them nothing."""
    gen = tmp_path / "gen"
    gen.mkdir()
    (gen / "src").mkdir()
    (gen / "src" / "tvmgen_x.c").write_text("int user_code;\n")          # a name it could write, a user's content
    (gen / "src" / "tvmgen_x_internal.h").write_text("/* mine */\n")
    (gen / "metadata.json").write_text(json.dumps({"prefix": "tvmgen_x", "sources": ["src/tvmgen_x.c"],
                                                   "generator_version": "0.1.0"}))
    before = snapshot(gen)
    refused(cli("compile", DIGITS, "-o", gen), "did not write")
    assert snapshot(gen) == before
    # Names it never writes, even with a banner: refused too.
    for sources, name in ((["../outside.c"], "src/x.c"), (["src/tvmgen_x.c"], "notes.txt")):
        shutil.rmtree(gen)
        (gen / "src").mkdir(parents=True)
        (gen / "metadata.json").write_text(json.dumps({"prefix": "tvmgen_x", "sources": sources,
                                                       "generator_version": "0.1.0"}))
        (gen / name).write_text("/* Generated by utvm-build 0.1.0 from x.tflite. Do not edit. */\n")
        before = snapshot(gen)
        refused(cli("compile", DIGITS, "-o", gen), "did not write")
        assert snapshot(gen) == before
    # A manifest listing paths outside (absolute, '..', '#'): not a manifest; nothing deleted.
    shutil.rmtree(gen)
    gen.mkdir()
    (tmp_path / "outside.txt").write_text("mine\n")
    (gen / MANIFEST).write_text(json.dumps({"kind": "utvm-build generated directory",
                                            "files": [MANIFEST, "../outside.txt", str(tmp_path / "outside.txt")]}))
    refused(cli("compile", DIGITS, "-o", gen), "did not write")
    assert (tmp_path / "outside.txt").read_text() == "mine\n"
