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


def _bench():
    # tools/bench/run.py under a name of its own ("run" is also ticketq run)
    import importlib.util
    import os
    import sys

    bench = sys.modules.get("ticketq_bench_run")
    if bench is None:
        path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools", "bench", "run.py")
        spec = importlib.util.spec_from_file_location("ticketq_bench_run", path)
        bench = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(bench)  # puts tools/bench and tools/ on sys.path
        sys.modules["ticketq_bench_run"] = bench
        # tools/bench off the path again: its run.py would shadow ticketq run for every
        # later `import run` in this process (ticketq gateway's); what the benchmark
        # imports later (emu, deploy) lives in tools/, which stays
        sys.path[:] = [p for p in sys.path if os.path.abspath(p) != os.path.dirname(path)]
    return bench


def test_a_stage_with_errors_fails_the_run():
    # Only a baseline running out of heap in a timed section is a measured outcome; any
    # other error (an import that did not fit, the NameErrors after it, ticketq's own
    # sections) fails the stage, and the run exits non-zero (issue 13).
    if IS_MICROPYTHON:
        skip("the benchmark driver runs on CPython")
    bench = _bench()
    c = bench.config("microbit", True)
    ok = [(("x", "print(M.sec(M.t_ph,S_ph,50,0))", ("t", "ph", 16, 15, 1)), False, "MemoryError: parser could not allocate")]
    R = bench.collect("microbit", c, ok)
    assert R["memerr"] == {("ph", 16, 15)} and bench.fatal(R) == []
    # ... and so is that cell's cleanup, which the full heap cannot parse either (a full
    # run once exited 1 for it); ticketq's own cleanup failing is not
    oom = "MemoryError: parser could not allocate enough memory"
    ok += [(("x", "S_ph=None", None), False, oom)]
    assert bench.fatal(bench.collect("microbit", c, ok)) == []
    assert len(bench.fatal(bench.collect("microbit", c, ok + [(("x", "S_tq=None", None), False, oom)]))) == 1
    bad = ok + [(("x", "import tqb as M", None), False, "MemoryError: memory allocation failed"),
                (("x", "print(M.sec(M.t_tq,S_tq,50,0))", ("t", "tq", 16, 0, 1)), False, "NameError: name 'M' isn't defined")]
    assert len(bench.fatal(bench.collect("microbit", c, bad))) == 2


def test_the_microbit_kernels_are_cut_to_the_boards_branch():
    if IS_MICROPYTHON:
        skip("the benchmark driver runs on CPython")
    bench = _bench()
    import shake

    src = open(bench.os.path.join(bench.HERE, "tqbench.py")).read()
    code = shake.shake(src, ["t_none", "t_tq", "mk_tq", "sec"], have=bench.MICROBIT_HAS)
    assert "from utime import ticks_us as now" in code and "js" not in code and "perf_counter" not in code
    assert "try" not in code and len(code) < len(shake.shake(src, ["t_none", "t_tq", "mk_tq", "sec"]))


def test_quick_benchmark_on_the_emulated_microbit(tmp_path=None):
    # The micro:bit stage of the quick run (issue 13: it failed with MemoryError, then
    # NameErrors, and exited 0): every step runs, the tables are whole, ticketq allocates
    # nothing and takes 8 bytes a slot, the largest queue is measured. ~1 minute.
    if IS_MICROPYTHON:
        skip("the benchmark driver runs on CPython")
    import os
    import subprocess
    import sys
    import tempfile

    bench = _bench()
    try:
        import mpremote  # noqa: F401
        from ticketq_tools import emu

        emu.find_qemu()
        from ticketq_tools import firmware  # ticketq's firmware: the stock hex no longer compiles the library (issue 23)

        hex_path = firmware.firmware_hex(log=lambda s: None)
    except (ImportError, Exception) as e:
        skip("no emulated micro:bit with ticketq's firmware here (%s): tools/setup installs it" % e)
    out = str(tmp_path) if tmp_path else tempfile.mkdtemp()
    env = dict(os.environ, **{emu.FIRMWARE_ENV: hex_path})
    p = subprocess.run([sys.executable, os.path.join(bench.HERE, "run.py"), "--quick", "--interp", "microbit",
                        "--no-plot", "--out", out], capture_output=True, text=True, timeout=900, cwd=bench.ROOT,
                       env=env)
    assert p.returncode == 0, p.stderr[-3000:]
    assert " 0 errors" in p.stderr, p.stderr[-3000:]
    md = open(os.path.join(out, "BENCHMARKS.md")).read()
    rows = table(md, "implementation")
    assert rows[0] == ["implementation", "16 · 0", "16 · 8", "16 · 15"], rows[0]
    assert [r[0] for r in rows[2:]] == ["ticketq.TicketQueue", "pure-Python heap of tuples (baseline)",
                                        "sorted list + insort"]
    assert all(float(cell) > 0 for r in rows[2:] for cell in r[1:]), rows
    mem = table(md, "implementation | B allocated per push+pop pair (gc.mem_alloc, gc off)")
    assert mem[2][:3] == ["ticketq.TicketQueue", "0", "8"], mem
    assert "ticketq single operations, bytes allocated per call: push 0 B, pop 0 B, peek 0 B, remove 0 B." in md
    import re

    m = re.search(r"a TicketQueue of up to (\d+) slots fits beside the library", md)
    assert m and int(m.group(1)) >= 32, md
    assert "| emulated micro:bit: largest queue that fits | ticketq %s slots" % m.group(1) in md
    assert "errors:" not in md


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
    from ticketq_tools import mpunix

    if mpunix.find()[0] is None:
        skip("no MicroPython unix port here (ticketq mpunix --where)")
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


def test_quick_benchmark_of_the_c_core_on_the_unix_port():
    # The unix port with the C core's x86 .mpy on its path (interp unix-c, docs/c-core.md): the
    # C path by default, the viper and bytecode classes and heapq on ints and on tuples timed
    # in the same process; the line comparing them is filled in, 0 B per operation. Never a
    # speed threshold (a benchmark, not a timed test).
    if IS_MICROPYTHON:
        skip("the benchmark driver runs on CPython")
    import os
    import re
    import subprocess
    import sys
    import tempfile

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.path.insert(0, os.path.join(root, "tools"))
    from ticketq_tools import ccore, mpunix

    if mpunix.find()[0] is None:
        skip("no MicroPython unix port here (ticketq mpunix --where)")
    if ccore.available("x86"):
        skip("no x86 compiler for the C core here: %s" % ccore.available("x86"))
    out = tempfile.mkdtemp()
    p = subprocess.run([sys.executable, os.path.join(root, "tools", "bench", "run.py"), "--quick", "--interp",
                        "unix-c", "--no-plot", "--out", out], capture_output=True, text=True, timeout=300, cwd=root)
    assert p.returncode == 0, p.stderr[-2000:]
    md = open(os.path.join(out, "BENCHMARKS.md")).read()
    assert "ticketq.PATH 'c' by default" in md, md[:2000]
    m = re.search(r"C core loaded\*\*: the C core's speed, at 128 queued of 256, against heapq, packed ints "
                  r"\(C floor\) ([0-9.]+)x, heapq, \(class, seq, id\) tuples ([0-9.]+)x, ticketq, viper class "
                  r"([0-9.]+)x, ticketq, bytecode path forced ([0-9.]+)x\.", md)
    assert m and all(float(g) > 0 for g in m.groups()), md[:3000]
    assert ("C core loaded**: bytes allocated per ticketq operation: push 0 B, pop 0 B, peek 0 B, remove 0 B"
            in md), md[:3000]


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
    # its name would shadow ticketq run for the tests that come after
    code = ("import json, sys; sys.path.insert(0, 'tools/bench'); import run\n"
            "raw = json.load(open('tools/bench/results.json'))\n"
            # unix-c and the qemu-*-c firmware (the C core, issue 33) joined ORDER after the last
            # full run: the next one adds them
            "assert not raw['quick'] and set(raw['runs']) | {'unix-c'} | set(run.QEMU_C) == set(run.ORDER), "
            "sorted(raw['runs'])\n"
            "print(run.speed_block(raw))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root, timeout=60)
    assert p.returncode == 0, p.stderr
    block = p.stdout.rstrip("\n")
    assert block in open(os.path.join(root, "docs", "speed.md")).read()
    assert "| MicroPython unix port (32-bit) | viper |" in block
    assert "| MicroPython unix port (32-bit), bytecode forced | bytecode |" in block
    # README's one-line summary quotes the same cells, rounded
    import re

    speed = {}
    for row in block.splitlines():
        cells = [c.strip() for c in row.strip("|").split("|")]
        if len(cells) == 5 and cells[2][:1].isdigit():
            speed[cells[0]] = float(cells[2].split("x")[0])
    readme = open(os.path.join(root, "README.md")).read()
    line = " ".join(readme.split("## Speed", 1)[1].split("## ", 1)[0].split())
    quoted = re.findall(r"([\d.]+)x on the unix port's viper path, ([\d.]+)x with bytecode forced, "
                        r"([\d.]+)x on the WebAssembly VM and ([\d.]+)x on CPython .*? on the micro:bit "
                        r"([\d.]+)x a pure-Python tuple heap", line)
    assert len(quoted) == 1, line
    names = ["MicroPython unix port (32-bit)", "MicroPython unix port (32-bit), bytecode forced",
             "MicroPython WebAssembly VM", "CPython", "micro:bit v1, emulated"]
    for name, q in zip(names, quoted[0]):
        digits = len(q.split(".")[1])
        assert q == "%.*f" % (digits, speed[name]), (name, q, speed[name])


def test_isa_table_figures_are_computed_from_the_results():
    # issue 18's table: speed against the firmware's heapq (tuples, ints) at 128 of 256,
    # bytes per pair and the 1.2x target, from results.json's runs alone
    if IS_MICROPYTHON:
        skip("the benchmark driver runs on CPython")
    bench = _bench()
    raw = {"qemu-armv7m": {"ratio": {"tq/256/128": 0.5, "tqb/256/128": 4.0, "hqi/256/128": 0.25},
                           "alloc_per_pair": {"tq": [0.0, 0.0], "tqb": [32.0, 1.0]},
                           "misc": {"'path'": "viper"}},
           "qemu-rv32": {"config": {}, "error": "no firmware"}}
    rows = [[c.strip() for c in r.strip("|").split("|")] for r in bench.isa_rows(raw)]
    title = bench.TITLES["qemu-armv7m"]
    assert rows[0] == [title, "auto (viper)", "2.0x faster", "2.0x slower", "0", "not met (2.00x)"], rows
    assert rows[1] == [title, "bytecode (forced)", "4.0x slower", "16.0x slower", "32", "—"], rows
    assert rows[2][:2] == [bench.TITLES["qemu-rv32"], "not run: no firmware"], rows
    raw["qemu-armv7m"]["ratio"]["hqi/256/128"] = 0.45  # 0.5 / 0.45 = 1.11x the time of heapq on ints
    assert bench.isa_rows(raw)[0].endswith("| met |")


def test_committed_isa_table_comes_from_the_committed_results():
    # BENCHMARKS.md's ISA rows are exactly what tools/bench/results.json gives
    if IS_MICROPYTHON:
        skip("the benchmark driver runs on CPython")
    import json
    import os

    bench = _bench()
    raw = json.load(open(os.path.join(bench.HERE, "results.json")))["runs"]
    md = open(os.path.join(bench.ROOT, "BENCHMARKS.md")).read()
    rows = bench.isa_rows(raw)
    # two rows for each of the three QEMU targets (and two more for each C core firmware run)
    base = [r for r in rows if any(r.startswith("| %s |" % bench.TITLES[i]) for i in ("qemu-armv6m", "qemu-armv7m", "qemu-rv32"))]
    assert len(base) == 6, "results.json has no run of the three QEMU targets"
    for row in rows:
        assert row in md.splitlines(), row


def test_ccore_table_figures_are_computed_from_the_results():
    # issue 33's table: the C path's speed against heapq (ints, tuples) and the viper and
    # bytecode classes at 128 of 256, bytes per pair and the >= 1.0x target, from results.json
    if IS_MICROPYTHON:
        skip("the benchmark driver runs on CPython")
    bench = _bench()
    raw = {"qemu-armv7m-c": {"ratio": {"tq/256/128": 0.1, "tqv/256/128": 0.4, "tqb/256/128": 4.0,
                                       "hqi/256/128": 0.2, "hqt/256/128": 1.0},
                             "alloc_per_pair": {"tq": [0.0, 0.0]}, "misc": {"'path'": "c"}},
           "qemu-armv6m-c": {"ratio": {"tq/256/128": 0.3, "hqi/256/128": 0.25, "hqt/256/128": 1.0},
                             "alloc_per_pair": {"tq": [8.0, 1.0]}, "misc": {"'path'": "c"}},
           "qemu-rv32-c": {"ratio": {"tq/256/128": 0.3}, "misc": {"'path'": "viper"}},
           "unix-c": {"config": {}, "error": "no .mpy"}}
    rows = {r[0]: r[1:] for r in ([c.strip() for c in l.strip("|").split("|")] for l in bench.ccore_rows(raw))}
    assert rows[bench.TITLES["qemu-armv7m-c"]] == ["2.00x", "10.00x", "4.00x", "40.00x", "0", "met"], rows
    assert rows[bench.TITLES["qemu-armv6m-c"]] == ["0.83x", "3.33x", "—", "—", "8", "not met"], rows
    assert rows[bench.TITLES["qemu-rv32-c"]][0] == "no figure (path viper)", rows  # never a viper run as C
    assert rows[bench.TITLES["unix-c"]][0] == "not run: no .mpy", rows
    # spliced after the ISA table (before the Pico's section), and replaced in place the second time
    text = "# B\n\n%s\n%s\n\n%s\n%s\n" % (bench.ISA_BEGIN, bench.ISA_END, bench.PICO_BEGIN, bench.PICO_END)
    once = bench.ccore_splice(text, raw)
    assert once.index(bench.ISA_END) < once.index(bench.CCORE_BEGIN) < once.index(bench.PICO_BEGIN)
    assert bench.ccore_splice(once, raw) == once
    assert bench.ccore_splice(text, {}) == text


def test_committed_ccore_table_comes_from_the_committed_results():
    # BENCHMARKS.md's C-core rows are exactly what tools/bench/results.json gives, for the
    # unix port and the three QEMU targets, each with the C path measured
    if IS_MICROPYTHON:
        skip("the benchmark driver runs on CPython")
    import json
    import os

    bench = _bench()
    raw = json.load(open(os.path.join(bench.HERE, "results.json")))["runs"]
    md = open(os.path.join(bench.ROOT, "BENCHMARKS.md")).read().splitlines()
    rows = bench.ccore_rows(raw)
    assert len(rows) == 4, rows
    for row in rows:
        assert row in md, row
        assert "not run" not in row and "no figure" not in row, row


def test_pico_section_is_computed_from_the_results():
    # issue 32's table: cycles per push, pop and pair (ns / 8: the RP2040's 125 MHz), the
    # pair against the firmware's heapq, bytes per pair under heap_lock, and the 1.2x target,
    # from results.json's "pico" run alone
    if IS_MICROPYTHON:
        skip("the benchmark driver runs on CPython")
    bench = _bench()
    run = {"config": {"tpo": [256, 128], "reps": 5, "n": 2048, "lk": 64},
           "ns_per_pair": {"tq/256/128": 80000.0, "tqb/256/128": 400000.0, "hqt/256/128": 100000.0,
                           "hqi/256/128": 50000.0},
           "push_pop_ns": {"tq/256/128": [40000.0, 48000.0], "hqi/256/128": [16000.0, 36000.0]},
           "heap_lock_bytes_per_pair": {"tq": [True, 0.0], "hqt": [False, 32.0]},
           "ticketq_ops": {"push": [0, 0], "pop": [0, 0]}, "ticketq_ops_bytecode": {},
           "misc": {"'path'": "viper", "'fw'": '{"from": "ticketq firmware rp2", "sha256_bin": "ab"}',
                    "'ram'": [240000, 237000, 236000, 29000, 29000, "viper", None, "Pico", 230000],
                    "'worker'": 11500}}
    md = "\n".join(bench.pico_section({"pico": run}))
    rows = {r[0]: r for r in ([c.strip() for c in l.strip("|").split("|")] for l in md.splitlines()
                              if l.startswith("| ticketq") or l.startswith("| heapq"))}
    assert rows["ticketq, default path (viper)"][1:] == ["5,000", "6,000", "10,000", "1.60x", "0.80x",
                                                          "0 (heap_lock)"], rows
    assert rows["ticketq, bytecode path forced"][1:4] == ["—", "—", "50,000"], rows
    assert rows["heapq, (class, seq, id) tuples"][-1].startswith("32 (allocates"), rows
    assert "within 1.2x of `heapq` on plain ints: **not met** (1.60x)" in md
    assert "TicketQueue(29,000) builds" in md and "`worker.Worker(11,500)`" in md
    assert "XIP flash cache" in md  # the caveat
    run["ns_per_pair"]["tq/256/128"] = 55000.0
    assert "**met** (1.10x)" in "\n".join(bench.pico_section({"pico": run}))
    assert bench.pico_section({}) == []
    # spliced after the ISA table, and replaced in place the second time
    text = "# B\n\n%s\n%s\n\n## How it is measured\n" % (bench.ISA_BEGIN, bench.ISA_END)
    once = bench.pico_splice(text, {"pico": run})
    assert once.index(bench.ISA_END) < once.index(bench.PICO_BEGIN) < once.index("## How it is measured")
    assert bench.pico_splice(once, {"pico": run}) == once


def test_quick_benchmark_on_the_emulated_pico(tmp_path=None):
    # tools/bench/run.py --quick --interp pico on ticketq's Pico firmware in rp2040js: it runs
    # and the Pico section has every row. Skips when no firmware is built (it builds nothing):
    # ticketq firmware rp2's cached build, or TICKETQ_PICO_FIRMWARE.
    if IS_MICROPYTHON:
        skip("the benchmark driver runs on CPython")
    import os
    import subprocess
    import sys
    import tempfile

    bench = _bench()
    from ticketq_tools.bench import pico

    why = pico.available()
    fw = pico.built_firmware()
    if why or not fw:
        skip("no emulated Pico here: %s" % (why or "no Pico firmware built (ticketq firmware rp2)"))
    out = str(tmp_path) if tmp_path else tempfile.mkdtemp()
    env = dict(os.environ, TICKETQ_PICO_FIRMWARE=fw)
    p = subprocess.run([sys.executable, os.path.join(bench.HERE, "run.py"), "--quick", "--interp", "pico",
                        "--no-plot", "--out", out], capture_output=True, text=True, timeout=1500,
                       cwd=bench.ROOT, env=env)
    assert p.returncode == 0, p.stderr[-2000:]
    md = open(os.path.join(out, "BENCHMARKS.md")).read()
    assert bench.PICO_BEGIN in md and "emulated cycles" in md
    rows = [l for l in md.splitlines() if l.startswith("| ticketq, ") or l.startswith("| heapq, ")]
    assert len(rows) >= 8, rows  # the Pico table's four rows (and the generic table's)
    assert "| ticketq, default path (viper) |" in md
    assert "TicketQueue(" in md and "after `import ticketq`" in md


def test_committed_pico_section_comes_from_the_committed_results():
    # BENCHMARKS.md's Pico section is exactly what tools/bench/results.json's "pico" run gives
    if IS_MICROPYTHON:
        skip("the benchmark driver runs on CPython")
    import json
    import os

    bench = _bench()
    raw = json.load(open(os.path.join(bench.HERE, "results.json")))["runs"]
    md = open(os.path.join(bench.ROOT, "BENCHMARKS.md")).read()
    assert "pico" in raw, "results.json has no run of the emulated Pico"
    sec = "\n".join(bench.pico_section(raw)).rstrip("\n")
    assert sec in md
    assert "| ticketq, default path (viper) |" in sec


def test_pico_c_section_is_computed_from_the_results():
    # issue 33's Pico table (--interp pico-c, the firmware with the C core built in): the C,
    # viper and bytecode rows, and the >= 1.0x target against heapq on plain ints
    if IS_MICROPYTHON:
        skip("the benchmark driver runs on CPython")
    bench = _bench()
    run = {"config": {"tpo": [256, 128], "reps": 5, "n": 1024, "lk": 64},
           "ns_per_pair": {"tq/256/128": 40000.0, "tqv/256/128": 160000.0, "tqb/256/128": 800000.0,
                           "hqt/256/128": 320000.0, "hqi/256/128": 32000.0},
           "push_pop_ns": {"tq/256/128": [16000.0, 24000.0], "tqv/256/128": [64000.0, 96000.0]},
           "heap_lock_bytes_per_pair": {"tq": [True, 0.0], "tqv": [True, 0.0]},
           "ticketq_ops": {"push": [0, 0]}, "ticketq_ops_bytecode": {},
           "misc": {"'path'": "c", "'fw'": '{"from": "tools/firmware rp2", "sha256_bin": "ab"}'}}
    md = "\n".join(bench.pico_section({"pico-c": run}, "pico-c"))
    assert md.startswith(bench.PICO_C_BEGIN) and bench.PICO_C_END in md
    rows = {r[0]: r for r in ([c.strip() for c in l.strip("|").split("|")] for l in md.splitlines()
                              if l.startswith("| ticketq") or l.startswith("| heapq"))}
    assert rows["ticketq, default path (c)"][1:5] == ["2,000", "3,000", "5,000", "1.25x"], rows
    assert rows["ticketq, viper path forced"][1:5] == ["8,000", "12,000", "20,000", "5.00x"], rows
    assert "(issue 33): the C path at least as fast as `heapq` on plain ints" in md and "**not met** (1.25x" in md
    run["ns_per_pair"]["tq/256/128"] = 16000.0
    assert "**met** (0.50x; speed 2.00x heapq's)" in "\n".join(bench.pico_section({"pico-c": run}, "pico-c"))
    assert bench.pico_section({"pico": run}, "pico-c") == []
    # spliced after the Pico section, replaced in place the second time, the Pico one untouched
    text = "# B\n\n%s\nold\n%s\n\n## How it is measured\n" % (bench.PICO_BEGIN, bench.PICO_END)
    once = bench.pico_splice(text, {"pico-c": run}, "pico-c")
    assert once.index(bench.PICO_END) < once.index(bench.PICO_C_BEGIN) < once.index("## How it is measured")
    assert "%s\nold\n%s" % (bench.PICO_BEGIN, bench.PICO_END) in once
    assert bench.pico_splice(once, {"pico-c": run}, "pico-c") == once


def test_committed_pico_c_section_comes_from_the_committed_results():
    # BENCHMARKS.md's Pico C-core section is exactly what results.json's "pico-c" run gives
    if IS_MICROPYTHON:
        skip("the benchmark driver runs on CPython")
    import json
    import os

    bench = _bench()
    raw = json.load(open(os.path.join(bench.HERE, "results.json")))["runs"]
    md = open(os.path.join(bench.ROOT, "BENCHMARKS.md")).read()
    assert "pico-c" in raw, "results.json has no run of the emulated Pico with the C core"
    sec = "\n".join(bench.pico_section(raw, "pico-c")).rstrip("\n")
    assert sec in md
    assert "| ticketq, default path (c) |" in sec and "| ticketq, viper path forced |" in sec
