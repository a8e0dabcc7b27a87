#!/usr/bin/env python3
"""Run the library's MicroPython test modules (tests/test_*.py, through tests/mprun.py) on a
target, with a non-zero exit when a test fails.

    tools/devtest.py                               # the host MicroPython VM (tools/mpvm)
    tools/devtest.py --target host test_ticks      # the same, chosen modules
    tools/devtest.py --emulate microbit            # an emulated micro:bit (QEMU), fresh
    tools/devtest.py --connect /dev/ttyACM0        # a board: its profile is the one whose
    tools/devtest.py --connect u0 --board esp32    #   NAME is its sys.platform, or --board

On a board: the profile's library files and board.py go on with tools/deploy.py
(verified), then tests/support.py and tests/mprun.py, stripped like the library. Then, one module at a time: the test module
(and any library or firmware module it imports that the profile does not put on) is written
and verified, the board is soft-reset for a fresh heap (the micro:bit's 1.9.2 firmware has
no sys.modules to unload with), and
    import mprun
    mprun.run(["MODULE"])
    mprun.report()
runs through mpremote's raw REPL under a timeout, its output streamed. The PASS / FAIL /
SKIP lines and mprun's closing line are counted; a module that prints no closing line, runs
past the timeout, or cannot be compiled on the board (MemoryError: named with its stripped
size) counts as a failure. Test files are removed afterwards, and a soft reset leaves the
heap unlocked whatever a test did. The last line is `N passed, N failed, N skipped`.

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

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TESTS = os.path.join(ROOT, "tests")
sys.path.insert(0, HERE)

import deploy  # noqa: E402
from deploy import DeployError  # noqa: E402

CLOSING = re.compile(r"^(\d+) passed, (\d+) failed, (\d+) skipped$")
RUNNER = ["support.py", "mprun.py"]  # from tests/, on every board run


def find_module(mod, paths=()):
    for d in list(paths) + [TESTS]:
        path = os.path.join(d, mod + ".py")
        if os.path.isfile(path):
            return path
    return None


def all_modules():
    return sorted(f[:-3] for f in os.listdir(TESTS) if f.startswith("test_") and f.endswith(".py"))


def out(line=""):
    print(line, flush=True)


# ---- the host VM

def run_host(modules, timeout, paths=()):
    mods = modules or all_modules()
    node = os.environ.get("NODE", "node")
    cmd = [node, os.path.join(HERE, "mpvm", "run.mjs"), "--timeout", str(int(timeout))]
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


# mprun.run(["MOD"]) would import MOD itself, and MOD its library modules, each compiled
# where its import stands. On the micro:bit (MicroPython 1.9.2) a module compiled two
# imports deep (raw REPL -> MOD -> ticketq -> ticketq_heap) overflows the C stack:
# "RuntimeError: maximum recursion depth exceeded". So the project modules that MOD
# imports (library, firmware, support), then MOD, are imported first, each by a raw-REPL
# command of its own (a bigger command stays compiled in the heap while it runs: ~1.5 KB
# for one that loops over the imports), each after those it imports, with the heap free
# before it measured. A failure is reported as mprun.load reports it (ImportError:
# skipped; anything else: failed); otherwise mprun.run finds MOD loaded.
FREE = "import gc\ngc.collect()\nprint(gc.mem_free())"
RUN = 'import mprun\nmprun.run(["%s"])\nmprun.report()'


class ModuleRun:
    """One module's run: its output, line by line, as it streams in."""

    def __init__(self, mod):
        self.mod = mod
        self.buf = b""
        self.lines = []
        self.counts = [0, 0, 0]
        self.closing = None
        self.current = None  # the last test reported, to name where a timeout hit
        self.free = []  # [(module imported next, or None at the end, heap free before)]
        self.error = None

    def feed(self, b):
        self.buf += b.replace(b"\x04", b"")
        while b"\n" in self.buf:
            raw, self.buf = self.buf.split(b"\n", 1)
            self.line(raw.decode(errors="replace").rstrip("\r"))

    def flush(self):
        if self.buf:
            self.line(self.buf.decode(errors="replace").rstrip("\r"))
            self.buf = b""

    def line(self, line):
        m = re.match(r"^~(\S*) (\d+)$", line)
        if m:
            self.free.append((m.group(1) or None, int(m.group(2))))
            return
        self.lines.append(line)
        m = CLOSING.match(line)
        if m:
            self.closing = tuple(int(x) for x in m.groups())
            return  # only devtest's own closing line is printed
        for i, word in enumerate(("PASS ", "FAIL ", "SKIP ")):
            if line.startswith(word):
                self.counts[i] += 1
                self.current = line[5:].split(":")[0]
        out("  " + line)

    @property
    def heap_after(self):
        return self.free[-1][1] if self.free and self.free[-1][0] is None else None

    def failed_import(self):
        """(module, heap free before it) of the last import tried: the one that failed,
        when the module's import failed."""
        if self.free and self.free[-1][0] is not None:
            return self.free[-1]
        return None


def compile_failure(run, sizes):
    """A clear message when a module ran out of memory (or of C stack) being compiled."""
    if "FAIL " + run.mod not in run.lines:
        return None
    tb = []
    for line in run.lines[run.lines.index("FAIL " + run.mod) + 1:]:
        tb.append(line)
        if not line.startswith((" ", "Traceback")):
            break  # the exception line ends the traceback
    last = tb[-1] if tb else ""
    where = run.failed_import()
    if not where or not last.startswith(("MemoryError", "RuntimeError")):
        return None
    name, free = where
    frames = [m for m in (re.search(r'File "([^"]+)", line (\d+)', l) for l in tb) if m]
    kind = "MemoryError" if last.startswith("MemoryError") else "RuntimeError (C stack)"
    if frames and frames[-1].group(1) != "<stdin>":
        # raised while running a module: an import in it that devtest did not pre-import
        return "%s in %s line %s (%s B heap free before importing %s)" % (
            kind, frames[-1].group(1), frames[-1].group(2), free, name)
    return "%s compiling %s (%s B of stripped source; %s B heap free before)%s" % (
        kind, name, sizes.get(name, "?"), free, "" if name == run.mod else ", imported for " + run.mod)


def run_module(board, mod, preimport, timeout):
    """Import MOD (after `preimport`) and run it, on a board just soft-reset; returns a
    ModuleRun (.error set when the run did not end normally)."""
    from mpremote.transport import TransportError

    run = ModuleRun(mod)
    t = board.t
    try:
        for name in list(preimport) + [mod]:
            run.free.append((name, int(board.exec(FREE))))
            o, err = t.exec_raw("import %s" % name, timeout=timeout)
            if err:  # as mprun.load reports it
                err = err.decode(errors="replace").strip().splitlines()
                exc = err[-1] if err else "?"
                if exc.startswith("ImportError"):
                    why = exc.split(":", 1)[-1].strip()
                    run.line("SKIP %s: cannot import here (%s)" % (mod, why))
                else:
                    run.line("FAIL " + mod)
                    for line in err:
                        run.line(line)
                run.closing = (0, 0 if exc.startswith("ImportError") else 1, 1 if exc.startswith("ImportError") else 0)
                return run
        run.free.append((None, int(board.exec(FREE))))
        t.exec_raw_no_follow(RUN % mod)
        end = t.read_until(1, b"\x04", timeout=None, timeout_overall=timeout, data_consumer=run.feed)
        if not end.endswith(b"\x04"):
            run.flush()
            run.error = "timeout: no end after %.0f s%s" % (
                timeout, " (last reported: %s)" % run.current if run.current else " (no test reported)")
            return run
        run.flush()
        err = t.read_until(1, b"\x04", timeout=10)
        err = err[:-1].decode(errors="replace").strip() if err.endswith(b"\x04") else "(no error end)"
        if err:
            for line in err.splitlines():
                out("  " + line)
            run.error = "error escaped mprun: %s" % err.splitlines()[-1]
    except (TransportError, ValueError) as e:
        run.flush()
        run.error = "board did not run the command: %s" % e
    return run


def _free(board):
    try:
        return board.mem_free()
    except Exception:
        return "?"


def heap_report(board, prof):
    """Free heap after a soft reset, then after importing each library module of the
    profile in turn (at the top level, each after a gc.collect)."""
    board.soft_reset()
    base = _free(board)
    parts = ["%s B after a soft reset" % base]
    for rel in prof["FILES"]:
        name = os.path.basename(rel)
        if not name.endswith(".py") or not rel.startswith("lib/"):
            continue
        mod = name[:-3]
        try:
            board.exec("import %s" % mod, timeout=30)
        except Exception as e:
            msg = str(e).strip().splitlines()[-1:] or [repr(e)]
            parts.append("import %s: %s" % (mod, msg[0]))
            break
        parts.append("+%s %s B" % (mod, _free(board)))
    board.soft_reset()
    out("heap free (library): " + ", ".join(parts))


def stripped(path):
    with open(path, encoding="utf-8") as f:
        return deploy.strip_source(f.read(), path)


def run_board(board, prof, modules, args):
    """Deploy, then run the modules one by one. Returns a Tally."""
    tally = Tally()
    log = out if args.verbose else (lambda *a: None)
    extra = list(args.path) + [TESTS]  # where support (and --path modules) come from
    state = {}

    def setup():
        t0 = time.monotonic()
        # the library; firmware modules go on with the tests that import them (the
        # micro:bit's filesystem misbehaves when nearly full)
        res = deploy.deploy(board, prof, wipe=args.wipe, retries=args.retries, log=log,
                            only=lambda rel: not rel.startswith("firmware/"))
        have = {r.name.rsplit(".", 1)[0] for r in res if r.name.endswith((".py", ".mpy"))}
        size = sum(r.size for r in res)
        for name in RUNNER:
            data = stripped(os.path.join(TESTS, name)).encode()
            board.put(name, data, args.retries, log)
            size += len(data)
        room = board.room()
        out("deployed profile %s (library) + %s: %d B in %d files, verified (%.1f s)%s"
            % (prof["NAME"], " + ".join(RUNNER), size, len(res) + len(RUNNER), time.monotonic() - t0,
               "; filesystem: %d of %d usable chunks" % room if room else ""))
        state["have"] = have | {n[:-3] for n in RUNNER}
        state["restarts"] = board.restarts

    for rel, mod in deploy.missing_modules(prof):
        out("warning: %s imports %s, which profile %s does not list" % (rel, mod, prof["NAME"]))
    setup()
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
        files = [(mod + ".py", stripped(path))] + [(os.path.basename(p), stripped(p)) for p in extras]
        sizes = {n[:-3]: len(t) for n, t in files}
        for name, dep in deploy.import_order(path, extra):
            sizes.setdefault(name, len(stripped(dep)))
        preimport = [name for name, _ in deploy.import_order(path, extra)]
        out("== %s (%s)" % (mod, ", ".join("%s %d B" % (n, len(t)) for n, t in files)))
        note, run = "", None
        try:
            for name, text in files:
                board.put(name, text.encode(), args.retries, log)
            board.soft_reset()
            run = run_module(board, mod, preimport, args.timeout)
        except DeployError as e:
            note = "could not put it on the board: %s" % e
        except Exception as e:  # the board stopped answering to the soft reset
            note = "board lost: %s" % e
        secs = time.monotonic() - t0
        if run is None:
            p, f, s = 0, 1, 0
        else:
            p, f, s = run.closing or tuple(run.counts)
            note = compile_failure(run, sizes) or ""
            # mprun skips a module that cannot be imported (no asyncio here, ...); a
            # project module missing from the board is a deployment bug, not a skip
            for line in run.lines:
                m = re.match(r"SKIP (\S+): cannot import here \(no module named '(\w+)'\)", line)
                if m and deploy.project_module(m.group(2)):
                    s, f = s - 1, f + 1
                    note = "%s is a project module that profile %s does not put on the board" % (
                        m.group(2), prof["NAME"])
            if run.error:
                note = (note + "; " if note else "") + run.error
                f = max(f, run.counts[1]) + 1
            elif run.closing is None:
                note = (note + "; " if note else "") + "mprun printed no closing line"
                f += 1
            elif run.closing != tuple(run.counts):
                note += " (closing line %r, lines counted %r)" % (run.closing, tuple(run.counts))
            if run.free:
                lib = [fr for n, fr in run.free if n == mod]
                out("  heap free: %d B before the imports%s%s" % (
                    run.free[0][1], ", %d B before %s" % (lib[0], mod) if lib and len(run.free) > 2 else "",
                    ", %d B after it" % run.heap_after if run.heap_after is not None else ""))
        if note:
            out("  %s: %s" % ("FAIL " + mod if f else mod, note))
        tally.add(mod, p, f, s, secs, note)
        # back to a known state: a fresh heap (never left locked), no test files
        try:
            if board.restarts == state["restarts"]:
                board.recover() if (run is None or run.error) else board.soft_reset()
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
            for name in RUNNER:
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
    return 1 if tally.failed else 0


class EmulatedMicrobit:
    def __init__(self):
        import emu

        self.emu = emu.Emulator()

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
    p = argparse.ArgumentParser(description="Run the MicroPython test modules on a target.")
    p.add_argument("modules", nargs="*", help="test modules (default: the profile's TESTS, else all)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--target", choices=["host"], help="the host MicroPython VM (tools/mpvm; the default)")
    g.add_argument("--connect", "-c", metavar="URL", help="a board: mpremote connect string")
    g.add_argument("--emulate", choices=["microbit"], help="an emulated board (QEMU), started and stopped here")
    p.add_argument("--board", help="board profile (default: by the board's sys.platform)")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds per module on a board (default 120; "
                   "the whole run on the host VM, default 600)")
    p.add_argument("--retries", type=int, default=3, help="writes again of a file that fails its check")
    p.add_argument("--wipe", action="store_true", help="remove files that the profile does not list first")
    p.add_argument("--keep", action="store_true", help="leave the test files on the board")
    p.add_argument("--no-heap", dest="heap", action="store_false",
                   help="skip the free-heap measurement after importing the profile's modules")
    p.add_argument("--path", action="append", default=[], metavar="DIR",
                   help="also look for test modules in DIR (before tests/; repeatable)")
    p.add_argument("--verbose", "-v", action="store_true", help="show each file deployed")
    args = p.parse_args(argv)
    if not (args.connect or args.emulate):
        return run_host(args.modules, args.timeout if args.timeout != 120.0 else 600, args.path)
    sim = None
    try:
        if args.emulate:
            sim = EmulatedMicrobit()
            t0 = time.monotonic()
            url = sim.start()
            out("emulated micro:bit (QEMU + MicroPython 1.9.2) at %s, up in %.1f s" % (url, time.monotonic() - t0))
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
        import emu

        if not isinstance(e, (DeployError, emu.EmuError)):
            raise
        out("devtest: %s" % e)
        out("0 passed, 1 failed, 0 skipped")
        return 1
    finally:
        if sim:
            sim.stop()


if __name__ == "__main__":
    sys.exit(main())
