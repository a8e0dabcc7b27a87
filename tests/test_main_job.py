# The main job (ticketq run): the worker firmware plays a workload on the host MicroPython
# VM (tools/mpvm/main.mjs, loaded by tools/mpvm/vm.mjs) and prints the same lines, line for
# line, as the same firmware on CPython: the worker is deterministic (same ids, same
# digests). Also the board side of ticketq run (workload.play on the host driving a
# worker.Worker through small REPL commands), against a stand-in board that runs the
# commands on CPython, so it is checked without hardware. CPython only (pytest); the VM
# tests skip visibly without node or the VM. Nothing but support is imported at the top:
# the MicroPython runners skip this module.
from support import skip, IS_MICROPYTHON

SUMMARY = "summary ran=106 failed=4 cancelled=12 refused=8 queued=0 digest=01c74530"

CUSTOM = """# a small workload of my own
queue 3
push telemetry-1 NORMAL
push sync-2 LOW
push consensus-3 HIGH
push handoff-4 CRITICAL
cancel sync-2
cancel sync-9
run 1

push handoff-10 CRITICAL
push sync-5 LOW
run
"""


def _paths():
    import os

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return root, "run", os.path.join(root, "firmware", "workload.txt")


def _cpython(path, fails=False):
    # The lines of the same firmware on CPython, in a fresh interpreter: workload.main with
    # the host profile importable as board (as on the VM). fails: a bad line stops it.
    import os
    import subprocess
    import sys

    root = _paths()[0]
    code = ("import sys; sys.path[0:0] = %r\nimport workload\nworkload.main(%r)\n" % (
        [os.path.join(root, d) for d in ("lib", "firmware", os.path.join("boards", "host"))], path))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == (1 if fails else 0), p.stderr
    assert not fails or "ValueError" in p.stderr
    return p.stdout.splitlines()


def _write(tmp_path, name, text):
    # A workload file in pytest's tmp_path (a fresh temporary folder without pytest).
    import os
    import tempfile

    path = os.path.join(str(tmp_path) if tmp_path else tempfile.mkdtemp(), name)
    with open(path, "w") as f:
        f.write(text)
    return path


def _need_vm():
    if IS_MICROPYTHON:
        skip("ticketq run drives the VM from CPython")
    import os
    import shutil

    if not shutil.which("node"):
        skip("node not found: the host MicroPython VM needs Node.js >= 20 (tools/setup)")
    if not os.path.isdir(os.path.join(_paths()[0], "tools", "mpvm", "node_modules", "@micropython")):
        skip("the MicroPython VM is not installed (tools/setup, or npm ci --prefix tools/mpvm)")


def _run(*args):
    import subprocess
    import sys

    root, run, _ = _paths()
    return subprocess.run([sys.executable, "-m", "ticketq_tools.cli", run] + list(args), capture_output=True, text=True,
                          timeout=300, cwd=root)


def _log(stdout):
    # The firmware's lines: all but ticketq run's own "== ..." lines.
    return [l for l in stdout.splitlines() if not l.startswith("== ")]


def test_sample_on_the_vm_is_the_cpython_run_line_for_line():
    _need_vm()
    p = _run()  # the default: the shipped sample (firmware/workload.txt), profile host
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    lines = p.stdout.splitlines()
    assert lines[0].startswith("== worker firmware on the host MicroPython "), lines[0]
    assert "workload firmware/workload.txt" in lines[0]
    assert lines[-1].startswith("== 106 jobs run on the host VM in "), lines[-1]
    log = _log(p.stdout)
    assert SUMMARY in log
    want = _cpython(_paths()[2])
    assert len(want) == 132 and want[-5] == SUMMARY
    assert log == want
    # the explicit file gives the same run
    p2 = _run("--workload", _paths()[2])
    assert p2.returncode == 0 and _log(p2.stdout) == want


def test_custom_workload_file_on_the_vm(tmp_path=None):
    _need_vm()
    path = _write(tmp_path, "mine.txt", CUSTOM)
    p = _run("--workload", path)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    log = _log(p.stdout)
    assert log == _cpython(path)
    assert log[:3] == ["full handoff-4 CRITICAL", "cancel 2 sync-2 LOW", "cancel sync-9: not queued"]
    assert log[3].startswith("run 3 consensus-3 HIGH seq=2 waited=0 digest=")
    assert [l.split()[2] + " " + l.split()[-1] for l in log if l.startswith("run ")] == [
        "consensus-3 ok", "handoff-10 OSError", "telemetry-1 ok", "sync-5 ok"]
    assert log[-5].startswith("summary ran=4 failed=1 cancelled=1 refused=1 queued=0 digest=")


def test_bad_workload_line_stops_the_run(tmp_path=None):
    # The firmware stops at the bad line (after running the lines before it); tools/run
    # checks the whole file first, so nothing runs at all (more in test_run_cli.py).
    _need_vm()
    path = _write(tmp_path, "bad.txt", "queue 4\npush sync-1 LOW\nrun 1\nfly away\n")
    assert _cpython(path, fails=True) == ["run 1 sync-1 LOW seq=0 waited=0 digest=17c30c0a ok"]
    p = _run("--workload", path)
    assert p.returncode == 2
    assert p.stdout == ""
    assert p.stderr == "%s:4: not a command: queue, push, cancel or run (workload.pyi)\n" % path, p.stderr


# ---- the board side, against a stand-in board

class _FakeBoard:
    # What ticketq run's Link uses of deploy.Board: exec (raw-REPL command -> output, or
    # TransportExecError with the traceback), mem_free, soft_reset, info. Commands run on
    # CPython in one namespace, like the REPL's globals on a board. `fail_on`: raise
    # MemoryError when a command contains it.
    def __init__(self, fail_on=None, hang_on=None):
        self.info = {"version": (1, 9, 2)}
        self.fail_on = fail_on
        self.hang_on = hang_on  # no answer (mpremote's timeout) to a command containing it
        self.cmds = []
        self.soft_reset()

    def soft_reset(self):
        self.ns = {}  # fresh globals (the modules stay imported: other tests hold them)

    def mem_free(self):
        return 5000

    def exec(self, cmd, timeout=10):
        import contextlib
        import io
        from mpremote.transport import TransportExecError

        from mpremote.transport import TransportError

        self.cmds.append(cmd)
        if self.hang_on and self.hang_on in cmd:
            raise TransportError("timeout waiting for first EOF reception")
        out = io.StringIO()
        try:
            if self.fail_on and self.fail_on in cmd:
                raise MemoryError("memory allocation failed, allocating 1168 bytes")
            with contextlib.redirect_stdout(out):
                exec(cmd, self.ns)
        except Exception as e:
            raise TransportExecError(out.getvalue().encode(), "Traceback (most recent call last):\n"
                                     "%s: %s\n" % (type(e).__name__, e))
        return out.getvalue().replace("\n", "\r\n")


def _tool():
    # ticketq_tools.run, the module of ticketq run (tools/ on sys.path; importing the
    # package puts lib/ and firmware/ there)
    import os
    import sys

    tools = os.path.join(_paths()[0], "tools")
    if tools not in sys.path:
        sys.path.insert(0, tools)
    from ticketq_tools import run

    return run


def _board_session(board, path, prof="microbit"):
    run = _tool()
    from ticketq_tools import deploy

    lines = []
    link = run.Link(board, deploy.read_profile(prof), 10)
    w = run.session(link, link.prof, path, {}, lines.append)[0]
    return w, lines


def _need_mpremote():
    if IS_MICROPYTHON:
        skip("ticketq run runs on CPython")
    try:
        import mpremote  # noqa: F401
    except ImportError:
        skip("mpremote is not installed (tools/setup)")


def test_board_session_prints_the_same_lines_as_the_firmware():
    _need_mpremote()
    path = _paths()[2]
    board = _FakeBoard()
    w, lines = _board_session(board, path)
    want = _cpython(path)
    # heap line, job kinds line, then exactly the firmware's lines
    assert lines[0].startswith("== heap free: 5000 B after a soft reset, after import ticketq.core 5000 B, after import ticketq 5000 B")
    assert lines[1].startswith("== job kinds consensus, handoff, sync, telemetry: sent from firmware/workload.py")
    assert lines[2:] == want
    assert w.ran == 106
    # the board got small commands only: the job functions as source, no play/sample
    assert all(len(c) < 1024 for c in board.cmds)
    assert not any("def play" in c or "def sample" in c for c in board.cmds)
    assert any(c.startswith("def handoff(") for c in board.cmds)
    assert any(c.endswith("w=Worker(16,6)") for c in board.cmds)  # the sample's "queue 16 6"


def test_batched_board_session_prints_the_same_lines_as_the_firmware():
    # ticketq's micro:bit firmware (profile microbit-frozen, BATCH): the jobs go in batches
    # B("...") of at most BATCH characters of ops, not one REPL command per job (which ran
    # out of parser memory there); the lines and the summary are still the firmware's own.
    _need_mpremote()
    _tool()  # puts tools/ on sys.path
    from ticketq_tools import deploy

    class Board(_FakeBoard):
        def exec(self, cmd, timeout=10):  # CPython's gc has no mem_free: a board's figure
            return _FakeBoard.exec(self, cmd.replace("gc.mem_free()", "4000"), timeout)

    path = _paths()[2]
    board = Board()
    w, lines = _board_session(board, path, "microbit-frozen")
    limit = deploy.read_profile("microbit-frozen")["BATCH"]
    assert lines[2:-2] == _cpython(path)
    assert lines[-2] == "== heap free after Worker(16, 6): 5000 B"
    assert lines[-1].startswith("== heap free after each of ") and "first 4000 B, last 4000 B" in lines[-1]
    assert w.ran == 106
    batches = [c for c in board.cmds if c.startswith("B(")]
    assert len(batches) > 20
    for c in batches:
        ops = c[3:-2]
        assert len(ops) <= limit, c
    # every submit went in a batch, none as a command of its own
    assert not any(c.startswith("print(w.submit(") for c in board.cmds)
    assert sum(c.count("|s") + c.startswith("B('s") for c in batches) == 106 + 12 + 8  # ran, cancelled, refused


def test_board_session_with_the_profiles_workload_module(tmp_path=None):
    # A profile that puts workload.py on the board: the jobs are imported from it.
    _need_mpremote()
    path = _write(tmp_path, "mine.txt", CUSTOM)
    board = _FakeBoard()
    w, lines = _board_session(board, path, "rp2")
    assert lines[1].endswith("imported from the board's workload.py")
    assert lines[2:] == _cpython(path)
    assert "from workload import KINDS" in board.cmds


def test_board_memoryerror_or_silence_stops_the_run():
    _need_mpremote()
    run = _tool()
    from support import raises

    board = _FakeBoard(fail_on="import worker")
    e = raises(run.Stop, _board_session, board, _paths()[2])
    assert e.code == run.NO_RAM
    msg = str(e)
    assert msg.startswith("does not fit: import worker (? B of source on the board) raised MemoryError"), msg
    assert "5000 B of heap were free before it (after import ticketq.ticks), 5000 B after a gc.collect()" in msg
    # a board that stops answering stops the run too (never a hang)
    e = raises(run.Stop, _board_session, _FakeBoard(hang_on="w.step()"), _paths()[2])
    assert e.code == run.FAILED
    assert str(e) == ("step (run the next job): no answer from microbit (MicroPython 1.9.2) within 10 s "
                      "(timeout waiting for first EOF reception)"), str(e)


def test_unknown_job_kind_names_the_workload_line(tmp_path=None):
    _need_mpremote()
    from support import raises

    run = _tool()
    path = _write(tmp_path, "kind.txt", "queue 4\npush sync-1 LOW\npush mystery-2 HIGH\n")
    e = raises(run.Stop, _board_session, _FakeBoard(), path)
    assert e.code == run.FAILED
    assert "workload line 3: push mystery-2 HIGH" in str(e) and "no job kind 'mystery'" in str(e), str(e)


def test_a_command_that_reached_the_board_garbled_is_told_apart():
    # MicroPython 1.9.2 on the micro:bit loses bytes that arrive while it is busy; the host
    # tools send such a command again, and must not resend one whose test really failed.
    _need_mpremote()  # the host tools run on CPython, with mpremote
    _tool()  # puts tools/ on sys.path
    from ticketq_tools.deploy import garbled

    cmd = "import gc;gc.collect();test_ticks.test_add_and_diff_known_values()"
    top = 'Traceback (most recent call last):\n  File "<stdin>", line 1, in <module>\n'
    lost = "AttributeError: 'module' object has no attribute 'test_add_and_diff_known_value'"
    assert garbled(cmd, top + lost)  # a byte lost inside the name: nothing ran
    assert garbled(cmd, top + "SyntaxError: invalid syntax")
    assert not garbled(cmd, top + "NameError: name 'test_ticks' is not defined")  # really missing
    inner = top + '  File "test_ticks.py", line 9, in test_add_and_diff_known_values\n'
    assert not garbled(cmd, inner + "AttributeError: 'module' object has no attribute 'nope'")
    assert not garbled(cmd, inner + "SyntaxError: invalid syntax")  # raised by the test itself
    assert not garbled(cmd, "")


def test_deploy_writes_again_a_file_that_reads_back_wrong():
    # Some boards lose bytes on a fast serial link without any error: deploy.Board.put reads
    # every file back (size and checksum) and writes it again, up to `retries` more times.
    _need_mpremote()
    _tool()  # puts tools/ on sys.path
    from ticketq_tools import deploy
    from support import raises

    class Flaky(deploy.Board):  # the board side, with no board: a dict as its filesystem
        def __init__(self, bad_writes):
            self.bad, self.fs, self.writes = bad_writes, {}, 0

        def check_room(self, name, size):
            pass

        def expected(self, data):
            return deploy.adler(data)

        def write(self, name, data):
            self.writes += 1
            self.fs[name] = data[:-1] if self.writes <= self.bad else data  # a byte lost

        def checksum(self, name):
            return deploy.adler(self.fs[name])

    log = []
    b = Flaky(bad_writes=2)
    assert b.put("a.py", b"x = 1\n", retries=3, log=log.append) == 3 and b.fs["a.py"] == b"x = 1\n"
    assert len(log) == 2 and "try 1 failed (read back" in log[0], log
    b = Flaky(bad_writes=9)
    e = raises(deploy.DeployError, b.put, "a.py", b"x = 1\n", 2)
    assert b.writes == 3 and "a.py" in str(e), (b.writes, str(e))
