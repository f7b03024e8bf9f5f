"""Smoke test of the benchmark harness: the smallest bundled model, end to end, on Cortex-M4.

The harness measures and does not judge; this test only checks that every figure is produced
and consistent (flash split adds up, the stack was measured, the markers were hit once, the
outputs equal the host build's and the reference's), never how large a figure is.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_harness_runs_digits_on_m4(tmp_path: Path) -> None:
    results = tmp_path / "results"
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--models", "digits", "--cores", "m4", "--opts", "Os",
         "--work-dir", str(tmp_path / "work"), "--results", str(results)],
        cwd=REPO, capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr

    host = json.loads((results / "runs" / "digits--host-O2.json").read_text())
    m4 = json.loads((results / "runs" / "digits--m4-Os.json").read_text())
    assert host["outputs_vs_reference"] == "identical"
    assert host["instructions"] > host["macs"] > 0  # callgrind counted inside tvmgen_digits_run
    assert m4["outputs_vs_host"] == "identical" and m4["outputs"] == host["outputs"]
    assert m4["instructions"] > m4["macs"]
    assert sum(m4["flash_split"].values()) == m4["flash_bytes"]
    assert m4["flash_split"]["constants"] >= m4["constants_bytes"]
    assert m4["flash_split"]["runtime"] == 0  # the "c" interface links nothing of the CRT
    assert 0 < m4["stack_bytes"] < 16384
    assert m4["workspace_section_bytes"] >= m4["workspace_bytes"]
    assert m4["ram_bytes"] == m4["data_bss_bytes"] + m4["workspace_section_bytes"] + m4["stack_bytes"]
    io = json.loads((results / "runs" / "digits--m4-Os-io.json").read_text())  # --io workspace
    assert io["outputs"] == host["outputs"] and io["io"] == "workspace" and io["io_bytes"] == 0
    assert io["ram_bytes"] < m4["ram_bytes"]  # the 74 bytes of I/O buffers are gone
    table = (results / "README.md").read_text()
    assert "| digits |" in table and "## m4-Os" in table


def test_harness_stateful_model_and_partial_rerun(tmp_path: Path) -> None:
    """A model with state (the streaming keyword spotter): two calls before the measured one, the
    reference fed the same calls, TFLM's host arena found, the state items in the report; a run
    with --models keeps the other models' earlier records in the tables."""
    results = tmp_path / "results"
    (results / "runs").mkdir(parents=True)
    earlier = REPO / "benchmarks" / "results" / "runs" / "digits--m4-Os.json"
    (results / "runs" / earlier.name).write_text(earlier.read_text())
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--models", "streaming_kws_int8", "--cores", "m4", "--opts", "Os",
         "--targets", "generic", "--io-opts", "--work-dir", str(tmp_path / "work"), "--results", str(results)],
        cwd=REPO, capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    host = json.loads((results / "runs" / "streaming_kws_int8--host-O2.json").read_text())
    m4 = json.loads((results / "runs" / "streaming_kws_int8--m4-Os.json").read_text())
    assert host["outputs_vs_reference"] == "identical" and host["warmup_calls"] == 2
    assert m4["outputs_vs_host"] == "identical" and m4["state_bytes"] == 75
    assert [e["kind"] for e in m4["state"]] == ["variable", "variable", "once"]
    arena = m4["tflm_host_arena"]
    assert arena["arena_bytes"] >= arena["total"] > arena["tail"] > 0
    assert m4["data_bss_bytes"] >= m4["state_bytes"] + m4["io_bytes"]   # the state is in .bss
    table = (results / "README.md").read_text()
    assert "## Models with state or post-processing (m4-Os)" in table and "| `frames` |" in table
    assert "| digits |" in table and "| streaming_kws_int8 |" in table
