# Smoke run of the fleet benchmark (tools/bench/fleet.py --smoke): ticketq and BullMQ on one
# redis-server it starts, every row of issue 21's table with both sides measured, the
# server's CPU, script time and commands per job, and the memory line. Never a speed
# threshold: the figures are only checked to be there and positive.
# CPython only (pytest): the MicroPython runners skip it.
from support import IS_MICROPYTHON, skip


def _bench():
    import importlib.util
    import os

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    spec = importlib.util.spec_from_file_location("bench_fleet", os.path.join(root, "tools", "bench", "fleet.py"))
    fleet = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fleet)
    return root, fleet


def test_smoke_fleet_benchmark_prints_the_side_by_side_table():
    if IS_MICROPYTHON:
        skip("the benchmark starts redis-server, node and processes (host only)")
    import json
    import os
    import subprocess
    import sys
    import tempfile

    root, fleet = _bench()
    out = tempfile.mkdtemp()
    p = subprocess.run([sys.executable, os.path.join(root, "tools", "bench", "fleet.py"), "--smoke", "--no-plot",
                        "--out", out], capture_output=True, text=True, timeout=600, cwd=root)
    assert p.returncode == 0, p.stderr[-3000:]
    with open(os.path.join(out, "fleet-bench.json")) as f:
        res = json.load(f)
    assert res["quick"] and res["machine"]["bullmq"]
    assert [(r["kind"], r["k"]) for r in res["rows"]] == fleet.ROWS
    for r in res["rows"]:
        for who in ("ticketq", "bullmq"):
            assert r[who + "_rate"] > 0 and r[who + "_cpu_us"] >= 0, r
            assert r[who + "_script_us"] > 0 and r[who + "_cmds"] > 0, r
        assert abs(r["ratio"] - r["ticketq_rate"] / r["bullmq_rate"]) < 1e-9
    assert res["bare"]["rate"] > 0 and res["bare"]["script_us"] > 0
    for who in ("ticketq", "bullmq"):
        assert res["memory"][who]["used_memory"] > 0 and res["memory"][who]["memory_usage"] > 0
    with open(os.path.join(out, "fleet-bench.md")) as f:
        md = f.read()
    rows = [l for l in md.splitlines() if l.startswith("| add ") or l.startswith("| processed")]
    assert len(rows) == len(fleet.ROWS)
    assert all(len(r.strip("|").split("|")) == 7 for r in rows)
    assert "bare priority queue" in md and "Memory, 2000 queued tickets" in md
    assert "| add one at a time |" in p.stdout  # the table is printed too


def test_benchmarks_md_carries_the_committed_fleet_figures():
    # BENCHMARKS.md's fleet section is the one docs/fleet-bench.json gives (both written by
    # tools/bench/fleet.py; tools/bench/run.py keeps the section when it rewrites the file).
    if IS_MICROPYTHON:
        skip("reads the committed benchmark files (host only)")
    import os

    root, fleet = _bench()
    with open(os.path.join(root, "BENCHMARKS.md")) as f:
        text = f.read()
    res = fleet.committed()
    assert res is not None and not res["quick"] and res["rounds"] >= 5
    assert text.count(fleet.FLEET_BEGIN) == 1 and fleet.splice(text, res) == text
    row = res["rows"][0]
    assert "| add one at a time | %.0f | %.0f | **%.2f** |" % (
        row["ticketq_rate"], row["bullmq_rate"], row["ratio"]) in text


def test_smoke_durable_benchmark_measures_both_sides():
    # tools/bench/fleet.py --durable --smoke: a primary and a replica it starts, every row
    # with num_replicas 0 and 1. The figures are only checked to be there and positive.
    if IS_MICROPYTHON:
        skip("the benchmark starts redis-servers (host only)")
    import json
    import os
    import subprocess
    import sys
    import tempfile

    root, fleet = _bench()
    out = tempfile.mkdtemp()
    p = subprocess.run([sys.executable, os.path.join(root, "tools", "bench", "fleet.py"), "--durable", "--smoke",
                        "--out", out], capture_output=True, text=True, timeout=600, cwd=root)
    assert p.returncode == 0, p.stderr[-3000:]
    with open(os.path.join(out, "fleet-durable.json")) as f:
        res = json.load(f)
    assert res["quick"]
    # Debian's Redis 7.0 (no WAITAOF), then Valkey (WAITAOF; tools/setup installs it)
    # each persistence setup, on each server
    runs = [(r["setup"], r["server"].split()[0]) for r in res["rows"][::len(fleet.DURABLE_ROWS)]]
    assert runs == [("AOF always", "redis-server"), ("AOF always", "valkey"),
                    ("no persistence", "redis-server"), ("no persistence", "valkey")], runs
    assert [(r["kind"], r["k"]) for r in res["rows"]] == fleet.DURABLE_ROWS * 4
    # WAITAOF: only Valkey has it, and only with appendonly on is it sent
    assert [r["waitaof"] for r in res["rows"]] == [False] * 4 + [True] * 4 + [False] * 8
    for r in res["rows"]:
        assert r["off"] > 0 and r["on"] > 0 and abs(r["ratio"] - r["on"] / r["off"]) < 1e-9, r
    with open(os.path.join(out, "fleet-durable.md")) as f:
        md = f.read()
    assert len([l for l in md.splitlines() if " | add " in l or " | processed" in l]) == 16
