# tools/run as a newcomer types it (issue 13): paths from the directory they run it in, bad
# options and bad workload files as usage errors (exit 2) before anything runs, one line
# naming the file, the line and the reason (and a character an editor does not show), and
# `--exec CODE` for a snippet on the host VM. CPython only (pytest): nothing but support is
# imported at the top, so the MicroPython runners skip this module.
from support import skip, IS_MICROPYTHON
from test_main_job import _need_vm, _tool  # (test_main_job imports only support at its top)


def _root():
    import os

    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _host():
    if IS_MICROPYTHON:
        skip("drives tools/run from CPython")


def _run(args, cwd=None, wrapper=False):
    # ticketq run with the venv's Python (or the tools/run wrapper itself), from cwd.
    import os
    import subprocess
    import sys

    cmd = [os.path.join(_root(), "tools", "run")] if wrapper else [sys.executable, "-m", "ticketq_tools.cli", "run"]
    return subprocess.run(cmd + list(args), capture_output=True, text=True, timeout=300, cwd=cwd or _root())


def _tmpdir(tmp_path):
    import tempfile

    return str(tmp_path) if tmp_path else tempfile.mkdtemp()


def test_workload_path_is_taken_from_the_callers_directory(tmp_path=None):
    _need_vm()
    import os

    d = _tmpdir(tmp_path)
    with open(os.path.join(d, "small.txt"), "w") as f:
        f.write("queue 4\npush telemetry-1 NORMAL\npush sync-2 LOW\nrun\n")
    # the wrapper README names (it runs tools/setup first, a no-op once set up)
    p = _run(["--workload", "small.txt"], cwd=d, wrapper=True)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    assert "workload small.txt" in p.stdout.splitlines()[0], p.stdout
    assert "summary ran=2 failed=0 cancelled=0 refused=0 queued=0" in p.stdout
    # and a file that is not there is named as given
    p = _run(["--workload", "missing.txt"], cwd=d, wrapper=True)
    assert p.returncode == 2 and "no workload file missing.txt" in p.stderr, p.stderr


def test_timeout_must_be_a_positive_number_of_seconds():
    _host()
    for bad in ("-1", "0", "nan", "inf", "soon"):
        p = _run(["--timeout", bad])
        assert p.returncode == 2, (bad, p.returncode, p.stdout[-500:])
        assert "argument --timeout" in p.stderr and "seconds" in p.stderr, p.stderr
        assert p.stdout == "", p.stdout  # nothing ran


BAD = [  # (file bytes, the one line tools/run prints after "NAME:")
    (b"queue 4\npush sync-1 LOW\nfly away\nrun\n",
     "3: not a command: queue, push, cancel or run (workload.pyi)"),
    (b"queue 4\npush sync-1 SOON\nrun\n", "2: class 'SOON': LOW, NORMAL, HIGH or CRITICAL"),
    (b"\xef\xbb\xbfqueue 4\npush sync-1 LOW\n",
     "1: not a command: queue, push, cancel or run (workload.pyi); U+FEFF (BYTE ORDER MARK) at column 1"),
    (b"queue 4\npush sync-1 LOW # the first\nrun\n", "2: a # comment takes a line of its own"),
    (b"queue 4\npush\xc2\xa0sync-1 LOW\nrun\n",
     "2: not a command: queue, push, cancel or run (workload.pyi); U+00A0 (NO-BREAK SPACE) at column 5"),
    (b"queue 4\npush sync-1 LOW\nrun\n\x7fELF\x01\x01\x00\xff\xfe\n", "4: not UTF-8 text: byte 0xff at column 8 (the firmware reads UTF-8)"),
    (b"queue 4\npush sync-1 LOW\x00\n",
     "2: class 'LOW\\x00': LOW, NORMAL, HIGH or CRITICAL; U+0000 (control character) at column 16"),
    (b"queue 0\n", "1: capacity must be 1..16777216"),
    (b"run\nqueue 3\n", "2: queue: only once, before the first push, cancel or run"),
]


def test_a_bad_workload_file_stops_before_anything_runs(tmp_path=None):
    _host()
    import os

    d = _tmpdir(tmp_path)
    for i, (data, want) in enumerate(BAD):
        with open(os.path.join(d, "w%d.txt" % i), "wb") as f:
            f.write(data)
        # on the VM (the default) and on a board: the check comes first, so no board is
        # even looked for at a port that does not exist
        for target in ([], ["--connect", os.path.join(d, "no-such-tty")]):
            p = _run(["--workload", "w%d.txt" % i] + target, cwd=d)
            assert p.returncode == 2, (i, p.returncode, p.stderr[-800:])
            assert p.stdout == "", (i, p.stdout[-800:])  # not one line of it ran
            lines = p.stderr.strip().splitlines()
            assert lines == ["w%d.txt:%s" % (i, want)], (i, lines)


def test_the_check_is_the_firmwares_own_player():
    # The dry run goes through workload.play: whatever it accepts, the firmware accepts,
    # and the sample passes.
    _host()
    import os

    run = _tool()  # ticketq run under a name of its own ("run" is also tools/bench/run.py)
    assert run.check_workload(os.path.join(_root(), "firmware", "workload.txt"), "w") is None
    assert run._unseen("a\u00a0b\u200bc\t") == (
        "; U+00A0 (NO-BREAK SPACE) at column 2, U+200B (ZERO WIDTH SPACE) at column 4")


def test_exec_runs_a_snippet_on_the_host_vm(tmp_path=None):
    _need_vm()
    p = _run(["--exec", "import sys, ticketq\nq = ticketq.TicketQueue(4)\nq.push(9, ticketq.HIGH)\n"
                        "print(sys.implementation.name, q.pop(), ticketq.__version__)"], cwd=_tmpdir(tmp_path))
    assert p.returncode == 0, p.stderr
    import json
    import os

    with open(os.path.join(_root(), "package.json")) as f:
        version = json.load(f)["version"]
    assert p.stdout == "micropython 9 %s\n" % version, p.stdout
    p = _run(["--exec", "import ticketq\nticketq.TicketQueue(0)"])
    assert p.returncode == 1, (p.returncode, p.stderr)
    assert p.stderr.splitlines()[0] == "Traceback (most recent call last):", p.stderr
    assert p.stderr.strip().splitlines()[-1].startswith("ValueError: capacity"), p.stderr
    p = _run(["--exec", "print(1)", "--workload", "x.txt"])
    assert p.returncode == 2 and "--exec runs a snippet, not a workload" in p.stderr, p.stderr


def test_exec_exits_as_micropython_c_on_sys_exit():
    # sys.exit in a snippet is an exit, not an error: micropython -c exits with its int
    # (mod 256), 0 for none, or prints any other value and exits 1; no traceback.
    _need_vm()
    for code, status, err in (("import sys; print(2); sys.exit(3)", 3, ""),
                              ("import sys; sys.exit()", 0, ""),
                              ("raise SystemExit(None)", 0, ""),
                              ("raise SystemExit(-1)", 255, ""),
                              ("import sys; sys.exit('no board')", 1, "no board\n")):
        p = _run(["--exec", code])
        assert (p.returncode, p.stderr) == (status, err), (code, p.returncode, p.stderr)
    assert _run(["--exec", "import sys; print(2); sys.exit(3)"]).stdout == "2\n"
    # an uncaught KeyboardInterrupt: the traceback, and 130 as micropython -c (128 + SIGINT)
    p = _run(["--exec", "raise KeyboardInterrupt"])
    assert p.returncode == 130 and "KeyboardInterrupt" in p.stderr, (p.returncode, p.stderr)


def test_heap_must_fit_the_vm():
    # The VM's memory ends at 2 GiB: a larger --heap wrapped round silently, or failed with
    # "null function or function signature mismatch (or run tools/setup)".
    _host()
    for bad in ("1000", "3000000000", "99999999999999"):
        for args in (["--heap", bad], ["--heap", bad, "--exec", "print(1)"]):
            p = _run(args)
            assert p.returncode == 2 and p.stdout == "", (args, p.returncode, p.stdout[-300:])
            assert "--heap: 16384 to 1073741824 bytes" in p.stderr, p.stderr


def test_a_board_that_cannot_be_reached_is_a_failed_run(tmp_path=None):
    # An unreachable board is exit 4, the code fleetctl and the gateway give an unreachable
    # server or board (tools/ticketq_tools/exitcodes.py, docs/fleet.md "Exit codes"); tools/run once
    # exited 2 for it, as if the command line were wrong, then 1, as for a failed job.
    _host()
    import os

    try:
        import mpremote  # noqa: F401
    except ImportError:
        skip("no mpremote (tools/setup)")
    tty = os.path.join(_tmpdir(tmp_path), "no-such-tty")
    p = _run(["--connect", tty, "--timeout", "2"])
    assert p.returncode == 4 and "cannot reach a MicroPython REPL at %s" % tty in p.stderr, (p.returncode, p.stderr)
    assert "Traceback" not in p.stderr, p.stderr


def test_the_stock_microbit_hex_is_no_firmware_choice():
    # Debian's stock micro:bit hex is retired (issue 23: it cannot compile the package, and
    # deploy refuses its flat file system): tools/run and ticketq devtest once still offered
    # it as --firmware stock, which could only fail on the board. argparse now refuses it, a
    # usage error (exit 2) before any emulator starts, and neither --help offers it.
    _host()
    import os
    import subprocess
    import sys

    devtest = [sys.executable, "-m", "ticketq_tools.cli", "devtest"]
    for tool, run in (("run", _run), ("devtest", lambda a: subprocess.run(devtest + a, capture_output=True, text=True, timeout=120))):
        p = run(["--emulate", "microbit", "--firmware", "stock"])
        assert p.returncode == 2 and p.stdout == "", (tool, p.returncode, p.stdout[-500:])
        assert "argument --firmware: invalid choice: 'stock'" in p.stderr, (tool, p.stderr)
        h = run(["--help"])
        assert h.returncode == 0 and "--firmware {ticketq}" in h.stdout, (tool, h.stdout)
        assert "stock hex is retired" in " ".join(h.stdout.split()), (tool, h.stdout)
