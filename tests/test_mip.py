# `mpremote mip install` of the library (issue 13), where mip can work: a board with a
# filesystem of folders, os.stat and a raw REPL, which the 32-bit MicroPython unix port is.
# ticketq mpunix's board() puts its REPL on a loopback port as a stand-in board; mpremote
# (from PyPI, the host side of mip) installs package.json from a checkout and over HTTP (a
# server on loopback started here, the way a github: URL is fetched: relative URLs against
# the package.json's own), into the lib folder on the board's sys.path; then a fresh
# interpreter imports ticketq from there and uses it. The micro:bit v1 (MicroPython 1.9.2:
# no folders, no os.stat) is not such a board: ticketq deploy is its route
# (docs/install.md). CPython only (pytest); skipped, saying why, without the unix port.
from support import skip, IS_MICROPYTHON


def _setup():
    if IS_MICROPYTHON:
        skip("drives mpremote from CPython")
    import os
    import sys

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.path.insert(0, os.path.join(root, "tools"))
    from ticketq_tools import mpunix

    exe, how = mpunix.find()
    if not exe:
        skip("no MicroPython unix port (%s)" % how)
    try:
        import mpremote  # noqa: F401
    except ImportError:
        skip("mpremote is not installed (tools/setup)")
    return root, mpunix, exe


def _mip(root, mpunix, home, package):
    import os
    import subprocess
    import sys

    with mpunix.board(home) as url:
        # resume: no soft reset first (the unix port ends at a soft reset; a board restarts).
        # The timeout is a hang guard, not a speed check: mpremote's file transfer to the
        # stand-in board took 70 s at load ~12 on 2 cores (a clean-clone run timed out at 120 s)
        p = subprocess.run([sys.executable, "-m", "mpremote", "connect", url, "resume", "mip", "install", package],
                           cwd=root, capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    assert "Done" in p.stdout, p.stdout
    return os.path.join(home, ".micropython", "lib")


def _check_installed(root, exe, home, lib):
    import json
    import os
    import subprocess

    with open(os.path.join(root, "package.json")) as f:
        pkg = json.load(f)
    got = []
    for d, _, files in os.walk(lib):  # the package lands as a folder: ticketq/__init__.py ...
        got += [os.path.relpath(os.path.join(d, f), lib).replace(os.sep, "/") for f in files]
    assert sorted(got) == sorted(dest for dest, _ in pkg["urls"])
    assert "ticketq/__init__.py" in got and "ticketq/viper.py" in got
    for dest, src in pkg["urls"]:
        with open(os.path.join(lib, dest), "rb") as a, open(os.path.join(root, src), "rb") as b:
            assert a.read() == b.read(), dest
    env = dict(os.environ, HOME=home)
    env.pop("MICROPYPATH", None)  # the port's default path: ~/.micropython/lib is on it
    code = ("import ticketq\nq = ticketq.TicketQueue(4)\nq.push(5, ticketq.LOW)\nq.push(6, ticketq.HIGH)\n"
            "from ticketq.ticks import Deadline\nimport ticketq.lanes\n"
            "print(ticketq.__version__, ticketq.__file__, q.pop(), q.pop())")
    p = subprocess.run([exe, "-c", code], cwd=home, env=env, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == [pkg["version"], os.path.join(lib, "ticketq", "__init__.py"), "6", "5"], p.stdout


def test_mpremote_mip_install_from_a_checkout(tmp_path=None):
    root, mpunix, exe = _setup()
    import tempfile

    home = str(tmp_path) if tmp_path else tempfile.mkdtemp()
    lib = _mip(root, mpunix, home, "./package.json")
    _check_installed(root, exe, home, lib)


def test_mpremote_mip_install_over_http(tmp_path=None):
    root, mpunix, exe = _setup()
    import functools
    import http.server
    import tempfile
    import threading

    home = str(tmp_path) if tmp_path else tempfile.mkdtemp()

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *a):
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=root))
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    try:
        lib = _mip(root, mpunix, home, "http://127.0.0.1:%d/package.json" % srv.server_address[1])
    finally:
        srv.shutdown()
        srv.server_close()
    _check_installed(root, exe, home, lib)


def test_the_stand_in_board_says_when_a_soft_reset_ended_it(tmp_path=None):
    # mpremote without `resume` soft-resets, which ends the unix port: `ticketq mpunix
    # --serve` then served a dead interpreter, silently, until Ctrl-C. It says so and exits 1.
    root, mpunix, exe = _setup()
    import os
    import subprocess
    import sys
    import tempfile

    home = str(tmp_path) if tmp_path else tempfile.mkdtemp()
    srv = subprocess.Popen([sys.executable, "-m", "ticketq_tools.cli", "mpunix", "--serve", "--home", home],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = None
        while url is None:
            line = srv.stdout.readline()
            assert line, srv.stderr.read()  # it ended before serving
            url = ([w for w in line.split() if w.startswith("socket://")] or [None])[0]
        p = subprocess.run([sys.executable, "-m", "mpremote", "connect", url, "resume", "exec", "print(6*7)"],
                           capture_output=True, text=True, timeout=60)
        assert p.stdout.strip() == "42", p.stdout + p.stderr  # resume: it stays up
        subprocess.run([sys.executable, "-m", "mpremote", "connect", url, "exec", "print(1)"],
                       capture_output=True, text=True, timeout=60)
        assert srv.wait(30) == 1
        err = srv.stderr.read()
        assert "soft reset" in err and "resume" in err, err
    finally:
        if srv.poll() is None:
            srv.kill()
            srv.wait()
