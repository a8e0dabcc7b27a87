# The lanes demonstration (ticketq lanes-demo): a chatty and a quiet source in one class.
# Strict FIFO makes the quiet source wait behind the chatty backlog and loses its pushes to
# the full queue; lanes keep its wait within the guarantee, on CPython and the MicroPython
# VM alike. CPython only (the tool drives node and writes files); on MicroPython every test
# skips.
from support import skip, IS_MICROPYTHON


def _tools():
    if IS_MICROPYTHON:
        skip("drives ticketq lanes-demo (CPython only; the VM side is checked from CPython)")
    import os
    import sys
    here = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                         "tools"))
    if here not in sys.path:
        sys.path.insert(0, here)
    import lanes_demo
    return lanes_demo


def _reference_waits(arr, ticks, capacity):
    # Strict FIFO with one bound, as plain lists: the waits TicketQueue must give here.
    q, waits, pops = [], [], 0
    j = 0
    for t in list(range(ticks)) + [None]:
        while t is not None and j < len(arr) and arr[j][0] == t:
            waits.append(pops if len(q) < capacity else -1)
            if len(q) < capacity:
                q.append(j)
            j += 1
        if t is None:
            while q:
                i = q.pop(0)
                waits[i] = pops - waits[i]
                pops += 1
        elif q:
            i = q.pop(0)
            waits[i] = pops - waits[i]
            pops += 1
    return waits


def test_fifo_delays_the_quiet_source_and_lanes_do_not():
    demo = _tools()
    for seed in (1, 2, 3, 4, 5):
        r = demo.run(seed=seed)
        fifo, lanes = r["fifo_stats"], r["lanes_stats"]
        quiet, chatty = demo.R.QUIET, demo.R.CHATTY
        assert fifo[quiet]["max"] >= 20 and fifo[quiet]["mean"] >= 10, (seed, fifo)
        assert lanes[quiet]["max"] <= 2 and lanes[quiet]["refused"] == 0, (seed, lanes)
        assert lanes[quiet]["max"] <= demo.guarantee(r["cfg"])
        assert lanes[chatty]["refused"] > 0  # the chatty source meets its own bound
        assert r["fifo"][1] == _reference_waits(r["arr"], r["cfg"]["ticks"], r["cfg"]["capacity"])
        for name in ("fifo", "lanes"):  # every job accounted for, each popped once
            order = r[name][0]
            assert sorted(order) == [i + 1 for i, w in enumerate(r[name][1]) if w >= 0]


def test_micropython_vm_gets_the_same_waits_and_digests():
    demo = _tools()
    why = demo.islands.vm_unavailable()
    if why:
        skip("MicroPython VM not available: " + why)
    for kw in ({}, dict(seed=3, burst=60, every=4, chatty_cap=20)):
        r = demo.run(**kw)
        m = demo.run_vm(r["cfg"])
        for name in ("fifo", "lanes"):
            assert m[name] == (r[name][1], r[name][2]), name


def test_cli_summary_and_picture():
    demo = _tools()
    import contextlib
    import io
    import os
    import tempfile
    import xml.etree.ElementTree as ET
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "lanes.svg")
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            assert demo.main(["--no-vm", "--svg", path]) == 0
        text = buf.getvalue()
        assert "strict FIFO: the quiet source waits up to 30 pops" in text, text
        assert "lanes:       the quiet source waits at most 1 pop (mean 0.3" in text, text
        root = ET.parse(path).getroot()
        assert root.tag.endswith("svg")
        with open(path, encoding="utf-8") as f:
            svg = f.read()
        assert "TicketQueue: FIFO inside the class" in svg and "weights 1:1" in svg
        with contextlib.redirect_stderr(io.StringIO()):
            try:
                demo.main(["--capacity", "1"])
            except SystemExit as e:
                assert e.code == 2
            else:
                raise AssertionError("a bad argument was accepted")


def test_committed_picture_is_current():
    demo = _tools()
    import os
    path = os.path.join(demo.REPO, "docs", "lanes.svg")
    if not os.path.exists(path):
        skip("docs/lanes.svg not generated yet (run ticketq lanes-demo)")
    with open(path, encoding="utf-8") as f:
        assert f.read() == demo.svg(demo.run()), "stale: run ticketq lanes-demo"



def test_another_run_leaves_the_committed_picture_alone():
    demo = _tools()
    from test_islands import leaves_the_committed_picture_alone

    leaves_the_committed_picture_alone(demo, "lanes.svg")


def test_a_bad_option_is_named_with_its_range():
    # `--capacity 0` used to print every option's range ("out of range: ticks 1..5000,
    # capacity 2..4096, ...") without saying which one was wrong.
    demo = _tools()
    import contextlib
    import io
    for argv, want in ((["--capacity", "0"], "--capacity 0: 2..4096"),
                       (["--ticks", "-5"], "--ticks -5: 1..5000"),
                       (["--every", "0"], "--every 0: at least 2"),
                       (["--period", "4"], "--period 4: at least 5"),
                       (["--burst", "1"], "--burst 1: 2..1000"),
                       (["--chatty-cap", "40"], "--chatty-cap 40: 1..31 (below --capacity 32)"),
                       (["--capacity", "8", "--chatty-cap", "8"], "--chatty-cap 8: 1..7 (below --capacity 8)")):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            try:
                demo.main(argv + ["--no-vm", "--no-svg"])
            except SystemExit as e:
                assert e.code == 2, (argv, e.code)
            else:
                raise AssertionError("accepted: %s" % argv)
        text = err.getvalue()
        assert want in text, (argv, text)
        assert text.count("error:") == 1 and "ticks 1..5000, capacity" not in text, text
