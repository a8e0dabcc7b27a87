#!/usr/bin/env python3
"""Run the library's test modules on the MicroPython unix port: the third interpreter of
`./tools/test`, beside CPython and the WebAssembly VM.

    python3 tools/mpunix.py                       # every tests/test_*.py
    python3 tools/mpunix.py test_queue_order      # chosen modules
    python3 tools/mpunix.py --where               # which interpreter it would use, and why
    python3 tools/mpunix.py --bytecode ...        # ticketq's bytecode path forced (the
                                                  # default there is the viper one)

The interpreter is, in this order: $MICROPYTHON, `micropython` on PATH, or
`../shared/micropython/micropython` beside this repository (a 32-bit build, v1.29-preview:
31-bit small ints, ticks wrapping at 2**30, heap_lock, viper and native emitters, asyncio,
sockets; the closest interpreter here to an rp2 or esp32 board). When none is found it says
so and exits 0 with `--skip-missing` (how tools/test calls it: the stage is reported as
skipped, never passed over silently), else 2; a $MICROPYTHON that names no executable is
always an error (2).

It runs `micropython tests/mprun.py MODULE ...` with MICROPYPATH set to the frozen modules
(asyncio), tests/, lib/ and firmware/, so the very modules CPython's pytest collects are
imported and their test_* functions called, one line each, then `N passed, N failed, N
skipped`. Exit status: the interpreter's (0 no test failed, 1 a test failed), 2 usage or no
interpreter, 3 the run did not finish within --timeout seconds.
"""
import argparse
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
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


def run(modules, timeout=300, paths=(), exe=None, bytecode=False):
    exe = exe or find()[0]
    env = dict(os.environ, MICROPYPATH=micropypath(paths))
    cmd = [exe, os.path.join(TESTS, "mprun.py")] + (["--bytecode"] if bytecode else []) + list(modules)
    try:
        return subprocess.call(cmd, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        print("mpunix: the run did not finish within %d s" % timeout, flush=True)
        return 3


def main(argv=None):
    p = argparse.ArgumentParser(description="Run test modules on the MicroPython unix port.")
    p.add_argument("modules", nargs="*", help="test modules (default: every tests/test_*.py)")
    p.add_argument("--where", action="store_true", help="print the interpreter it would use and exit")
    p.add_argument("--skip-missing", action="store_true", help="no interpreter: say so, exit 0")
    p.add_argument("--path", action="append", default=[], help="another folder of modules")
    p.add_argument("--timeout", type=float, default=300.0)
    p.add_argument("--bytecode", action="store_true",
                   help="force ticketq's bytecode path (block ticketq_viper: ticketq.pyi, Hot paths)")
    a = p.parse_args(argv)
    if not a.timeout > 0:
        p.error("--timeout must be > 0 seconds")
    exe, how = find()
    if exe is None:
        print("== MicroPython unix port: SKIPPED, none found (%s)" % how, flush=True)
        # a $MICROPYTHON that was set but is wrong is a mistake to report, not a skip
        return 0 if a.skip_missing and not os.environ.get("MICROPYTHON") else 2
    probe = "import sys; print('%d.%d.%d' % sys.implementation.version[:3], 32 if sys.maxsize < 2**32 else 64)"
    version = subprocess.run([exe, "-c", probe], capture_output=True, text=True).stdout.split()
    version = "%s, %s-bit" % tuple(version) if len(version) == 2 else "(version unknown)"
    print("== MicroPython unix port %s (%s): %s; ticketq's %s path" % (
        version, how, exe, "bytecode path forced, not the viper" if a.bytecode else "default (viper)"), flush=True)
    if a.where:
        return 0
    mods = a.modules or sorted(f[:-3] for f in os.listdir(TESTS)
                               if f.startswith("test_") and f.endswith(".py"))
    return run(mods, a.timeout, a.path, exe, a.bytecode)


if __name__ == "__main__":
    sys.exit(main())
