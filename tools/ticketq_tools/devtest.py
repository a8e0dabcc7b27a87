#!/usr/bin/env python3
"""Run the library's MicroPython test modules (tests/test_*.py) on a target, with a
non-zero exit when a test fails.

    ticketq devtest                               # the host MicroPython VM (tools/mpvm)
    ticketq devtest --target host test_ticks      # the same, chosen modules
    ticketq devtest --emulate microbit            # an emulated micro:bit (QEMU), fresh, on
                                                   #   ticketq's firmware (ticketq firmware)
    ticketq devtest --connect /dev/ttyACM0        # a board: its profile is the one whose
    ticketq devtest --connect u0 --board esp32    #   NAME is its sys.platform, or --board

The host VM runs them through tests/mprun.py. A board runs no harness: the host drives the
tests itself, as the micro:bit (MicroPython 1.9.2, ~9.6 KB heap) has no RAM to spare for
one beside the library and a test module. The profile's library files and board.py go on
with ticketq deploy (verified), then the test helpers (tests/support.py, tests/qcheck.py),
stripped like the library. Then, one module at a time: the test module (and any library or
firmware module it imports that the profile does not put on) is written and verified, the
board is soft-reset for a fresh heap (the 1.9.2 firmware has no sys.modules to unload
with), the project modules it imports are imported one by one, each after those it
imports, then the module itself; then each of its test_* functions (read from its source
with `ast`, sorted as mprun does) is called by a raw-REPL command of its own,
    import gc;gc.collect();MODULE.test_x()
and what comes back says how it went: nothing raised: PASS; an exception whose traceback
ends in SkipTest: SKIP (with the reason); any other: FAIL (with the board's traceback); no
answer within the timeout: FAIL, and the board is interrupted and soft-reset, the module
imported again for the tests left. A module that cannot be imported (ImportError: skipped,
unless it names a project module) or compiled on the board (MemoryError: named with its
stripped size and the heap free before it) counts as a failure. Test files are removed
afterwards, and a soft reset leaves the heap unlocked whatever a test did. The last line is
`N passed, N failed, N skipped`; a run that counted no test at all exits 1 ("ran no test"),
never 0. --quiet leaves out each test's PASS and SKIP line (how tools/test calls it unless
-v); failures, the per-module table and the closing count stay. With --connect, no board at
that port (absent, busy, nothing answering the raw REPL) exits 4, tools/ticketq_tools/exitcodes.py's
UNREACHABLE, as tools/run and the gateway do; a usage error 2.

Modules: those named, else the profile's TESTS (the micro:bit has no room, asyncio or
hypothesis for most), else every tests/test_*.py.
"""

import argparse
import ast
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tools/, this package's parent
ROOT = os.path.dirname(HERE)
TESTS = os.path.join(ROOT, "tests")
sys.path.insert(0, HERE)

from ticketq_tools import deploy  # noqa: E402
from ticketq_tools import libnames  # noqa: E402  (lib/'s module names)
from ticketq_tools import exitcodes  # noqa: E402
from ticketq_tools.deploy import DeployError  # noqa: E402

sys.path.insert(0, TESTS)
from mprun import MAY_LACK  # noqa: E402  (the same rule as on the VM)

HELPERS = ["support.py", "qcheck.py"]  # from tests/: on the board for every module run


def find_module(mod, paths=()):
    for d in list(paths) + [TESTS]:
        path = os.path.join(d, mod + ".py")
        if os.path.isfile(path):
            return path
    return None


def all_modules():
    return sorted(f[:-3] for f in os.listdir(TESTS) if f.startswith("test_") and f.endswith(".py"))


QUIET = [False]  # --quiet: the PASS and SKIP lines of each test are left out


def out(line=""):
    if QUIET[0] and line.lstrip().startswith(("PASS ", "SKIP ")):
        return
    print(line, flush=True)


# ---- the host VM

def run_host(modules, timeout, paths=()):
    mods = modules or all_modules()
    node = os.environ.get("NODE", "node")
    cmd = [node, os.path.join(HERE, "mpvm", "run.mjs"), "--timeout", str(int(timeout))]
    if QUIET[0]:
        cmd.append("--quiet")
    for d in paths:
        cmd += ["--path", d]
    cmd += mods
    try:
        return subprocess.call(cmd)
    except OSError as e:
        out("devtest: cannot run %s: %s (Node.js 20 and `npm ci --prefix tools/mpvm`)" % (node, e))
        return 2


# ---- a board

class Tally:
    def __init__(self):
        self.passed = self.failed = self.skipped = 0
        self.rows = []  # (module, passed, failed, skipped, seconds, note)

    def add(self, mod, p, f, s, secs, note=""):
        self.passed += p
        self.failed += f
        self.skipped += s
        self.rows.append((mod, p, f, s, secs, note))


def test_names(path):
    """The test_* functions a module defines (at its top level, or under a top-level if or
    try), sorted: those mprun.run would call."""
    with open(path, encoding="utf-8") as f:
        todo = list(ast.parse(f.read(), path).body)
    names = set()
    while todo:
        node = todo.pop()
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
            names.add(node.name)
        elif isinstance(node, (ast.If, ast.Try)):
            todo += node.body + node.orelse + getattr(node, "finalbody", [])
            todo += [s for h in getattr(node, "handlers", []) for s in h.body]
    return sorted(names)


class Timeout(Exception):
    pass


def send(board, cmd, timeout):
    """Run a raw-REPL command: (output lines, traceback lines). Raises Timeout, or mpremote's
    TransportError when the board does not take the command. A command that comes back
    garbled (deploy.garbled: MicroPython 1.9.2 loses bytes that arrive while it is busy)
    did not run: it is sent again, twice at most."""
    t = board.t
    for attempt in range(3):
        t.exec_raw_no_follow(cmd)
        res = t.read_until(1, b"\x04", timeout=None, timeout_overall=timeout)
        err = t.read_until(1, b"\x04", timeout=10) if res.endswith(b"\x04") else b""
        if not err.endswith(b"\x04"):
            raise Timeout("no answer after %.0f s" % timeout)
        res, err = ([l.rstrip("\r") for l in b[:-1].decode(errors="replace").splitlines()] for b in (res, err))
        if attempt == 2 or not deploy.garbled(cmd, "\n".join(err)):
            return res, err
        board.garbled += 1


# On the micro:bit (MicroPython 1.9.2) a module compiled two imports deep (raw REPL -> MOD
# -> ticketq -> ticketq.core) overflows the C stack: "RuntimeError: maximum recursion depth
# exceeded". So the project modules that MOD imports (library, firmware, test helpers),
# each after those it imports, then MOD, are imported at the top level, each by a command
# of its own (a bigger command stays compiled in the heap while it runs), with the heap
# free before each measured.


def load(board, mod, preimport, timeout):
    """Import MOD, after `preimport`, on a board just soft-reset. Returns the heap free
    before each import and after the last, [(module, B)] ending with (None, B), and None;
    or, when an import failed, [(module, B or None)] up to that one and its traceback."""
    from mpremote.transport import TransportExecError

    free = []
    for name in list(preimport) + [mod]:
        try:
            free.append((name, None))
            free[-1] = (name, board.mem_free())
            err = send(board, "import " + name, timeout)[1]
        except TransportExecError as e:  # no heap left to parse even mem_free()
            err = e.error_output.strip().splitlines()
        except Timeout as e:
            err = ["Timeout: %s" % e]
        if err:
            return free, err
    free.append((None, board.mem_free()))
    return free, None


def import_failure(mod, free, err, sizes):
    """(skipped, note) for a module that did not import: why, in a line."""
    name, before = free[-1]
    last = err[-1] if err else "?"
    if last.startswith("ImportError"):  # as mprun.load has it: a skip only for MAY_LACK
        m = re.match(r"ImportError: no module named '([\w.]+)'", last)
        if m and deploy.project_module(m.group(1)):  # a deployment bug
            return False, "%s is a project module that the profile does not put on the board" % m.group(1)
        if m and m.group(1) in MAY_LACK:
            return True, "cannot import here (%s)" % last.split(":", 1)[-1].strip()
        return False, last
    if "parser could not allocate" in last:
        return False, "MemoryError: no heap left to parse a command, before importing %s%s" % (
            name, " (after %s)" % free[-2][0] if len(free) > 1 else "")
    frames = [m for m in (re.search(r'File "([^"]+)", line (\d+)', l) for l in err) if m]
    kind = last.split(":")[0] or "?"
    if kind.startswith("RuntimeError"):
        kind += " (C stack)" if "recursion" in last else ""
    if frames and frames[-1].group(1) != "<stdin>":
        # raised while running a module: its top-level code, or an import devtest did not see
        return False, "%s in %s line %s (%d B heap free before importing %s)" % (
            last, frames[-1].group(1), frames[-1].group(2), before, name)
    return False, "%s compiling %s (%s B of stripped source; %d B heap free before)%s" % (
        kind, name, sizes.get(name, "?"), before, "" if name == mod else ", imported for " + mod)


def run_module(board, mod, path, preimport, sizes, timeout):
    """Import MOD and call its tests, on a board just soft-reset: [passed, failed, skipped],
    a note, and whether the board needs recovering."""
    counts, note = [0, 0, 0], ""
    free, err = load(board, mod, preimport, timeout)
    if err:
        skipped, note = import_failure(mod, free, err, sizes)
        if skipped:
            out("  SKIP %s: %s" % (mod, note))
            return [0, 0, 1], "", False
        out("  FAIL " + mod)
        for line in err:
            out("    " + line)
        return [0, 1, 0], note, err[-1].startswith("Timeout")
    mine = [b for n, b in free if n == mod]
    out("  heap free: %d B before the imports%s, %d B after %s" % (
        free[0][1], ", %d B before %s" % (mine[0], mod) if len(free) > 2 else "", free[-1][1], mod))
    tests = test_names(path)
    for i, test in enumerate(tests):
        label = "%s.%s" % (mod, test)
        if i:
            # A fresh heap for every test: on a ~10 KB heap the garbage and fragments one
            # test leaves behind can stop the board parsing the next command.
            board.soft_reset()
            if load(board, mod, preimport, timeout)[1]:
                counts[1] += len(tests) - i
                return counts, "could not import %s again for %s" % (mod, ", ".join(tests[i:])), False
        try:
            res, err = send(board, "import gc;gc.collect();%s.%s()" % (mod, test), timeout)
        except Timeout as e:
            out("  FAIL %s: %s" % (label, e))
            counts[1] += 1
            if i + 1 == len(tests):
                return counts, note, True
            if board.recover() or load(board, mod, preimport, timeout)[1]:
                note = "not run after %s timed out: %s" % (test, ", ".join(tests[i + 1:]))
                return counts, note, False
            continue
        for line in res:
            out("    " + line)
        m = re.match(r"(?:\w+\.)*SkipTest\b:?\s*(.*)", err[-1]) if err else None
        if not err:
            out("  PASS " + label)
            counts[0] += 1
        elif m:
            out("  SKIP %s: %s" % (label, m.group(1)))
            counts[2] += 1
        else:
            out("  FAIL " + label)
            for line in err:
                out("    " + line)
            counts[1] += 1
    if not tests:
        note = "no test_* functions"
    return counts, note, False


def _free(board):
    try:
        return board.mem_free()
    except Exception:
        return "?"


USER_STEPS = [  # one raw-REPL command each (the interactive REPL keeps ~300 B more for itself)
    "_mine = bytearray(256)",  # their own objects, there before the library
    "import ticketq",
    "q = ticketq.TicketQueue(32)",
    "q.push(7, 2)\nassert q.pop() == 7",
]


def user_import(board, tally):
    """`import ticketq` the way a person does it at the board's REPL, checked before the
    test modules: after a soft reset and a command of their own that keeps 256 B, the
    command `import ticketq` (which imports ticketq.core itself, each
    compiled in turn), then a 32-slot queue used. On the micro:bit v1 that is the import that
    needs the most free heap; it counts as one test, "import ticketq"."""
    board.soft_reset()
    t0 = time.monotonic()
    try:
        for cmd in USER_STEPS:
            board.exec(cmd, timeout=30)
    except Exception as e:
        msg = (str(e).strip().splitlines()[-1:] or [repr(e)])[0]
        out("FAIL import ticketq at the REPL, after 256 B of the user's own: %s" % msg)
        tally.add("import ticketq", 0, 1, 0, time.monotonic() - t0, msg)
    else:
        out("import ticketq at the REPL, after 256 B of the user's own: ok, %s B free with"
            " a 32-slot queue" % _free(board))
        tally.add("import ticketq", 1, 0, 0, time.monotonic() - t0)
    board.soft_reset()


def heap_report(board, prof):
    """Free heap after a soft reset, then after importing each library module of the
    profile in turn (at the top level, each after a gc.collect)."""
    board.soft_reset()
    base = _free(board)
    parts = ["%s B after a soft reset" % base]
    for rel in prof["FILES"] + prof.get("FROZEN", []):
        if not rel.endswith(".py") or not rel.startswith("lib/"):
            continue
        mod = libnames.module_name(rel)  # "ticketq.core", "ticketq" (its __init__)
        try:
            board.exec("import %s" % mod, timeout=30)
        except Exception as e:
            msg = str(e).strip().splitlines()[-1:] or [repr(e)]
            parts.append("import %s: %s" % (mod, msg[0]))
            break
        parts.append("+%s %s B" % (mod, _free(board)))
    board.soft_reset()
    out("heap free (library): " + ", ".join(parts))


def _module(name):
    # the import name of a file's name on the board: "ticketq/core.mpy" -> "ticketq.core",
    # "ticketq/__init__.py" -> "ticketq", "worker.py" -> "worker"
    name = name.rsplit(".", 1)[0].replace("/", ".")
    return name[:-len(".__init__")] if name.endswith(".__init__") else name


def _on_board(path):
    # where a file a test needs goes: a library module at its place in the package
    rel = os.path.relpath(path, ROOT)
    return deploy.board_name(rel) if rel.startswith("lib" + os.sep) else os.path.basename(path)


def stripped(path):
    with open(path, encoding="utf-8") as f:
        return deploy.strip_source(f.read(), path)


def run_board(board, prof, modules, args):
    """Deploy, then run the modules one by one. Returns a Tally."""
    from mpremote.transport import TransportError

    tally = Tally()
    log = out if args.verbose else (lambda *a: None)
    extra = list(args.path) + [TESTS]  # where the helpers (and --path modules) come from
    state = {}

    def setup():
        t0 = time.monotonic()
        # the library; firmware modules go on with the tests that import them (the
        # micro:bit's filesystem misbehaves when nearly full)
        res = deploy.deploy(board, prof, wipe=args.wipe, retries=args.retries, log=log,
                            only=lambda rel: not rel.startswith("firmware/"))
        have = {_module(r.name) for r in res if r.name.endswith((".py", ".mpy"))}
        size = sum(r.size for r in res)
        for name in HELPERS:
            data = stripped(os.path.join(TESTS, name)).encode()
            board.put(name, data, args.retries, log)
            size += len(data)
        room = board.room()
        out("deployed profile %s (library) + %s: %d B in %d files, verified (%.1f s)%s"
            % (prof["NAME"], " + ".join(HELPERS), size, len(res) + len(HELPERS), time.monotonic() - t0,
               "; filesystem: %d of %d usable chunks" % room if room else ""))
        # a firmware with the library frozen in (profile FROZEN) has those modules already
        frozen = {_module(deploy.board_name(f)) for f in prof.get("FROZEN", ()) if f.endswith(".py")}
        state["have"] = have | frozen | {n[:-3] for n in HELPERS}
        state["restarts"] = board.restarts

    for rel, mod in deploy.missing_modules(prof):
        out("warning: %s imports %s, which profile %s does not list" % (rel, mod, prof["NAME"]))
    setup()
    if libnames.MAIN_FILE in prof["FILES"] + prof.get("FROZEN", []):
        user_import(board, tally)
    if args.heap:
        heap_report(board, prof)
    for i, mod in enumerate(modules):
        if board.restarts != state["restarts"]:
            out("  (the emulated board stopped answering and was started afresh: deploying again)")
            setup()
        path = find_module(mod, args.path)
        t0 = time.monotonic()
        if not path:
            out("FAIL %s: no such test module (tests/%s.py)" % (mod, mod))
            tally.add(mod, 0, 1, 0, 0.0, "missing")
            continue
        extras = deploy.needs(path, state["have"], extra)
        files = [(mod + ".py", stripped(path))] + [(_on_board(p), stripped(p)) for p in extras]
        order = deploy.import_order(path, extra)
        sizes = {name: len(stripped(dep)) for name, dep in order}
        sizes[mod] = len(files[0][1])
        out("== %s (%s)" % (mod, ", ".join("%s %d B" % (n, len(t)) for n, t in files)))
        recover = False
        try:
            for name, text in files:
                board.put(name, text.encode(), args.retries, log)
            board.soft_reset()
            (p, f, s), note, recover = run_module(board, mod, path, [n for n, _ in order], sizes, args.timeout)
        except DeployError as e:
            (p, f, s), note = (0, 1, 0), "could not put it on the board: %s" % e
        except (TransportError, Timeout, ValueError) as e:  # the board stopped answering
            (p, f, s), note, recover = (0, 1, 0), "board lost: %s" % e, True
        if note:
            out("  %s: %s" % ("FAIL " + mod if f else mod, note))
        tally.add(mod, p, f, s, time.monotonic() - t0, note)
        # back to a known state: a fresh heap (never left locked), no test files
        try:
            if board.restarts == state["restarts"]:
                board.recover() if recover else board.soft_reset()
            if board.restarts == state["restarts"] and not args.keep:
                have = set(board.files())
                for name, _ in files:
                    if name in have:
                        board.remove(name)
        except Exception as e:
            out("devtest: the board does not answer any more (%s); stopping" % e)
            for rest in modules[i + 1:]:
                tally.add(rest, 0, 1, 0, 0.0, "not run: board lost")
            return tally
    try:
        if not args.keep:
            have = set(board.files())
            for name in HELPERS:
                if name in have:
                    board.remove(name)
        board.soft_reset()  # leaves the heap fresh and unlocked
    except Exception as e:
        out("devtest: cleaning up: %s" % e)
    return tally


def pick_profile(board, name):
    if name:
        return deploy.read_profile(name)
    plat = board.info.get("platform")
    for cand in sorted(os.listdir(deploy.BOARDS)):
        try:
            prof = deploy.read_profile(cand)
        except DeployError:
            continue
        if prof["NAME"] == plat:
            return prof
    raise DeployError("no board profile named %r (the board's sys.platform): give --board" % plat)


def summary(tally, board_name):
    out("-- %s:" % board_name)
    for mod, p, f, s, secs, note in tally.rows:
        out("   %-26s pass %2d  fail %2d  skip %2d  %5.1f s%s" % (mod, p, f, s, secs, "  " + note if note else ""))
    out("%d passed, %d failed, %d skipped" % (tally.passed, tally.failed, tally.skipped))
    if not (tally.passed or tally.failed or tally.skipped):
        out("devtest: ran no test on %s" % board_name)  # never green with nothing run
        return 1
    return 1 if tally.failed else 0


class EmulatedMicrobit:
    def __init__(self, firmware=None):
        from ticketq_tools import emu

        self.emu = emu.Emulator(firmware=firmware)

    def start(self):
        self.emu.start()
        return self.emu.url

    def restart(self):
        self.emu.stop()
        self.emu.port = None
        return self.start()

    def stop(self):
        self.emu.stop()


def main(argv=None):
    from ticketq_tools import firmware  # FIRMWARES, for --firmware (stdlib imports only)

    p = argparse.ArgumentParser(description="Run the MicroPython test modules on a target.")
    p.add_argument("modules", nargs="*", help="test modules (default: the profile's TESTS, else all)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--target", choices=["host"], help="the host MicroPython VM (tools/mpvm; the default)")
    g.add_argument("--connect", "-c", metavar="URL", help="a board: mpremote connect string")
    g.add_argument("--emulate", choices=["microbit"], help="an emulated board (QEMU), started and stopped here")
    p.add_argument("--firmware", choices=firmware.FIRMWARES, default="ticketq",
                   help="with --emulate microbit: ticketq's own firmware, the library frozen in (ticketq firmware "
                        "microbit, built first if needed; profile microbit-frozen; the default and only choice: "
                        "Debian's stock hex is retired, it cannot compile the library, docs/microbit.md)")
    p.add_argument("--board", help="board profile (default: by the board's sys.platform)")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds per import or test on a board (default 120; "
                   "the whole run on the host VM, default 600)")
    p.add_argument("--retries", type=int, default=3, help="writes again of a file that fails its check")
    p.add_argument("--wipe", action="store_true", help="remove files that the profile does not list first")
    p.add_argument("--keep", action="store_true", help="leave the test files on the board")
    p.add_argument("--no-heap", dest="heap", action="store_false",
                   help="skip the free-heap measurement after importing the profile's modules")
    p.add_argument("--path", action="append", default=[], metavar="DIR",
                   help="also look for test modules in DIR (before tests/; repeatable)")
    p.add_argument("--verbose", "-v", action="store_true", help="show each file deployed")
    p.add_argument("--quiet", "-q", action="store_true",
                   help="leave out each test's PASS and SKIP line (failures, the per-module table and the "
                        "closing count stay)")
    args = p.parse_args(argv)
    QUIET[0] = args.quiet
    if args.board:
        try:  # a profile that does not exist is a usage error (exit 2), before any board
            deploy.read_profile(args.board)
        except DeployError as e:
            p.error(str(e))
    if not (args.connect or args.emulate):
        return run_host(args.modules, args.timeout if args.timeout != 120.0 else 600, args.path)
    sim = None
    try:
        if args.emulate:
            from ticketq_tools import firmware

            try:
                hex_path, prof_name = firmware.for_emulator(args.firmware, log=out)
            except firmware.BuildError as e:
                out("devtest: firmware: %s" % e)
                return 2 if e.code == 2 else 1
            args.board = args.board or prof_name
            sim = EmulatedMicrobit(hex_path)
            t0 = time.monotonic()
            url = sim.start()
            out("emulated micro:bit (QEMU + MicroPython 1.9.2, %s firmware) at %s, up in %.1f s" % (
                args.firmware, url, time.monotonic() - t0))
        else:
            url = args.connect
        with deploy.open_board(url, restart=sim.restart if sim else None) as board:
            prof = pick_profile(board, args.board or args.emulate)
            modules = args.modules or prof.get("TESTS") or all_modules()
            out("board %s at %s: MicroPython %s (%s), %d B heap free; %d test modules" % (
                prof["NAME"], url, ".".join(map(str, board.info["version"])), board.info["platform"],
                board.info["free"], len(modules)))
            t0 = time.monotonic()
            tally = run_board(board, prof, modules, args)
            if board.garbled:
                out("(%d commands reached the board garbled and were sent again)" % board.garbled)
            out("(%.1f s on the board)" % (time.monotonic() - t0))
            return summary(tally, prof["NAME"])
    except Exception as e:
        from ticketq_tools import emu

        if not isinstance(e, (DeployError, emu.EmuError)):
            raise
        out("devtest: %s" % e)
        out("0 passed, 1 failed, 0 skipped")
        # no board there (the port absent, nothing answering): exitcodes.UNREACHABLE, as
        # tools/run and the gateway; a board that failed: 1
        return exitcodes.UNREACHABLE if isinstance(e, deploy.Unreachable) else exitcodes.FAILED
    finally:
        if sim:
            sim.stop()


if __name__ == "__main__":
    sys.exit(main())
