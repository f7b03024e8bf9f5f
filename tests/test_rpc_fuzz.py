"""The RPC packet-decoder fuzz target (crt/tests/fuzz/fuzz_rpc_server.c, docs/fuzzing.md): its seed
corpus (fuzz/rpc_seeds.py) sends every RPC code and every argument type index, and the libFuzzer
build (clang, ASan/UBSan) runs the seeds and a few thousand mutants without a finding. The long
campaign is `make -C crt fuzz-rpc FUZZ_ARGS=-max_total_time=600`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import time_bound
from system_tools import need

from fuzz.rpc_seeds import cases, codes_and_types, write
from utvm_build.rpc import protocol as P

ROOT = Path(__file__).resolve().parents[1]
bounded = time_bound.fixture(240)

#: Every RPC code of protocol 0.8.0 (0 and 22: just outside), and every argument type index the
#: server decodes or must refuse (10: unused, 64: object base, 200 and -5: unknown).
RPC_CODES = set(range(0, 23))
TYPE_INDICES = {P.T_NONE, P.T_INT, P.T_BOOL, P.T_FLOAT, P.T_OPAQUE, P.T_DTYPE, P.T_DEVICE, P.T_DLTENSOR,
                P.T_RAWSTR, P.T_BYTEARRAY, 10, 11, 12, 64, P.T_STR, P.T_BYTES, P.T_FUNCTION, P.T_TENSOR,
                P.T_MODULE, P.T_RPC_OBJECT_REF, 200, -5}


def test_seeds_reach_every_code_and_type_index():
    codes: set[int] = set()
    types: set[int] = set()
    for data in cases().values():
        c, t = codes_and_types(data)
        codes |= c
        types |= t
    assert RPC_CODES <= codes, sorted(RPC_CODES - codes)
    assert TYPE_INDICES <= types, sorted(TYPE_INDICES - types)
    # opaque and object handles where the model expects a tensor, and the time evaluator
    assert {"hostile_opaque", "hostile_ranges", "hostile_handles", "time_evaluator"} <= set(cases())


def test_libfuzzer_target_runs_the_seeds_clean(tmp_path):
    need("clang", "make")
    build = tmp_path / "build"
    subprocess.run(["make", "-s", "-C", str(ROOT / "crt"), "fuzz-rpc-build", f"BUILD_DIR={build}"],
                   check=True, capture_output=True)
    seeds = tmp_path / "seeds"
    assert write(seeds) >= 50
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1")
    r = subprocess.run([str(build / "fuzz" / "fuzz_rpc_server"), "-runs=3000", "-seed=22", "-timeout=10",
                        f"-artifact_prefix={tmp_path}/", str(corpus), str(seeds)],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "Done 3000 runs" in r.stderr, r.stderr[-2000:]
    assert not list(tmp_path.glob("crash-*")) and not list(tmp_path.glob("timeout-*"))
    print(r.stderr.splitlines()[-1], file=sys.stderr)
