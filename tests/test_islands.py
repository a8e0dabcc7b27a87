# The islands demonstration (ticketq islands): one operation stream on islands with skewed,
# drifting clocks and delivery delays. A timestamp tie-break disagrees between islands;
# ticketq gives every island the same pops and digest, on CPython and the MicroPython VM.
# CPython only (the tool drives node and writes files); on MicroPython every test skips.
from support import skip, IS_MICROPYTHON


def _tools():
    if IS_MICROPYTHON:
        skip("drives ticketq islands (CPython only; the VM side is checked from CPython)")
    import os
    import sys
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools")
    if os.path.normpath(here) not in sys.path:
        sys.path.insert(0, os.path.normpath(here))
    import islands
    return islands


def _agree(orders):
    return all(o == orders[0] for o in orders)


def test_textbook_islands_diverge_with_default_settings():
    islands = _tools()
    for seed in (1, 2, 3, 4, 5):
        r = islands.run(seed=seed)
        k = r["tb_div"]
        assert k is not None, seed
        # Same history before pop k, so the same queue: the islands pick the same class and
        # differ only in the tie-break inside it (the local arrival stamp).
        picks = [o[k] for o in r["textbook"]]
        assert len(set(picks)) > 1
        assert len({r["jobs"][j][0] for j in picks}) == 1, (seed, picks)
        assert _agree([o[:k] for o in r["textbook"]])


def test_textbook_disagreement_comes_from_arrival_times():
    # With no delivery delay every island stamps the pushes in log order: a constant skew
    # cancels and drift only rescales, so they agree. The delays make them disagree.
    islands = _tools()
    for seed in (1, 2, 3):
        r = islands.run(seed=seed, skew_ms=(0, 11.5, 250.3), drift_ppm=(0, 100, -100),
                        delay_ms=0, jitter_ms=0)
        assert r["tb_div"] is None
        r = islands.run(seed=seed, skew_ms=(0, 0, 0), drift_ppm=(0, 0, 0))
        assert r["tb_div"] is not None


def _reference(R, ops):
    # Strict priority, FIFO within a class: ids are given in push order, so (-class, id).
    import heapq
    h, dead, queued, order = [], set(), set(), []
    for op in ops:
        if op[0] == R.PUSH:
            heapq.heappush(h, (-op[2], op[1]))
            queued.add(op[1])
        elif op[0] == R.CANCEL:
            if op[1] in queued:
                queued.discard(op[1])
                dead.add(op[1])
        else:
            while h:
                j = heapq.heappop(h)[1]
                if j in dead:
                    dead.discard(j)
                    continue
                queued.discard(j)
                order.append(j)
                break
    return order


def test_ticketq_islands_agree_for_any_skew_and_drift():
    islands = _tools()
    import random
    R = islands.R
    rnd = random.Random(5)
    for seed in range(1, 9):
        n = rnd.randint(2, 6)
        skew = [rnd.uniform(-500, 500) for _ in range(n)]
        drift = [rnd.randint(-200, 200) for _ in range(n)]
        aging = rnd.choice((0, 0, 1, 3, 7))
        r = islands.run(seed=seed, skew_ms=skew, drift_ppm=drift, pushes=rnd.randint(20, 200),
                        capacity=rnd.choice((8, 16, 32)), aging=aging,
                        delay_ms=rnd.uniform(0, 10), jitter_ms=rnd.uniform(0, 10))
        assert r["tq_div"] is None and _agree(r["ticketq"]), seed
        assert len(set(r["digests"])) == 1, seed
        assert 0 <= r["digests"][0] < 2 ** 30
        pushed = [op[1] for op in r["ops"] if op[0] == R.PUSH]
        assert sorted(r["ticketq"][0]) == sorted(set(r["ticketq"][0]))  # each job once
        assert set(r["ticketq"][0]) <= set(pushed)
        if not aging:
            assert r["ticketq"][0] == _reference(R, r["ops"]), seed


def test_micropython_vm_digest_equals_cpython():
    islands = _tools()
    why = islands.vm_unavailable()
    if why:
        skip("MicroPython VM not available: " + why)
    for kw in ({}, dict(seed=4, skew_ms=(0, 3, 40, 900), drift_ppm=(0, -80, 80, 20), aging=3)):
        r = islands.run(**kw)
        m = islands.run_vm(r["cfg"])
        assert m["digests"] == r["digests"] and len(set(m["digests"])) == 1
        assert m["ticketq"] == r["ticketq"]
        assert m["textbook"] == r["textbook"]  # the divergence is the clocks', not CPython's


def test_cli_summary_and_picture():
    islands = _tools()
    import contextlib
    import io
    import os
    import tempfile
    import xml.etree.ElementTree as ET
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "islands.svg")
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            assert islands.main(["--no-vm", "--svg", path]) == 0
        text = buf.getvalue()
        assert "textbook: islands DISAGREE; first divergence at pop #" in text
        assert "ticketq:  all 3 islands agree" in text
        root = ET.parse(path).getroot()
        assert root.tag.endswith("svg")
        with open(path, encoding="utf-8") as f:
            svg = f.read()
        assert "first divergence: pop #" in svg and "same digest on every island" in svg


def test_committed_picture_is_current():
    islands = _tools()
    import os
    path = os.path.join(islands.REPO, "docs", "islands.svg")
    if not os.path.exists(path):
        skip("docs/islands.svg not generated yet (run ticketq islands)")
    with open(path, encoding="utf-8") as f:
        assert f.read() == islands.svg(islands.run()), "stale: run ticketq islands"



def leaves_the_committed_picture_alone(tool, name):
    # Exploring with other settings (the help invites it) drew over docs/NAME, and then
    # ./tools/test failed with "stale". Only the default run draws there; others go to
    # build/, and a picture that cannot be written is an error, not a traceback.
    # (tests/test_lanes_demo.py checks ticketq lanes-demo with it too.)
    import contextlib
    import io
    import os

    committed = os.path.join(tool.REPO, "docs", name)
    with open(committed, encoding="utf-8") as f:
        before = f.read()
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert tool.main(["--no-vm", "--seed", "2"]) == 0
    with open(committed, encoding="utf-8") as f:
        assert f.read() == before
    out = os.path.join(tool.REPO, "build", name)
    assert "picture: %s" % os.path.relpath(out) in buf.getvalue(), buf.getvalue()
    with open(out, encoding="utf-8") as f:
        assert f.read() != before
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        assert tool.main(["--no-vm", "--svg", tool.REPO]) == 1  # a folder
    assert "cannot write the picture" in err.getvalue(), err.getvalue()


def test_another_run_leaves_the_committed_picture_alone():
    leaves_the_committed_picture_alone(_tools(), "islands.svg")


def test_a_required_vm_that_is_missing_is_a_failure_said_as_one():
    # --vm with no VM here (no node): the run fails and its line says so; it said "skipped"
    # and then exited 1. Without --vm a missing VM is a skip.
    islands = _tools()  # first: it skips on MicroPython
    import contextlib
    import io

    was = islands.vm_unavailable
    islands.vm_unavailable = lambda: "node not found"
    try:
        for vm, ok, word in ((True, False, "FAILED"), (False, True, "skipped")):
            args = type("Args", (), {"vm": vm, "no_vm": False})()
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                assert islands.vm_stage(args, None, None, None) is ok
            assert word in out.getvalue() and "node not found" in out.getvalue(), out.getvalue()
    finally:
        islands.vm_unavailable = was
