# Smoke run of the benchmark (tools/bench/run.py --quick) on CPython: it runs, and its
# Markdown has the expected tables, rows and columns. Never a speed threshold: the numbers
# of a seconds-long run on a shared machine mean nothing. CPython only (pytest): the
# MicroPython test runners skip it (nothing but support is imported at the top for that).
from support import skip, IS_MICROPYTHON

IMPLS = ["ticketq.TicketQueue", "heapq, (class, seq, id) tuples (baseline)", "heapq, packed ints (C floor)",
         "queue.PriorityQueue", "sorted list + insort", "pure-Python heap of tuples"]
COLS = ["32 · 0", "32 · 16", "32 · 31", "256 · 0", "256 · 128", "256 · 255", "1024 · 0", "1024 · 512",
        "1024 · 1023"]


def table(md, first_cell):
    # The rows (lists of cells) of the Markdown table whose header starts with first_cell.
    lines = md.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("| " + first_cell + " |"):
            rows = []
            for l in lines[i:]:
                if not l.startswith("|"):
                    break
                rows.append([c.strip() for c in l.strip().strip("|").split("|")])
            return rows
    raise AssertionError("no table starting %r" % first_cell)


def test_quick_benchmark_writes_the_tables(tmp_path=None):
    if IS_MICROPYTHON:
        skip("the benchmark driver runs on CPython")
    import os
    import subprocess
    import sys
    import tempfile

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    run = os.path.join(root, "tools", "bench", "run.py")
    out = str(tmp_path) if tmp_path else tempfile.mkdtemp()
    p = subprocess.run([sys.executable, run, "--quick", "--interp", "cpython", "--no-plot", "--out", out],
                       capture_output=True, text=True, timeout=300, cwd=root)
    assert p.returncode == 0, p.stderr[-2000:]
    md = open(os.path.join(out, "BENCHMARKS.md")).read()
    assert os.path.exists(os.path.join(out, "results.json"))
    assert "## Machine and interpreters" in md and "CPython 3." in md
    assert "## Headline" in md and "**CPython**: ticketq is" in md

    # time per pair: one row per implementation, one column per capacity · fill level,
    # every cell a ratio, the baseline exactly 1.00
    rows = table(md, "implementation")
    assert rows[0] == ["implementation"] + COLS
    assert [r[0] for r in rows[2:]] == IMPLS
    for r in rows[2:]:
        assert len(r) == 1 + len(COLS)
        for cell in r[1:]:
            assert float(cell) > 0, r
    assert rows[3][1:] == ["1.00"] * len(COLS)

    # memory: allocation peak, storage per entry and fixed bytes for every implementation
    mem = table(md, "implementation | peak B above the start over 64 pairs (tracemalloc)")
    assert [r[0] for r in mem[2:]] == [n.replace(" (baseline)", "") for n in IMPLS]
    assert all(len(r) == 4 and r[2] != "—" for r in mem[2:])
    assert "ticketq single operations, bytes allocated per call: push" in md
    assert "RAM taken by `import ticketq`:" in md

    targets = table(md, "target")
    assert targets[0] == ["target", "measured", "status"]
    assert any("native 32-bit MicroPython" in r[0] for r in targets)


def test_quick_benchmark_on_the_unix_port_has_both_paths():
    # The unix port's section: the default (viper) and the bytecode path side by side, and
    # issue 12's target rows, filled in. Never a speed threshold (see above).
    if IS_MICROPYTHON:
        skip("the benchmark driver runs on CPython")
    import os
    import subprocess
    import sys
    import tempfile

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.path.insert(0, os.path.join(root, "tools"))
    import mpunix

    if mpunix.find()[0] is None:
        skip("no MicroPython unix port here (tools/mpunix.py --where)")
    out = tempfile.mkdtemp()
    p = subprocess.run([sys.executable, os.path.join(root, "tools", "bench", "run.py"), "--quick", "--interp",
                        "unix", "--no-plot", "--out", out], capture_output=True, text=True, timeout=300, cwd=root)
    assert p.returncode == 0, p.stderr[-2000:]
    md = open(os.path.join(out, "BENCHMARKS.md")).read()
    assert "## MicroPython unix port (32-bit)" in md and "ticketq.PATH 'viper' by default" in md
    rows = table(md, "implementation")
    assert [r[0] for r in rows[2:4]] == ["ticketq.TicketQueue", "ticketq, bytecode path forced"]
    assert all(float(cell) > 0 for r in rows[2:] for cell in r[1:])
    targets = {r[0]: r for r in table(md, "target")[2:]}
    for label in targets:
        assert targets[label][2] != "not run", targets[label]
    unix = [l for l in targets if l.startswith("native 32-bit MicroPython (unix port)")]
    assert len(unix) == 2 and "default path (viper)" in unix[0] and "bytecode path forced" in unix[1]
    for l in unix:
        assert "x heapq with tuples" in targets[l][1] and targets[l][2].split(" ")[0] in ("met", "not")
    zero = [l for l in targets if l.startswith("0 B allocated") and "unix port" in l]
    assert len(zero) == 2 and all(targets[l][2] == "met" for l in zero)


def test_speed_doc_table_is_the_committed_results():
    # docs/speed.md's figures are generated (tools/bench/run.py, a full run): the table there
    # is exactly what tools/bench/results.json gives, so it cannot drift from BENCHMARKS.md.
    if IS_MICROPYTHON:
        skip("reads the repository's files (host only)")
    import os
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    # in a process of its own: tools/bench/run.py puts tools/bench first on sys.path, where
    # its name would shadow tools/run.py for the tests that come after
    code = ("import json, sys; sys.path.insert(0, 'tools/bench'); import run\n"
            "raw = json.load(open('tools/bench/results.json'))\n"
            "assert not raw['quick'] and set(raw['runs']) == set(run.ORDER), sorted(raw['runs'])\n"
            "print(run.speed_block(raw))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root, timeout=60)
    assert p.returncode == 0, p.stderr
    block = p.stdout.rstrip("\n")
    assert block in open(os.path.join(root, "docs", "speed.md")).read()
    assert "| MicroPython unix port (32-bit) | viper |" in block
    assert "| MicroPython unix port (32-bit), bytecode forced | bytecode |" in block
