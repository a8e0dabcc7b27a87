# Smoke run of the fleet benchmark (tools/bench/fleet.py --quick): it runs against real
# redis-servers and writes its table with every row and column. Never a speed threshold.
# CPython only (pytest): the MicroPython runners skip it.
from support import IS_MICROPYTHON, skip


def test_quick_fleet_benchmark_writes_its_table():
    if IS_MICROPYTHON:
        skip("the benchmark starts redis-servers and processes (host only)")
    import json
    import os
    import subprocess
    import sys
    import tempfile

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = tempfile.mkdtemp()
    p = subprocess.run([sys.executable, os.path.join(root, "tools", "bench", "fleet.py"), "--quick", "--out", out],
                       capture_output=True, text=True, timeout=300, cwd=root)
    assert p.returncode == 0, p.stderr[-2000:]
    with open(os.path.join(out, "fleet-bench.md")) as f:
        md = f.read()
    rows = [l for l in md.splitlines() if l.startswith("| redis-py |") or l.startswith("| ticketq_resp")]
    assert len(rows) == 7
    assert all(len(r.strip("|").split("|")) == 6 for r in rows)
    assert "BullMQ" in md
    with open(os.path.join(out, "fleet-bench.json")) as f:
        res = json.load(f)
    assert [(r["clients"], r["pipelined"]) for r in res["rows"]][:6] == [
        (1, False), (1, True), (4, False), (4, True), (16, False), (16, True)]
    assert all(r["push"] > 0 and r["pop"] > 0 for r in res["rows"])
    lanes = [l for l in md.splitlines() if l.startswith("| FleetLaneQueue, ")]
    assert len(lanes) == 4 and all(len(r.strip("|").split("|")) == 6 for r in lanes)
    assert [(r["clients"], r["pipelined"]) for r in res["lane_rows"]] == [(1, False), (1, True), (4, False), (1, False)]
    assert all(r["push"] > 0 and r["pop"] > 0 for r in res["lane_rows"])


def test_benchmarks_md_carries_the_committed_fleet_figures():
    # BENCHMARKS.md's fleet section is the one docs/fleet-bench.json gives (both written by
    # tools/bench/fleet.py; tools/bench/run.py keeps the section when it rewrites the file).
    if IS_MICROPYTHON:
        skip("reads the committed benchmark files (host only)")
    import importlib.util
    import os

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    spec = importlib.util.spec_from_file_location("bench_fleet", os.path.join(root, "tools", "bench", "fleet.py"))
    fleet = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fleet)
    with open(os.path.join(root, "BENCHMARKS.md")) as f:
        text = f.read()
    res = fleet.committed()
    assert res is not None and not res["quick"]
    assert text.count(fleet.FLEET_BEGIN) == 1 and fleet.splice(text, res) == text
    row = [l for l in text.splitlines() if l.startswith("| redis-py | 1 | no |")]
    assert row == ["| redis-py | 1 | no | %.0f | %.0f | %.0f |" % (
        res["rows"][0]["push"], res["rows"][0]["pop"], res["rows"][0]["processed"])]
