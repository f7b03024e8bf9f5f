#!/usr/bin/env python3
"""MISRA C:2012 check of the CRT and of generated models with cppcheck's misra addon.

Counts findings per group and rule, prints them with totals, and fails (exit 1) when a count
exceeds the allowance in the baseline file. Every allowance is explained in crt/MISRA.md.

Groups:
  runtime    crt/src/*.c (without the host platform) and the crt/include headers they use
  model      the C files of one model (default: crt/tests/demo_model, the packed-entry template)
  generated  utvm-build output directories (--generated: a generated directory, or a directory
             holding several; any directory with src/*.c and include/ counts, e.g. a system
             library from utvm-build syslib). Each is analysed on its own: src/*.c with include/.
             Its own files count as <model>/<path>; the kernel headers (src/kernels/*.h, verbatim
             copies of utvm_build/kernels/*.h) count as kernels/<file>, once per line and rule
             however many models include them.
In the model groups, findings in the CRT headers and in crt_config.h (the CRT's configuration)
are not counted again: they belong to the runtime group.

Usage: misra_check.py [--model-dir DIR] [--config-dir DIR] [--generated DIR ...]
                      [--groups runtime,model,generated] [--baseline FILE] [--build-dir DIR]
Exit status: 0 within baseline, 1 above baseline, 2 cppcheck missing or failed, bad arguments.
Python standard library only.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

CRT_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNTIME_SOURCES = [
    "src/crt_string.c", "src/error.c", "src/func_registry.c", "src/module.c",
    "src/crt_backend_api.c", "src/stack_allocator.c", "src/tensor_args.c", "src/rpc_server.c", "src/rpc_framing.c",
]
GROUPS = ("runtime", "model", "generated")
FINDING = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+):(?P<rule>misra-c2012-[0-9.]+)$")


def run_cppcheck(sources, include_dirs, build_dir):
    """Return the set of (absolute file, line, rule) misra findings for the given sources."""
    os.makedirs(build_dir, exist_ok=True)  # cppcheck's own cache is not used: it skews counts
    cmd = ["cppcheck", "--addon=misra", "--std=c99", "--platform=arm32-wchar_t4",
           "--enable=style", "--quiet", "--error-exitcode=0",
           "--template={file}:{line}:{id}"]
    cmd += ["-I" + d for d in include_dirs]
    cmd += sources
    proc = subprocess.run(cmd, cwd=CRT_DIR, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, check=False)
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout)
        raise RuntimeError("cppcheck failed with status %d" % proc.returncode)
    findings = set()
    for line in proc.stdout.splitlines():
        m = FINDING.match(line.strip())
        if m:
            path = os.path.normpath(os.path.join(CRT_DIR, m.group("file")))
            findings.add((path, int(m.group("line")), m.group("rule")))
    return findings


def model_layout(model_dir):
    """(sources, include dirs) of a model directory (generated layout src/ + include/, or flat)."""
    src = os.path.join(model_dir, "src")
    if not os.path.isdir(src):
        src = model_dir
    includes = [d for d in (os.path.join(model_dir, "include"), src, model_dir) if os.path.isdir(d)]
    sources = sorted(os.path.join(src, f) for f in os.listdir(src) if f.endswith(".c"))
    return sources, includes


def own_files(findings, model_dir):
    """The findings in the model's own files, keyed by the path relative to model_dir."""
    own = set()
    for path, line, rule in findings:
        rel = os.path.relpath(path, model_dir)
        if rel.startswith(os.pardir + os.sep) or os.path.basename(rel) == "crt_config.h":
            continue  # CRT headers, crt_config.h: runtime group
        own.add((rel.replace(os.sep, "/"), line, rule))
    return own


def is_generated_dir(d):
    """A generated directory: utvm-build output (metadata.json) or any src/ holding C files."""
    src = os.path.join(d, "src")
    return os.path.isfile(os.path.join(d, "metadata.json")) or (
        os.path.isdir(src) and any(f.endswith(".c") for f in os.listdir(src)))


def generated_dirs(paths):
    """The generated directories named by --generated (each, or the ones inside it)."""
    dirs = []
    for p in paths:
        p = os.path.abspath(p)
        if is_generated_dir(p):
            dirs.append(p)
        elif os.path.isdir(p):
            dirs += sorted(os.path.join(p, d) for d in os.listdir(p) if is_generated_dir(os.path.join(p, d)))
        else:
            raise ValueError("%s: no such directory" % p)
    if not dirs:
        raise ValueError("no generated directory (metadata.json or src/*.c) in %s" % " ".join(paths))
    labels = [os.path.basename(d) for d in dirs]
    if len(set(labels)) != len(labels):
        raise ValueError("generated model directories need distinct names: %s" % " ".join(dirs))
    return dirs


def check_generated(dirs, crt_include, build_dir):
    """Findings of the generated group: <model>/<file> and kernels/<file> (shared, counted once)."""
    def one(d):
        sources, includes = model_layout(d)
        found = run_cppcheck(sources, includes + [crt_include],
                             os.path.join(build_dir, "generated", os.path.basename(d)))
        return d, own_files(found, d)

    def size(d):
        return sum(os.path.getsize(f) for f in model_layout(d)[0])

    findings = set()
    # largest first: the constants files dominate the run time (cppcheck is slow on big initializers)
    with ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 1)) as pool:
        for d, own in pool.map(one, sorted(dirs, key=size, reverse=True)):
            for rel, line, rule in own:
                if rel.startswith("src/kernels/"):
                    findings.add(("kernels/" + rel[len("src/kernels/"):], line, rule))
                else:
                    findings.add((os.path.basename(d) + "/" + rel, line, rule))
    return findings


def load_baseline(path):
    allowed = {}
    with open(path, encoding="utf-8") as f:
        for raw in f:
            line = raw.split("#", 1)[0].strip()
            if line:
                group, rule, count = line.split()
                allowed[(group, "misra-c2012-" + rule)] = int(count)
    return allowed


def rule_key(rule):
    return tuple(int(x) for x in rule.split("-")[-1].split("."))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model-dir", default=os.path.join(CRT_DIR, "tests", "demo_model"),
                    help="model directory of the 'model' group (its src/ and include/ if present)")
    ap.add_argument("--config-dir", default=os.path.join(CRT_DIR, "config"),
                    help="crt_config.h of the runtime and model groups")
    ap.add_argument("--generated", nargs="+", default=[], metavar="DIR",
                    help="generated model directories (or directories holding them): 'generated' group")
    ap.add_argument("--groups", help="comma-separated groups to check (default: runtime,model, "
                    "and generated when --generated is given)")
    ap.add_argument("--baseline", default=os.path.join(CRT_DIR, "misra_baseline.txt"))
    ap.add_argument("--build-dir", default=os.path.join(CRT_DIR, "build", "misra"))
    ap.add_argument("--verbose", action="store_true", help="list every finding")
    ap.add_argument("--brief", action="store_true",
                    help="one line per group unless a count is above the baseline (scripts/test.sh); "
                         "counts below it are named on one line")
    args = ap.parse_args()

    groups = ["runtime", "model"] + (["generated"] if args.generated else [])
    if args.groups:
        groups = [g.strip() for g in args.groups.split(",") if g.strip()]
    unknown = [g for g in groups if g not in GROUPS]
    if unknown or not groups:
        print("misra: unknown group %s (choose from %s)" % (",".join(unknown), ",".join(GROUPS)))
        return 2
    if "generated" in groups and not args.generated:
        print("misra: the generated group needs --generated DIR")
        return 2
    if shutil.which("cppcheck") is None:
        print("misra: cppcheck not found (apt-get install cppcheck)")
        return 2

    crt_include = os.path.join(CRT_DIR, "include")
    config_dir = os.path.abspath(args.config_dir)
    results = {}
    try:
        if "runtime" in groups:
            results["runtime"] = run_cppcheck(RUNTIME_SOURCES, [crt_include, config_dir],
                                              os.path.join(args.build_dir, "runtime"))
        if "model" in groups:
            model_dir = os.path.abspath(args.model_dir)
            sources, includes = model_layout(model_dir)
            found = run_cppcheck(sources, includes + [crt_include, config_dir],
                                 os.path.join(args.build_dir, "model"))
            results["model"] = own_files(found, model_dir)
        if "generated" in groups:
            dirs = generated_dirs(args.generated)
            if not args.brief:
                print("generated models: %s" % " ".join(os.path.basename(d) for d in dirs))
            results["generated"] = check_generated(dirs, crt_include, args.build_dir)
    except ValueError as e:
        print("misra: %s" % e)
        return 2
    except (RuntimeError, OSError) as e:
        print("misra: %s" % e)
        return 2

    allowed = {k: v for k, v in load_baseline(args.baseline).items() if k[0] in groups}
    counts = {}
    for group in groups:
        findings = results[group]
        for (_, _, rule) in findings:
            counts[(group, rule)] = counts.get((group, rule), 0) + 1
        if args.verbose:
            for f in sorted(findings):
                print("%s: %s:%d: %s" % (group, os.path.relpath(f[0], CRT_DIR) if group == "runtime"
                                         else f[0], f[1], f[2]))

    failed = False
    unexplained = 0
    rows, below = [], []
    for key in sorted(set(counts) | set(allowed), key=lambda k: (GROUPS.index(k[0]), rule_key(k[1]))):
        count = counts.get(key, 0)
        limit = allowed.get(key, 0)
        rule = key[1].replace("misra-c2012-", "")
        mark = ""
        if count > limit:
            mark = "  <-- above baseline"
            failed = True
            unexplained += count - limit
        elif count < limit:
            mark = "  (below baseline: lower it)"
            below.append("%s %s %d<%d" % (key[0], rule, count, limit))
        if not args.brief or count > limit:
            rows.append("%-9s %-18s %6d %8d%s" % (key[0], rule, count, limit, mark))
    if rows:
        print("%-9s %-18s %6s %8s" % ("group", "rule", "count", "allowed"))
        print("\n".join(rows))
    if args.brief:
        # Below the baseline is progress, not a failure: named on one line so the baseline can be
        # lowered (the generated group's counts also drop when ../shared/models is absent).
        if below:
            print("below %s, lower it: %s" % (os.path.basename(args.baseline), ", ".join(below)))
        print("misra %s: %d findings, %d above %s" % (",".join(groups), sum(counts.values()), unexplained,
                                                      os.path.basename(args.baseline)))
    else:
        for group in groups:
            total = sum(v for k, v in counts.items() if k[0] == group)
            print("total %s: %d" % (group, total))
        print("total: %d findings, %d unexplained" % (sum(counts.values()), unexplained))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
