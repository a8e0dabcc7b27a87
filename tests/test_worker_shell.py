# The REPL shell (firmware/shell.py), the sample workload (firmware/workload.py) and the
# board profiles, on every interpreter: backpressure and cancel messages, cancel by name,
# the log ring, ls/summary/repr, the heartbeat, boot from the profile, the workload player
# and its golden log. Not for the micro:bit (no room there for the shell).
from ticketq import LOW, NORMAL, HIGH, CRITICAL
from support import skip, raises, IS_MICROPYTHON
from shell import Shell, boot
import workload


def nop(name):
    pass


def fail(name):
    raise ValueError("bad sensor frame")


def queued(w):
    return [i for i in range(len(w.names)) if w.names[i] is not None]


def test_backpressure_is_reported_and_nothing_is_dropped():
    out = []
    w = Shell(3, out=out.append)
    ids = [w.submit("j-%d" % n, c, nop) for n, c in enumerate((LOW, NORMAL, LOW, CRITICAL))]
    assert ids[:3] == [1, 2, 3] and ids[3] is None  # even CRITICAL cannot jump a full queue
    assert out == ["full j-3 CRITICAL"]
    assert len(w.q) == 3 and queued(w) == [1, 2, 3]
    assert w.stats[12 + CRITICAL] == 1 and sum(w.stats[12 + c] for c in range(4)) == 1
    assert w.submit("j-4", "HIGH", nop) is None and out[-1] == "full j-4 HIGH"
    assert w.step() == 2  # j-1, the NORMAL one
    assert w.submit("j-5", "HIGH", nop) == 2  # room again: the lowest free id
    while w.step() is not None:
        pass
    runs = sum(w.stats[c] for c in range(4))
    refused = sum(w.stats[12 + c] for c in range(4))
    assert runs == 4 and refused == 2  # every submission ran or was refused


def test_cancel_by_id_and_by_name():
    out = []
    w = Shell(8, out=out.append)
    ran = []
    a = w.submit("sync-1", LOW, ran.append)
    b = w.submit("sync-2", LOW, ran.append)
    w.submit("sync-2", NORMAL, ran.append)  # same name, later id
    assert w.cancel(a) is True
    assert w.cancel(a) is False  # not queued any more
    assert w.cancel("sync-2") is True  # the oldest of that name: id b
    assert w.names[b] is None and queued(w) == [3] and len(w.q) == 1
    assert w.cancel("nope") is False and w.cancel(999) is False
    assert out == ["cancel 1 sync-1 LOW", "cancel 2 sync-2 LOW"]
    w.step()
    assert ran == ["sync-2"] and w.cancel(3) is False  # ran: cannot be cancelled
    assert w.stats[8 + LOW] == 2 and w.stats[NORMAL] == 1


def test_a_name_that_is_not_a_str_is_a_type_error():
    # w.submit(5, "HIGH") at the REPL (an id where the name goes) raised AttributeError
    # ('int' object has no attribute 'split'); nothing is submitted.
    w = Shell(4, out=None)
    w.kinds = {"sync": nop}
    for bad in (5, None):
        e = raises(TypeError, w.submit, bad, "HIGH")
        assert "name" in str(e), str(e)
    assert len(w.q) == 0 and queued(w) == []
    assert w.submit("sync-1", "HIGH") == 1


def test_cancel_by_name_takes_the_oldest_whatever_its_id():
    out = []
    w = Shell(4, out=out.append)
    assert w.submit("a-1", HIGH, nop) == 1 and w.submit("s-1", LOW, nop) == 2
    assert w.step() == 1
    assert w.submit("s-1", LOW, nop) == 1  # newer, with the lower (reused) id
    assert w.cancel("s-1") is True and out[-1] == "cancel 2 s-1 LOW"
    assert queued(w) == [1] and w.cancel("s-1") is True and queued(w) == []


def test_log_ring_keeps_the_last_runs():
    w = Shell(8, out=None, logsize=3)
    for n in range(5):
        w.submit("t-%d" % n, NORMAL, nop)
    got = []
    w.log(got.append)
    assert got == []
    while w.step() is not None:
        pass
    w.log(got.append)
    assert [g.split()[2] for g in got] == ["t-2", "t-3", "t-4"]
    assert got[-1] == w.lines[4 % 3]


def test_shell_repr_ls_and_summary():
    w = Shell(4, out=None)
    assert "ran=0 next=-" in repr(w)
    w.submit("a-1", "NORMAL", nop)
    w.submit("b-1", "CRITICAL", fail)
    assert "<TicketQueue 2/4" in repr(w) and "next=b-1" in repr(w)
    got = []
    w.ls(got.append)
    assert got == ["2 b-1 CRITICAL seq=1", "1 a-1 NORMAL seq=0"]
    w.step()
    w.cancel("a-1")
    w.submit("c-1", LOW, nop)
    got = []
    w.summary(got.append)
    assert got[0] == "summary ran=1 failed=1 cancelled=1 refused=0 queued=1 digest=%08x" % (
        w.q.digest)
    assert got[1] == "  CRITICAL ran=1 failed=1 cancelled=0 refused=0"
    assert got[3] == "  NORMAL   ran=0 failed=0 cancelled=1 refused=0"
    assert len(got) == 5


def test_heartbeat_blinks_per_job_and_is_guarded():
    from shell import _led
    for hb in (None, "microbit", 2, "LED"):
        led = _led(hb)  # None where the module or the pin is missing: never an error
        if led is not None:
            led(1)
            led(0)
    assert _led(None) is None
    w = Shell(4, out=None)
    seen = []
    w.led = seen.append
    for n in range(3):
        w.submit("a-%d" % n, LOW, fail if n == 1 else nop)
    while w.step() is not None:
        pass
    assert seen == [1, 0, 1]  # also after the failing job


def test_boot_reads_the_board_or_defaults():
    w = boot(out=None, kinds=workload.KINDS)
    assert w.q.capacity >= 1 and w.kinds is workload.KINDS
    assert boot(5, out=None).q.capacity == 5
    assert w.submit("sync-1", "LOW") == 1
    raises(ValueError, w.submit, "nosuchkind-1", "LOW")  # named, as a bad workload line


def play(lines):
    out = []
    w = workload.play(lines, None, out.append)
    w.summary(out.append)
    return out, w


def test_workload_player_commands():
    out, w = play([
        "# a comment", "", "queue 3",
        "push telemetry-1 NORMAL", "push sync-1 LOW", "push handoff-10 CRITICAL",
        "push consensus-1 HIGH",  # full
        "cancel sync-1", "cancel sync-1", "run 1", "run",
    ])
    assert w.q.capacity == 3
    assert out[0] == "full consensus-1 HIGH"
    assert out[1] == "cancel 2 sync-1 LOW"
    assert out[2] == "cancel sync-1: not queued"
    assert out[3].startswith("run 3 handoff-10 CRITICAL seq=2 waited=0 ")
    assert out[3].endswith(" OSError")  # handoff-10: a peer that left the mesh
    assert out[4].startswith("run 1 telemetry-1 NORMAL seq=0 waited=1 ")
    assert out[5].startswith("summary ran=2 failed=1 cancelled=1 refused=1 queued=0 ")
    e = raises(ValueError, workload.play, ["queue 2", "push a"], None, None)
    assert "line 2" in str(e.args[0])


def test_bad_workload_lines_stop_before_anything_happens():
    # Each bad line names its number and why, with the same words on every interpreter,
    # and nothing of it is done: no job that fails when run, no queue thrown away.
    def why(*lines):
        out = []
        e = raises(ValueError, workload.play, list(lines), None, out.append)
        return str(e.args[0]), out

    kinds = "(consensus, handoff, sync, telemetry)"
    assert why("push handoff NORMAL")[0] == (
        "workload line 1: push handoff NORMAL (job handoff: a job name is <kind>-<number>, as sync-3)")
    assert why("push telemetry-x NORMAL")[0].endswith("a job name is <kind>-<number>, as sync-3)")
    assert why("push telemetry-0 URGENT")[0].endswith("(class 'URGENT': LOW, NORMAL, HIGH or CRITICAL)")
    assert why("push foo-1 LOW")[0].endswith("(job foo-1: no job kind 'foo' %s)" % kinds)
    assert why("queue 0")[0] == "workload line 1: queue 0 (capacity must be 1..16777216)"
    assert why("queue x")[0] == "workload line 1: queue x (capacity: 'x' is not a whole number)"
    assert why("run -1")[0] == "workload line 1: run -1 (run: a count >= 0)"
    assert why("run 3 4")[0].endswith("(not a command: queue, push, cancel or run (workload.pyi))")
    msg, out = why("queue 4", "push sync-1 LOW", "queue 8")  # would drop the queued job
    assert msg == "workload line 3: queue 8 (queue: only once, before the first push, cancel or run)"
    assert out == []
    w = Shell(2, out=None)
    w.kinds = workload.KINDS
    raises(ValueError, w.submit, "sync-1", "URGENT")  # at the REPL too, nothing submitted
    raises(ValueError, w.submit, "mystery-1", "LOW")
    assert len(w.q) == 0 and w.names.count(None) == len(w.names)


def test_same_workload_gives_the_same_log_and_digest():
    a, wa = play(workload.sample())
    b, wb = play(workload.sample())
    assert a == b and wa.q.digest == wb.q.digest
    # The golden values: the same on CPython, the MicroPython VM and a board.
    assert len([x for x in a if x.startswith("run ")]) == 106
    assert a[-5] == "summary ran=106 failed=4 cancelled=12 refused=8 queued=0 digest=01c74530"
    assert "full handoff-70 CRITICAL" in a and "cancel sync-1: not queued" in a
    assert "run 9 handoff-10 CRITICAL seq=31 waited=0 digest=0bc05eae OSError" in a
    c, wc = play(workload.sample(seed=7))
    assert wc.q.digest != wa.q.digest  # the digest tells schedules apart


def test_workload_file_is_the_sample():
    if IS_MICROPYTHON:
        skip("reads firmware/workload.txt from the repository (CPython only)")
    import os
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "..", "firmware", "workload.txt")
    body = [s.rstrip("\n") for s in workload.lines(path)]
    assert [s for s in body if s and not s.startswith("#")] == list(workload.sample())
    out = []
    workload.main(path, out.append)
    assert out == play(workload.sample())[0]


def sure_imports(path):
    # Modules a source file imports outside any `if` or `try`.
    import ast
    names, todo = set(), [ast.parse(open(path).read(), path)]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.add(node.module)
        elif not isinstance(node, (ast.If, ast.Try)):
            todo.extend(ast.iter_child_nodes(node))
    return names


def test_board_profiles_are_constants_that_ast_can_read():
    if IS_MICROPYTHON:
        skip("reads boards/*/board.py with ast (CPython only)")
    import ast
    import os
    root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    names = sorted(os.listdir(os.path.join(root, "boards")))
    assert set(["microbit", "rp2", "esp32", "host"]) <= set(names)
    for name in names:
        path = os.path.join(root, "boards", name, "board.py")
        tree = ast.parse(open(path).read(), path)
        prof = {}
        for node in tree.body:
            assert isinstance(node, ast.Assign) and len(node.targets) == 1, (path, node)
            prof[node.targets[0].id] = ast.literal_eval(node.value)
        # TESTS (optional): the test modules that run on that board (ticketq devtest);
        # DROP (optional): names ticketq deploy leaves out of the library there.
        # MARCH (optional, with MPY): mpy-cross's -march for native code (ticketq deploy).
        # FROZEN, DROP_FIRMWARE, CONFIG, BATCH (optional): a firmware built with the
        # modules frozen in (ticketq firmware) and fed in batches (ticketq run).
        assert sorted(set(prof) - set(["TESTS", "DROP", "MARCH", "FROZEN", "DROP_FIRMWARE", "CONFIG",
                                       "BATCH"])) == [
            "CAPACITY", "FILES", "HEARTBEAT", "MPY", "NAME"], path
        assert all(isinstance(n, str) and n.isidentifier() for n in prof.get("DROP", [])), path
        assert "MARCH" not in prof or prof["MPY"] is True, path
        for t in prof.get("TESTS", []):
            assert os.path.isfile(os.path.join(root, "tests", t + ".py")), (path, t)
        assert prof["NAME"] == name and 1 <= prof["CAPACITY"] <= 1 << 24
        assert prof["HEARTBEAT"] is None or isinstance(prof["HEARTBEAT"], (int, str))
        assert prof["MPY"] in (True, False)
        # the profile goes on as board.py, or is frozen into the firmware with the rest
        assert "boards/%s/board.py" % name in prof["FILES"] + prof.get("FROZEN", []), path
        for f in prof["FILES"] + prof.get("FROZEN", []):
            assert os.path.isfile(os.path.join(root, f)), (path, f)
        files = prof["FILES"] + prof.get("FROZEN", [])
        # where each lands on the board: the package's modules in a ticketq/ folder
        # (ticketq deploy), everything else by base name in the top folder
        dests = [f[len("lib/"):] if f.startswith("lib/ticketq/") else f.rsplit("/", 1)[-1] for f in files]
        assert len(set(dests)) == len(dests), "two files land on one path: %s" % dests
        for mod in ("ticketq/__init__.py", "ticketq/core.py", "ticketq/ticks.py", "worker.py"):
            assert mod in dests, (path, mod)
        for f in files:  # every project module a file imports for sure is there too
            if f.endswith(".py") and not f.startswith("boards/"):
                for m in sure_imports(os.path.join(root, f)):
                    dest = m.replace(".", "/")
                    if os.path.isdir(os.path.join(root, "lib", dest)):
                        dest += "/__init__"
                    if any(os.path.isfile(os.path.join(root, d, dest + ".py")) for d in ("lib", "firmware")):
                        assert dest + ".py" in dests, (path, f, m)
                        if "/" in dest:  # a package module: the package itself imports first
                            assert dest.split("/")[0] + "/__init__.py" in dests, (path, f, m)
    micro = os.path.join(root, "boards", "microbit", "board.py")
    assert "MPY = False" in open(micro).read() and "CAPACITY = 32" in open(micro).read()


def test_workload_fields_are_ascii_on_every_interpreter():
    # CPython's str.split and str.isdigit take Unicode spaces and digits, MicroPython's do
    # not: the player accepts only ASCII ones, so a line gets the same verdict everywhere.
    for line in ("push sync-\u00b2 LOW", "push sync-\u0661 LOW", "push\u00a0sync-1 LOW", "push sync-1 LOW\x1f"):
        raises(ValueError, workload.play, ["queue 2", line], None, None)
    w = workload.play(["queue 2", "push\tsync-1\tLOW\r\n", "run"], None, None)
    assert w.stats[0] == 1  # tabs and CRLF are whitespace


def test_quiet_main_shell_logsize_and_a_foreign_board_module():
    w = workload.main(None, None)  # silent: no summary printed, the worker returned
    assert w.q.digest == 0x01C74530
    raises(ValueError, Shell, 2, 0, None, None, 0)  # logsize 0
    import sys

    saved = sys.modules.get("board")
    class NotAProfile:  # another package's `board` module, without CAPACITY or HEARTBEAT
        pass

    sys.modules["board"] = NotAProfile
    try:
        assert boot(out=None).q.capacity == 32
    finally:
        if saved is None:
            del sys.modules["board"]
        else:
            sys.modules["board"] = saved
