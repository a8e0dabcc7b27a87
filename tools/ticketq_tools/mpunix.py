#!/usr/bin/env python3
"""Run the library's test modules on the MicroPython unix port: the third interpreter of
`./tools/test`, beside CPython and the WebAssembly VM.

    ticketq mpunix                                # every tests/test_*.py
    ticketq mpunix test_queue_order               # chosen modules
    ticketq mpunix --where                        # which interpreter it would use, and why
    ticketq mpunix --bytecode ...                 # ticketq's bytecode path forced (the
                                                  # default there is the viper one)
    ticketq mpunix --c ...                        # ticketq's C path: the C core's x86 .mpy
                                                  # (ticketq firmware natmod x86) on MICROPYPATH;
                                                  # exit 2 if it cannot be built or does not load
    ticketq mpunix --c-builtin ...                # ticketq's C path built in: the unix port
                                                  # built from ../shared/mcu with the C core
                                                  # compiled in (ticketq firmware unix, cached)
                                                  # instead of the shared binary; exit 2 if it
                                                  # cannot be built or ticketq takes another path
    ticketq mpunix --serve [--home DIR]           # its REPL as a board for mpremote, at
                                                  # socket://127.0.0.1:PORT (until Ctrl-C, or
                                                  # a soft reset ends it: use `resume`)

The interpreter is, in this order: $MICROPYTHON, `micropython` on PATH, or
`../shared/micropython/micropython` beside this repository (a 32-bit build, v1.29-preview:
31-bit small ints, ticks wrapping at 2**30, heap_lock, viper and native emitters, asyncio,
sockets; the closest interpreter here to an rp2 or esp32 board). When none is found it says
so and exits 0 with `--skip-missing` (how tools/test calls it: the stage is reported as
skipped, never passed over silently), else 2; a $MICROPYTHON that names no executable is
always an error (2, saying ERROR, not SKIPPED: SKIPPED is only ever printed with exit 0).

It runs `micropython tests/mprun.py MODULE ...` with MICROPYPATH set to the frozen modules
(asyncio), tests/, lib/ and firmware/, so the very modules CPython's pytest collects are
imported and their test_* functions called, one line each, then `N passed, N failed, N
skipped`; with --quiet the PASS and SKIP lines are left out (failures, their tracebacks, any
other output and the closing line stay: how tools/test calls it unless -v). Exit status: 0
no test failed and at least one ran; 1 a test failed, or the interpreter ran no test (it
printed no closing line, e.g. MICROPYTHON=/bin/true, or counted nothing: then mpunix prints
"ran no test" and "0 passed, 1 failed, 0 skipped"); 2 usage or no interpreter; 3 the run did
not finish within --timeout seconds.
"""
import argparse
import contextlib
import os
import re
import shutil
import subprocess
import sys
import threading

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tools/, this package's parent
sys.path.insert(0, HERE)
from ticketq_tools import libnames  # noqa: E402  (lib/'s module names: the viper one --bytecode blocks)
ROOT = os.path.dirname(HERE)
TESTS = os.path.join(ROOT, "tests")
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared", "micropython", "micropython"))


def find():
    """(path, how) of the MicroPython unix port to use, or (None, what was looked for)."""
    env = os.environ.get("MICROPYTHON")
    if env:
        path = shutil.which(env) or (env if os.access(env, os.X_OK) else None)
        if path:
            return path, "$MICROPYTHON"
        return None, "$MICROPYTHON=%s is not an executable" % env
    path = shutil.which("micropython")
    if path:
        return path, "micropython on PATH"
    if os.access(SHARED, os.X_OK):
        return SHARED, "../shared/micropython beside the repository"
    return None, "no $MICROPYTHON, no micropython on PATH, no %s" % SHARED


def micropypath(extra=()):
    # .frozen first: the shared build freezes asyncio; then what mprun imports.
    dirs = [".frozen", TESTS, os.path.join(ROOT, "lib"), os.path.join(ROOT, "firmware")]
    return ":".join(dirs + [os.path.abspath(d) for d in extra])


CLOSING = re.compile(r"^(\d+) passed, (\d+) failed, (\d+) skipped$")


def run(modules, timeout=300, paths=(), exe=None, bytecode=False, quiet=False):
    """Runs tests/mprun.py on the unix port, passing its lines on (with `quiet`, not the
    PASS and SKIP lines: failures and the closing line). Returns 0 only when the
    interpreter exited 0 AND printed mprun's closing line with at least one test counted:
    an interpreter that prints nothing (MICROPYTHON=/bin/true) ran no test, and fails (1)."""
    exe = exe or find()[0]
    env = dict(os.environ, MICROPYPATH=micropypath(paths))
    cmd = [exe, os.path.join(TESTS, "mprun.py")] + (["--bytecode"] if bytecode else []) + list(modules)
    closing = None
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    fired = []

    def expire():
        fired.append(True)
        proc.kill()

    timer = threading.Timer(timeout, expire)
    timer.start()
    try:
        for raw in proc.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            m = CLOSING.match(line)
            if m:
                closing = tuple(int(g) for g in m.groups())
            if not (quiet and line.startswith(("SKIP ", "PASS "))):
                print(line, flush=True)
        code = proc.wait()
    finally:
        timer.cancel()
    if fired:
        print("mpunix: the run did not finish within %d s" % timeout, flush=True)
        return 3
    if closing is None:
        print("mpunix: ran no test: %s exited %d without mprun's closing line "
              "'N passed, N failed, N skipped' (is it a MicroPython unix port?)" % (exe, code), flush=True)
        print("0 passed, 1 failed, 0 skipped", flush=True)
        return 1
    if not sum(closing):
        print("mpunix: ran no test", flush=True)
        return 1
    return code if code else (1 if closing[1] else 0)


@contextlib.contextmanager
def board(home, exe=None, ended=None):
    """The unix port's REPL as a stand-in board for mpremote (raw REPL, a filesystem with
    folders, os.stat: what `mpremote fs` and `mpremote mip install` need): the interpreter
    runs on a pseudo-terminal, and every byte is passed as it is between that terminal and
    one client at a time on a loopback TCP port. Yields the mpremote connect string,
    "socket://127.0.0.1:PORT". HOME is `home`, so its sys.path's lib folder (what `mip
    install` picks) is home/.micropython/lib. The interpreter is killed on exit. A soft
    reset (ctrl-D in the raw REPL: mpremote without `resume`) ends the unix port, where a
    board restarts; then `ended` (a threading.Event), if given, is set."""
    import pty
    import select
    import socket
    import threading
    import tty

    exe = exe or find()[0]
    if not exe:
        raise OSError("no MicroPython unix port: %s" % find()[1])
    master, slave = pty.openpty()
    tty.setraw(slave)  # bytes as they are, as on a UART: no "\n" -> "\r\n", no echo
    env = dict(os.environ, HOME=os.path.abspath(home))
    env.pop("MICROPYPATH", None)  # the port's own default: .frozen:~/.micropython/lib:...
    proc = subprocess.Popen([exe], stdin=slave, stdout=slave, stderr=slave, cwd=home, env=env,
                            close_fds=True, start_new_session=True)
    os.close(slave)
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    stop = threading.Event()

    def pump():
        conn = None
        while not stop.is_set():
            watch = [srv, master] + ([conn] if conn else [])
            try:
                ready = select.select(watch, [], [], 0.2)[0]
                if srv in ready:
                    if conn:
                        conn.close()
                    conn = srv.accept()[0]
                if master in ready:
                    data = os.read(master, 4096)  # nobody connected: dropped, as on a wire
                    if conn:
                        conn.sendall(data)
                if conn and conn in ready:
                    data = conn.recv(4096)
                    if data:
                        os.write(master, data)
                    else:
                        conn.close()
                        conn = None
            except OSError:
                if proc.poll() is not None:
                    if ended is not None:
                        ended.set()
                    break
                if conn:
                    conn.close()
                conn = None
        if conn:
            conn.close()

    t = threading.Thread(target=pump, daemon=True)
    t.start()
    try:
        yield "socket://127.0.0.1:%d" % srv.getsockname()[1]
    finally:
        stop.set()
        proc.kill()
        proc.wait()
        t.join(2)
        srv.close()
        os.close(master)


def main(argv=None):
    p = argparse.ArgumentParser(description="Run test modules on the MicroPython unix port.")
    p.add_argument("modules", nargs="*", help="test modules (default: every tests/test_*.py)")
    p.add_argument("--where", action="store_true", help="print the interpreter it would use and exit")
    p.add_argument("--skip-missing", action="store_true", help="no interpreter: say so, exit 0")
    p.add_argument("--quiet", "-q", action="store_true",
                   help="leave out the PASS and SKIP lines (failures and the closing count stay)")
    p.add_argument("--path", action="append", default=[], help="another folder of modules")
    p.add_argument("--timeout", type=float, default=300.0)
    p.add_argument("--bytecode", action="store_true",
                   help="force ticketq's bytecode path (block ticketq.viper: ticketq's docstring, Hot paths)")
    p.add_argument("--c", action="store_true",
                   help="ticketq's C path: build the C core's x86 .mpy (cached) and put it on MICROPYPATH")
    p.add_argument("--c-builtin", action="store_true",
                   help="ticketq's C path on the unix port built with the C core compiled in (ticketq firmware unix)")
    p.add_argument("--serve", action="store_true",
                   help="serve the REPL as a stand-in board for mpremote at socket://127.0.0.1:PORT")
    p.add_argument("--home", default=".", help="with --serve: its HOME and working folder (default .)")
    a = p.parse_args(argv)
    if not a.timeout > 0:
        p.error("--timeout must be > 0 seconds")
    exe, how = find()
    if a.c_builtin:
        if a.bytecode or a.c:
            p.error("--c-builtin, --c and --bytecode: one path at a time")
        from ticketq_tools import unixport
        try:
            exe, how = unixport.build(log=lambda s: print(s, flush=True)), "ticketq firmware unix, the C core built in"
        except (unixport.UnixError, unixport.mpsource.McuError) as e:
            print("== MicroPython unix port: ERROR, no unix port with the C core built in: %s" % e, flush=True)
            return 2
    if exe is None:
        # a $MICROPYTHON that was set but is wrong is a mistake to report, not a skip: SKIPPED
        # is only ever printed with exit 0 (tools/test counts a stage that ran no test as
        # failed unless it said SKIPPED and exited 0)
        if a.skip_missing and not os.environ.get("MICROPYTHON"):
            print("== MicroPython unix port: SKIPPED, none found (%s)" % how, flush=True)
            return 0
        print("== MicroPython unix port: ERROR, %s" % how, flush=True)
        return 2
    if a.c:
        if a.bytecode:
            p.error("--c and --bytecode: one path at a time")
        from ticketq_tools import ccore
        try:
            a.path.append(os.path.dirname(ccore.build("x86", log=lambda s: print(s, flush=True))))
        except (ccore.NatmodError, ccore.mpsource.McuError) as e:
            print("== MicroPython unix port: ERROR, no C core to test: %s" % e, flush=True)
            return 2
    # The path is asked of ticketq itself: a 64-bit port's default is bytecode, not viper.
    probe = ("import sys; print('%d.%d.%d' % sys.implementation.version[:3], 32 if sys.maxsize < 2**32 else 64)\n"
             + (libnames.block_viper() + "\n" if a.bytecode else "")
             + "import ticketq; print(ticketq.PATH)"
             # built in: _ticketq has no __file__ (a .mpy on the path would have one)
             + ("; import _ticketq; print(getattr(_ticketq, '__file__', 'builtin'))" if a.c_builtin else ""))
    out = subprocess.run([exe, "-c", probe], capture_output=True, text=True,
                         env=dict(os.environ, MICROPYPATH=micropypath(a.path))).stdout.split()
    version = "%s, %s-bit" % tuple(out[:2]) if len(out) >= 2 else "(version unknown)"
    path = out[2] if len(out) == 3 + a.c_builtin else "unknown"
    if a.c_builtin and path == "c" and out[3] != "builtin":
        print("== MicroPython unix port: ERROR, --c-builtin but _ticketq came from %s" % out[3], flush=True)
        return 2
    if (a.c or a.c_builtin) and path != "c":
        # a C run that quietly ran another path would prove nothing about the C core
        print("== MicroPython unix port: ERROR, --c but ticketq's path is %s (ticketq.WHY: %s)" % (
            path, subprocess.run([exe, "-c", "import ticketq; print(ticketq.WHY)"], capture_output=True, text=True,
                                 env=dict(os.environ, MICROPYPATH=micropypath(a.path))).stdout.strip()), flush=True)
        return 2
    print("== MicroPython unix port %s (%s): %s; ticketq's %s" % (
        version, how, exe, "bytecode path forced, not the viper path" if a.bytecode
        else "C path (the C core built in)" if a.c_builtin
        else "default (%s) path" % path), flush=True)
    if a.where:
        return 0
    if a.serve:
        import threading

        ended = threading.Event()
        with board(a.home, exe, ended) as url:
            print("mpremote connect %s resume ...   (Ctrl-C stops it)" % url, flush=True)
            try:
                while not ended.wait(1):
                    pass
            except KeyboardInterrupt:
                return 0
        print("mpunix: the unix port ended: a soft reset ends it (mpremote without `resume`, "
              "or ctrl-D); connect with `resume`", file=sys.stderr)
        return 1
    mods = a.modules or sorted(f[:-3] for f in os.listdir(TESTS)
                               if f.startswith("test_") and f.endswith(".py"))
    return run(mods, a.timeout, a.path, exe, a.bytecode, a.quiet)


if __name__ == "__main__":
    sys.exit(main())
