"""python -m fuzz run|atheris|seeds|rpc-seeds ... (see docs/fuzzing.md)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .seeds import all_seeds


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m fuzz", description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="deterministic feedback-driven loop (no instrumentation)")
    r.add_argument("--target", choices=("compile", "reader"), default="compile")
    r.add_argument("--iterations", type=int, default=10_000)
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--time-limit", type=float, default=0.0, help="stop after this many seconds")
    r.add_argument("--c-every", type=int, default=50, help="build+run the C of every n-th accepted mutant")
    r.add_argument("--c-budget", type=int, default=0, help="at most this many C builds (0: no limit)")
    r.add_argument("--findings", type=Path, default=Path("fuzz/findings"))
    r.add_argument("--no-shared", action="store_true", help="do not seed from ../shared/models")
    r.add_argument("--log-every", type=int, default=1000)
    r.add_argument("--semantic", action="store_true",
                   help="field patches only (no byte havoc): well-formed mutants that reach code generation")
    s = sub.add_parser("seeds", help="write the seed corpus to a directory (for atheris/libFuzzer)")
    s.add_argument("out", type=Path)
    s.add_argument("--no-shared", action="store_true")
    rs = sub.add_parser("rpc-seeds", help="write the RPC packet-decoder seed corpus (crt/tests/fuzz) to a directory")
    rs.add_argument("out", type=Path)
    w = sub.add_parser("sweep", help="every scale / zero point / float option of every seed set to each "
                                     "extreme value (systematic; see fuzz/sweep.py)")
    w.add_argument("--c-sample", type=int, default=200, help="sanitized C builds of this many accepted mutants")
    w.add_argument("--findings", type=Path, default=Path("fuzz/findings"))
    w.add_argument("--no-shared", action="store_true")
    a = sub.add_parser("atheris", help="coverage-guided run (atheris/libFuzzer); other args go to libFuzzer")
    a.add_argument("--target", choices=("compile", "reader"), default="compile")
    args, rest = ap.parse_known_args(argv)
    if args.cmd == "seeds":
        args.out.mkdir(parents=True, exist_ok=True)
        seeds = all_seeds(not args.no_shared)
        for name, data in seeds:
            (args.out / (name.replace("/", "_").removesuffix(".tflite") + ".tflite")).write_bytes(data)
        print(f"{len(seeds)} seeds in {args.out}")
        return 0
    if args.cmd == "rpc-seeds":
        from .rpc_seeds import write

        print(f"{write(args.out)} seeds in {args.out}")
        return 0
    if args.cmd == "sweep":
        from .sweep import sweep

        st = sweep(all_seeds(not args.no_shared), args.c_sample, args.findings)
        print(json.dumps({"outcomes": dict(st.outcomes), "c_built": st.c_built, "c_failures": st.c_failures,
                          "findings": len(st.findings)}, indent=1))
        for sig, detail in st.findings.items():
            print(f"--- {sig}\n{detail[:1500]}")
        return 1 if st.findings else 0
    if args.cmd == "atheris":
        from .atheris_target import main as atheris_main

        return atheris_main(args.target, [sys.argv[0], *rest])
    if rest:
        ap.error(f"unknown arguments: {rest}")
    from .driver import run

    stats = run(all_seeds(not args.no_shared), args.iterations, args.seed, args.target, args.c_every,
                args.c_budget, args.findings, args.time_limit, log_every=args.log_every,
                semantic=args.semantic)
    print(json.dumps(stats.as_dict(), indent=1))
    for sig, detail in stats.examples.items():
        print(f"--- {sig} (x{stats.findings[sig]})\n{detail[:1500]}")
    return 1 if stats.bugs else 0


if __name__ == "__main__":
    sys.exit(main())
