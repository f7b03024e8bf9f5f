"""`utvm-build report`: a self-contained HTML page rendered in headless Chromium (issue 17): a
screenshot is produced and the numbers the browser shows equal `info --json`'s."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from system_tools import need

ROOT = Path(__file__).resolve().parents[1]
DIGITS = ROOT / "examples" / "models" / "digits" / "digits_int8.tflite"
CHROMIUM = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def cli(*args: object) -> subprocess.CompletedProcess:
    p = subprocess.run([sys.executable, "-m", "utvm_build", *map(str, args)], capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    return p


def test_report_in_chromium(tmp_path: Path) -> None:
    need("chromium")
    bench = {"config": "m4-Os", "instructions": 999, "per_operator": [
        {"op": "op0_conv_2d", "index": 0, "instructions": 12345}, {"op": "entry", "index": -1, "instructions": 7}]}
    (tmp_path / "run.json").write_text(json.dumps(bench))
    page = tmp_path / "report.html"
    cli("report", DIGITS, "-o", page, "--bench", tmp_path / "run.json")
    text = page.read_text()
    assert "http://" not in text.replace('xmlns="http://www.w3.org/2000/svg"', "") and "https://" not in text
    assert "<script src" not in text and "<link" not in text   # self-contained
    info = json.loads(cli("info", DIGITS, "--json").stdout)

    browser = [*CHROMIUM, f"--user-data-dir={tmp_path / 'profile'}"]
    shot = tmp_path / "report.png"
    subprocess.run([*browser, "--window-size=1000,1400", f"--screenshot={shot}", page.as_uri()],
                   capture_output=True, timeout=120)
    assert shot.is_file() and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20000
    dom = subprocess.run([*browser, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120).stdout

    def cell(key: str) -> int:
        m = re.search(rf'id="{key}">(\d+)<', dom)
        assert m, key
        return int(m.group(1))

    t = info["totals"]
    assert cell("total-macs") == t["macs"] and cell("total-flash-constants") == t["flash_constants_bytes"]
    assert cell("total-workspace") == t["ram_workspace_bytes"] and cell("total-ram") == t["ram_bytes"]
    assert cell("total-lower-bound") == info["memory_plan"]["lower_bound_bytes"]
    rows = dict(re.findall(r'<tr data-op="(\d+)">(.*?)</tr>', dom, re.S))
    for op in info["operators"]:
        cells = re.findall(r"<td>(.*?)</td>", rows[str(op["index"])], re.S)
        assert cells[1] == op["op"]
        if op.get("emitted"):
            assert [int(c) for c in cells[4:7]] == [op["macs"], op["constants_bytes"], op["scratch_bytes"]]
    assert re.findall(r"<td>(.*?)</td>", rows["0"])[7] == "12345"        # instructions of the benchmark run
    bars = re.findall(r'class="buffer"[^>]*data-offset="(\d+)" data-bytes="(\d+)"', dom)
    assert sorted((int(o), int(b)) for o, b in bars) == sorted(
        (b["offset"], b["bytes"]) for b in info["memory_plan"]["buffers"])
    embedded = re.search(r'<script type="application/json" id="utvm-report-data">(.*?)</script>', text, re.S)
    assert json.loads(embedded.group(1))["totals"] == t


def test_embedded_json_survives_script_breaking_names(tmp_path: Path) -> None:
    """Issue 22: a tensor name that closes the script element, opens a comment or another script,
    or holds U+2028/U+2029, must leave the page's JSON parseable and intact: `<`, `>`, `&` and the
    two separators are \\uXXXX escapes inside the element, so the first `</script` is its end."""
    from tflite_writer import ModelBuilder

    evil = "</script><script>alert(1)</script><!--<script>&amp;\u2028\u2029"
    mb = ModelBuilder()
    x = mb.tensor([1, 4], "float32", name=evil)
    y = mb.tensor([1, 4], "float32", name="out" + evil)
    mb.operator("RELU", [x], [y])
    model = tmp_path / "m.tflite"
    model.write_bytes(mb.build(inputs=[x], outputs=[y]))
    page = tmp_path / "r.html"
    cli("report", model, "-o", page)
    text = page.read_text()
    start = text.index('<script type="application/json" id="utvm-report-data">')
    body = text[start:].split(">", 1)[1]
    data = body[:body.index("</script")]   # where an HTML parser ends the element
    for ch in "<>&\u2028\u2029":
        assert ch not in data
    doc = json.loads(data)
    # The page's data is the document `info --json` prints (the reader keeps the HTML characters of
    # names and writes the separators as visible \u2028 text).
    assert doc == json.loads(cli("info", model, "--json").stdout)
    assert doc["inputs"][0]["name"].startswith("</script><script>alert(1)</script><!--<script>&amp;")
    assert doc["outputs"][0]["name"].startswith("out</script><script>")
    assert text.count("<script") == 1   # the only script element is the data; the names are escaped text
    from utvm_build.report import embed_json

    raw = {"n": "</script><!--<script>&\u2028\u2029"}
    assert embed_json(raw) == '{"n": "\\u003c/script\\u003e\\u003c!--\\u003cscript\\u003e\\u0026\\u2028\\u2029"}'
    assert json.loads(embed_json(raw)) == raw
