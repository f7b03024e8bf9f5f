#!/usr/bin/env python3
"""MISRA C:2012 check of the CRT (and of a generated model) with cppcheck's misra addon.

Counts findings per group and rule, prints them with totals, and fails (exit 1) when a count
exceeds the allowance in the baseline file. Every allowance is explained in crt/MISRA.md.

Groups:
  runtime  crt/src/*.c (without the host platform) and the crt/include headers they use
  model    the C files of a generated model (default: crt/tests/demo_model, the packed-entry
           template); findings in the CRT headers and crt_config.h are not counted again here

Usage: misra_check.py [--model-dir DIR] [--config-dir DIR] [--baseline FILE] [--build-dir DIR]
Exit status: 0 within baseline, 1 above baseline, 2 cppcheck missing or failed.
Python standard library only.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

CRT_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNTIME_SOURCES = [
    "src/crt_string.c", "src/error.c", "src/func_registry.c", "src/module.c",
    "src/crt_backend_api.c", "src/stack_allocator.c", "src/tensor_args.c",
]
FINDING = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+):(?P<rule>misra-c2012-[0-9.]+)$")


def run_cppcheck(sources, include_dirs, build_dir):
    """Return the set of (file, line, rule) misra findings for the given sources."""
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
            path = os.path.relpath(os.path.join(CRT_DIR, m.group("file")), CRT_DIR)
            findings.add((path, int(m.group("line")), m.group("rule")))
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
                    help="generated model directory (its src/ and include/ are used if present)")
    ap.add_argument("--config-dir", default=os.path.join(CRT_DIR, "config"))
    ap.add_argument("--baseline", default=os.path.join(CRT_DIR, "misra_baseline.txt"))
    ap.add_argument("--build-dir", default=os.path.join(CRT_DIR, "build", "misra"))
    ap.add_argument("--verbose", action="store_true", help="list every finding")
    args = ap.parse_args()

    if shutil.which("cppcheck") is None:
        print("misra: cppcheck not found (apt-get install cppcheck)")
        return 2

    model_dir = os.path.abspath(args.model_dir)
    model_src = os.path.join(model_dir, "src") if os.path.isdir(
        os.path.join(model_dir, "src")) else model_dir
    model_inc = [d for d in (os.path.join(model_dir, "include"), model_src, model_dir)
                 if os.path.isdir(d)]
    model_sources = sorted(os.path.join(model_src, f) for f in os.listdir(model_src)
                           if f.endswith(".c"))
    crt_include = os.path.join(CRT_DIR, "include")
    config_dir = os.path.abspath(args.config_dir)

    try:
        runtime = run_cppcheck(RUNTIME_SOURCES, [crt_include, config_dir],
                               os.path.join(args.build_dir, "runtime"))
        model_all = run_cppcheck(model_sources, model_inc + [crt_include, config_dir],
                                 os.path.join(args.build_dir, "model"))
    except (RuntimeError, OSError) as e:
        print("misra: %s" % e)
        return 2
    # only the model's own files; CRT headers and crt_config.h belong to the runtime group
    model = {f for f in model_all
             if os.path.abspath(os.path.join(CRT_DIR, f[0])).startswith(model_dir + os.sep)}

    allowed = load_baseline(args.baseline)
    counts = {}
    for group, findings in (("runtime", runtime), ("model", model)):
        for (_, _, rule) in findings:
            counts[(group, rule)] = counts.get((group, rule), 0) + 1
        if args.verbose:
            for f in sorted(findings):
                print("%s: %s:%d: %s" % (group, f[0], f[1], f[2]))

    failed = False
    unexplained = 0
    print("%-8s %-18s %6s %8s" % ("group", "rule", "count", "allowed"))
    for key in sorted(set(counts) | set(allowed), key=lambda k: (k[0] != "runtime", k[0],
                                                                    rule_key(k[1]))):
        count = counts.get(key, 0)
        limit = allowed.get(key, 0)
        mark = ""
        if count > limit:
            mark = "  <-- above baseline"
            failed = True
            unexplained += count - limit
        elif count < limit:
            mark = "  (below baseline: lower it)"
        print("%-8s %-18s %6d %8d%s" % (key[0], key[1].replace("misra-c2012-", ""), count,
                                         limit, mark))
    for group in ("runtime", "model"):
        total = sum(v for k, v in counts.items() if k[0] == group)
        print("total %s: %d" % (group, total))
    print("total: %d findings, %d unexplained" % (sum(counts.values()), unexplained))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
