# ticketq typecheck: pyright checks lib/ and firmware/ against each board's published
# MicroPython stubs (typecheck/<target>.txt). CPython only (pytest). The pyright runs skip
# visibly unless pyright is installed for this interpreter:
#   .venv/bin/pip install -r tools/typecheck-requirements.txt
# (then they take ~15 s, the first run a few more to pip-install the stubs from PyPI). The
# checks of typecheck/ itself always run. Nothing but support is imported at the top: the
# MicroPython runners skip this module.
from support import skip, IS_MICROPYTHON

INSTALL = ".venv/bin/pip install -r tools/typecheck-requirements.txt"


def _root():
    import os

    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _host_only():
    if IS_MICROPYTHON:
        skip("reads the repository and runs pyright (host only)")


def _targets():
    import glob
    import os

    return sorted(os.path.basename(p)[:-4] for p in glob.glob(os.path.join(_root(), "typecheck", "*.txt")))


def _need_pyright():
    _host_only()
    import importlib.util
    import shutil

    if importlib.util.find_spec("pyright") is None:
        skip("pyright not installed; to run the board type checks: " + INSTALL)
    if shutil.which("node") is None:
        skip("pyright needs Node.js (node) on PATH")


def _typecheck(*args):
    import os
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "ticketq_tools.cli", "typecheck"] + list(args),
                          capture_output=True, text=True, timeout=900, cwd=_root())


def test_every_target_pins_its_stubs_exactly():
    _host_only()
    import os

    assert set(_targets()) >= {"rp2", "esp32", "host", "microbit"}
    for t in _targets() + ["../tools/typecheck-requirements"]:
        with open(os.path.join(_root(), "typecheck", t + ".txt")) as f:
            reqs = [l.split("#")[0].strip() for l in f if l.split("#")[0].strip()]
        assert reqs, t
        for r in reqs:
            name, _, version = r.partition("==")
            assert name and version and not set(version) & set("<>=~*, "), (t, r)
        board = t.split("-")[0]
        assert board.startswith("..") or os.path.exists(os.path.join(_root(), "boards", board, "board.py")), t


def test_known_entries_still_name_lines_that_exist():
    # An entry whose line was edited away would silently match nothing: the line is checked
    # again by pyright, so the entry only needs removing (or updating, if still harmless).
    _host_only()
    import ast
    import os

    with open(os.path.join(_root(), "typecheck", "known.py")) as f:
        known = ast.literal_eval(f.read())
    assert known
    for k in known:
        assert k["kind"] in ("fp", "todo") and k["why"] and k["rule"].startswith("report"), k
        assert k["targets"] == "*" or (k["targets"] and set(k["targets"]) <= set(_targets())), k
        if k["file"] == "*":
            assert k["line"] is None and k.get("message"), k  # a stub defect: by message only
            continue
        with open(os.path.join(_root(), k["file"])) as f:
            lines = [l.strip() for l in f]
        assert k["line"] in lines, "typecheck/known.py: %s no longer has %r" % (k["file"], k["line"])


def test_lib_and_firmware_pass_on_every_board():
    _need_pyright()
    p = _typecheck()
    assert p.returncode == 0, p.stdout[-4000:] + p.stderr[-2000:]
    rows = [l.split() for l in p.stdout.splitlines()]
    table = {r[0]: r for r in rows if r and r[0] in _targets()}
    assert sorted(table) == _targets(), p.stdout
    for t, r in table.items():
        assert int(r[1]) >= 10 and r[2] == "0", r  # files checked, no new finding
    assert "matched nothing" not in p.stdout, p.stdout


BAD = """import time
import micropython
import machine
import socket
import asyncio
from ticketq.ticks import Deadline

time.ticks_ms(1)
time.monotonic()
micropython.heap_lock(1)
machine.Pin(2, machine.Pin.OUT)
Deadline(10, None, 3)
"""


def test_it_catches_what_a_board_lacks():
    # The stubs are the board's and only the board's: CPython has time.monotonic, socket and
    # asyncio; the micro:bit has no machine.Pin and no asyncio, the WebAssembly VM no
    # machine, a Pico (not W) no socket.
    _need_pyright()
    import os
    import shutil
    import tempfile

    d = tempfile.mkdtemp()
    try:
        path = os.path.join(d, "bad_probe.py")
        with open(path, "w") as f:
            f.write(BAD)
        p = _typecheck("--files", path)
    finally:
        shutil.rmtree(d)
    assert p.returncode == 1, p.stdout + p.stderr
    found = {}
    for line in p.stdout.splitlines():
        if "bad_probe.py:" in line and ": error: " in line:
            where, _, rest = line.partition(": error: ")
            found[(int(where.split(":")[1]), rest.rsplit(" [", 1)[0])] = rest.rsplit(" [", 1)[1][:-1].split()

    every = _targets()

    def on(ln, text):
        for (l, msg), ts in found.items():
            if l == ln and text in msg:
                return sorted(ts)
        raise AssertionError("no finding %r on line %d in:\n%s" % (text, ln, p.stdout))

    assert on(8, "Expected 0 positional arguments") == every  # time.ticks_ms(1)
    assert on(9, '"monotonic" is not a known attribute of module "time"') == every
    assert on(10, "Expected 0 positional arguments") == every  # micropython.heap_lock(1)
    assert on(12, "Expected 2 positional arguments") == every  # Deadline: ticketq's own .pyi
    assert on(3, 'Import "machine" could not be resolved') == ["host"]
    assert on(5, 'Import "asyncio" could not be resolved') == ["microbit"]
    assert on(11, '"Pin" is not a known attribute of module "machine"') == ["microbit"]
    sock = on(4, 'Import "socket" could not be resolved')
    assert "rp2" in sock and "microbit" in sock and not any(t.startswith("esp32") for t in sock)
