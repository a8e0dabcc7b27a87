# Smoke run of the keyed lanes benchmark (tools/bench/keyed.py --quick): it starts its own
# redis-server, writes its table with every row and column, leaves no lane behind after
# draining, and its skewed workload keeps every ticket within docs/lanes.md's wait bound.
# Never a speed threshold. CPython only (pytest): the MicroPython runners skip it.
from support import IS_MICROPYTHON, skip


def test_quick_keyed_benchmark_writes_its_table():
    if IS_MICROPYTHON:
        skip("the benchmark starts a redis-server (host only)")
    import json
    import os
    import subprocess
    import sys
    import tempfile

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = tempfile.mkdtemp()
    p = subprocess.run([sys.executable, os.path.join(root, "tools", "bench", "keyed.py"), "--quick", "--out", out],
                       capture_output=True, text=True, timeout=300, cwd=root)
    assert p.returncode == 0, p.stderr[-2000:]
    with open(os.path.join(out, "keyed-bench.json")) as f:
        res = json.load(f)
    assert res["quick"] and [r["lanes"] for r in res["rows"]] == [1, 100]
    for r in res["rows"]:
        assert r["push_per_s"] > 0 and r["pop_per_s"] > 0 and r["push_us"] > 0 and r["pop_us"] > 0
        # no lane left; the queue's keys back to their size (meta's counters may gain a digit)
        assert r["lanes_after_drain"] == 0 and 0 <= r["key_bytes_after_drain"] <= 64
        assert r["lanes_during"] == [r["lanes"], r["lanes"]]
    s = res["skewed"][0]
    assert s["lanes_seen"] == s["others"] and s["over_bound"] == 0 and s["worst_wait"] <= s["worst_wait_bound"]
    with open(os.path.join(out, "keyed-bench.md")) as f:
        md = f.read()
    rows = [l for l in md.splitlines() if l.startswith("| ") and l[2:3].isdigit()]
    assert len(rows) == 3 and all(len(r.strip("|").split("|")) == 9 for r in rows)


def test_benchmarks_md_carries_the_committed_keyed_figures():
    if IS_MICROPYTHON:
        skip("reads the committed benchmark files (host only)")
    import importlib.util
    import os

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    spec = importlib.util.spec_from_file_location("bench_keyed", os.path.join(root, "tools", "bench", "keyed.py"))
    keyed = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(keyed)
    res = keyed.committed()
    assert res is not None and not res["quick"]
    assert [r["lanes"] for r in res["rows"]] == [1, 100, 10000, 1000000]
    with open(os.path.join(root, "BENCHMARKS.md")) as f:
        text = f.read()
    assert text.count(keyed.KEYED_BEGIN) == 1 and keyed.splice(text, res) == text


def test_a_smoke_run_without_out_never_writes_the_committed_figures():
    # `keyed.py --quick` and `fleet.py --smoke` without --out wrote their smoke figures over
    # docs/keyed-bench.*, docs/fleet-bench.* (and keyed.py over BENCHMARKS.md's section): a
    # newcomer who ran the smoke command was left with the committed full runs replaced.
    if IS_MICROPYTHON:
        skip("loads the host benchmark scripts (host only)")
    import importlib.util
    import os

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    docs = os.path.join(root, "docs")
    for name in ("keyed", "fleet"):
        spec = importlib.util.spec_from_file_location("bench_" + name, os.path.join(root, "tools", "bench", name + ".py"))
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        assert os.path.abspath(mod.default_out(False)) == docs, name  # a full run: the committed figures
        smoke = os.path.abspath(mod.default_out(True))
        assert smoke != docs and smoke.startswith(os.path.join(root, "build") + os.sep), (name, smoke)
