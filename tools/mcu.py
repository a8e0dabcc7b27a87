#!/usr/bin/env python3
"""ticketq on microcontroller instruction sets: MicroPython's QEMU port built from
../shared/mcu (issue 18), three targets, every install route, driven over mpremote.

    tools/mcu.py build [TARGET ...]          # firmware (both freezes) + mpy-cross, cached
    tools/mcu.py where                       # the cache, the keys, what is built
    tools/mcu.py test [--full]               # the stage of tools/test (see "The stage")
    tools/mcu.py test --target armv7m --route mpy --bytecode test_queue_order
    tools/mcu.py serve armv7m [--route frozen]   # a firmware under QEMU for mpremote, until Ctrl-C

Targets (the emulated board, its ISA, the real boards whose code generation it proves):

    armv6m   QEMU microbit (nRF51) built as a true Cortex-M0: Thumb-1, like RP2040 (rp2, Pico)
    armv7m   QEMU mps2-an385, Cortex-M3: Thumb-2, like stm32 boards and RP2350 (Pico 2)
    rv32imc  QEMU virt, RV32IMC: like ESP32-C3 (esp32 profile on a C3); Xtensa is not proven

Firmware: MicroPython 1c3c201 (../shared/mcu/micropython-1c3c201.tar.xz) ports/qemu, with
the recipe and flags of ../shared/mcu/README.md, Debian's gcc-arm-none-eabi and
gcc-riscv64-unknown-elf, the project's manifest.py frozen (FROZEN_MANIFEST: a one-line
manifest `include("manifest.py", viper=True)`, or without viper). mpy-cross from the same
tree. Everything is cached under $TICKETQ_MCU_CACHE (default ~/.cache/ticketq/mcu), keyed
on a SHA-256 of the tarball, manifest.py, the lib/ files it freezes, the make flags and
the compiler's version: a warm run builds nothing. Builds run `make -j2`.

Install routes (how the library reaches the board):
    frozen        frozen with viper=True (ticketq_viper frozen as native code)
    frozen-nv     frozen without viper (bytecode only: ticketq.PATH is "bytecode")
    mpy           lib/*.py compiled by mpy-cross -march=TARGET (deploy.mpy_compile, the
                  route tools/deploy.py takes for rp2/esp32/stm32) on a firmware with nothing
                  of ticketq frozen (the frozen-nv one, mounted first on sys.path)
    mount         lib/*.py as source over `mpremote mount`, compiled on the board
Paths: "viper" (ticketq's default where ticketq_viper imports) and "bytecode"
(sys.modules["ticketq_viper"] = None first, as tests/mprun.py --bytecode); frozen-nv has the
bytecode path only.

The test modules run through tests/mprun.py on the board, from a folder mounted with
`mpremote mount` that holds tests/ (and, by route, the library's .py or .mpy files, and
firmware/); before any test, the route is checked: ticketq and ticketq_viper must come
from where the route says (frozen: `.frozen`; mounted: `/remote`), and ticketq.PATH must
be the path asked for.

The stage (`test`, what tools/test runs): on every target, route and path
  - the conformance set CONFORM (the heap_lock tests, the queue contract, the digest), and
    a fixed deterministic op stream (tests/mcu_stream.py) whose digest line must be the
    same everywhere, and the same as CPython's;
  - the full list of test modules on one route per target and path (FULL_ROUTES);
and every test's outcome (PASS/FAIL/SKIP by name) must be the same on every target and
route that ran it: a test that differs fails the stage, as does any FAIL. --full runs the
full list everywhere.
"""
import argparse
import contextlib
import hashlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TESTS = os.path.join(ROOT, "tests")
LIB = os.path.join(ROOT, "lib")
FIRMWARE = os.path.join(ROOT, "firmware")
MANIFEST = os.path.join(ROOT, "manifest.py")
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared", "mcu"))
TARBALL = os.environ.get("TICKETQ_MCU_TARBALL") or os.path.join(SHARED, "micropython-1c3c201.tar.xz")
CACHE = os.environ.get("TICKETQ_MCU_CACHE") or os.path.join(
    os.path.expanduser("~"), ".cache", "ticketq", "mcu")
RECIPE = "1"  # bump when the way a firmware is built changes (part of every key)
sys.path.insert(0, HERE)

DEBIAN = ["gcc-arm-none-eabi", "libnewlib-arm-none-eabi", "qemu-system-arm", "qemu-system-misc",
          "gcc-riscv64-unknown-elf", "picolibc-riscv64-unknown-elf"]


class McuError(RuntimeError):
    pass


def _rv32_libgcc():
    try:
        return subprocess.run(["riscv64-unknown-elf-gcc", "-march=rv32imac", "-mabi=ilp32",
                               "-print-libgcc-file-name"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        raise McuError("riscv64-unknown-elf-gcc not found: apt-get install -y %s" % " ".join(DEBIAN))


# The recipes of ../shared/mcu/README.md. make_args: what `make` gets beside BOARD, BUILD,
# FROZEN_MANIFEST and HEAP (evaluated when building).
# HEAP: the port's default GC heap is 140 KB; these builds get 192 KB, about what
# MicroPython has on an RP2040 (and less than on an ESP32-C3), so that the test modules
# that keep long logs of ops (test_paths, test_lanes_fair, test_worker_shell) fit as they
# do on a board: with 140 KB they raise MemoryError. The MICROBIT board's RAM is 256 KB.
HEAP = "MICROPY_HEAP_SIZE=196608"
TARGETS = {
    "armv6m": dict(
        board="MICROBIT", march="armv6m", gcc="arm-none-eabi-gcc",
        isa="Cortex-M0, armv6m (Thumb-1)", proves="RP2040 (rp2 profile: Raspberry Pi Pico)",
        make_args=lambda: ["MPY_CROSS_FLAGS=-march=armv6m",
                           "CFLAGS_EXTRA=-DMICROPY_EMIT_THUMB=1 -DMICROPY_EMIT_THUMB_ARMV7M=0 "
                           "-DMICROPY_EMIT_INLINE_THUMB_ARMV7M=0"],
        qemu=["qemu-system-arm", "-machine", "microbit", "-global", "nrf51-soc.flash-size=1048576",
              "-global", "nrf51-soc.sram-size=262144"]),
    "armv7m": dict(
        board="MPS2_AN385", march="armv7m", gcc="arm-none-eabi-gcc",
        isa="Cortex-M3, armv7m (Thumb-2)", proves="stm32 boards, RP2350 (rp2 profile: Pico 2)",
        make_args=lambda: [],
        qemu=["qemu-system-arm", "-machine", "mps2-an385"]),
    "rv32imc": dict(
        board="VIRT_RV32", march="rv32imc", gcc="riscv64-unknown-elf-gcc",
        isa="RISC-V RV32IMC", proves="ESP32-C3 (esp32 profile on a C3)",
        make_args=lambda: ["MPY_CROSS_FLAGS=-march=rv32imc", "LIBS=" + _rv32_libgcc()],
        qemu=["qemu-system-riscv32", "-machine", "virt", "-bios", "none", "-cpu", "rv32"]),
}
ROUTES = ["frozen", "frozen-nv", "mpy", "mount"]
QEMU_COMMON = ["-nographic", "-monitor", "null", "-semihosting"]


def say(line=""):
    print(line, flush=True)


# ---- building (cached)

def _sha(*parts):
    h = hashlib.sha256()
    for p in parts:
        h.update(p if isinstance(p, bytes) else str(p).encode())
        h.update(b"\0")
    return h.hexdigest()


def _file_sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def frozen_sources(viper):
    """The files manifest.py freezes (module("NAME", base_path="lib") lines; the viper one
    only with viper=True), as repository paths."""
    with open(MANIFEST) as f:
        text = f.read()
    out = []
    for line in text.splitlines():
        m = re.match(r'\s*module\("([^"]+)",\s*base_path="([^"]+)"\)', line)
        if m and (viper or m.group(1) != "ticketq_viper.py"):
            out.append(os.path.join(m.group(2), m.group(1)))
    if not out:
        raise McuError("manifest.py names no module(...): cannot key the build on its sources")
    return sorted(out)


def _tool_version(exe):
    try:
        return subprocess.run([exe, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    except (OSError, IndexError):
        raise McuError("%s not found: apt-get install -y %s" % (exe, " ".join(DEBIAN)))


_tar_sha = {}


def tarball_sha():
    if TARBALL not in _tar_sha:
        if not os.path.isfile(TARBALL):
            raise McuError("no %s: the MicroPython sources come from /work/shared/mcu (../shared/mcu)" % TARBALL)
        _tar_sha[TARBALL] = _file_sha(TARBALL)
    return _tar_sha[TARBALL]


def flags_key(target, viper):
    """Key of what make cannot see change (it does not track flags): the tree, the board,
    the flags, the compiler. Names the build folder, so that a change of flags builds
    afresh while a change of the frozen sources rebuilds only the frozen code."""
    t = TARGETS[target]
    return _sha(RECIPE, tarball_sha(), target, t["board"], viper, HEAP, " ".join(t["make_args"]()),
                _tool_version(t["gcc"]))[:12]


def firmware_key(target, viper):
    """Key of a firmware: flags_key, manifest.py and every lib/ file it freezes."""
    parts = [flags_key(target, viper), _file_sha(MANIFEST)]
    for rel in frozen_sources(viper):
        parts += [rel, _file_sha(os.path.join(ROOT, rel))]
    return _sha(*parts)[:16]


@contextlib.contextmanager
def _locked(name):
    import fcntl

    os.makedirs(CACHE, exist_ok=True)
    with open(os.path.join(CACHE, name + ".lock"), "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def source_tree(log=say):
    """The unpacked tarball (once per tarball hash): its top folder."""
    top = os.path.join(CACHE, "src-" + tarball_sha()[:16])
    tree = os.path.join(top, "micropython-1c3c201")
    with _locked("src"):
        if not os.path.isfile(os.path.join(top, ".unpacked")):
            shutil.rmtree(top, ignore_errors=True)
            os.makedirs(top)
            log("unpacking %s" % TARBALL)
            subprocess.run(["tar", "xJf", TARBALL, "-C", top], check=True)
            open(os.path.join(top, ".unpacked"), "w").close()
    return tree


def _make(args, cwd, log):
    cmd = ["make", "-j2"] + args
    t0 = time.monotonic()
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode:
        log(p.stdout[-4000:])
        raise McuError("make failed in %s: %s" % (cwd, " ".join(cmd)))
    return time.monotonic() - t0


def mpy_cross(log=say):
    """The mpy-cross built from the tarball's tree (cached per tarball)."""
    tree = source_tree(log)
    exe = os.path.join(tree, "mpy-cross", "build", "mpy-cross")
    with _locked("mpy-cross"):
        if not os.access(exe, os.X_OK):
            log("building mpy-cross (%s)" % os.path.relpath(tree, CACHE))
            secs = _make([], os.path.join(tree, "mpy-cross"), log)
            log("built mpy-cross in %.0f s" % secs)
    return exe


def firmware(target, viper, log=say):
    """Path of firmware.elf for a target, with the manifest frozen (viper or not); built
    unless the cache has it for this key."""
    key = firmware_key(target, viper)
    out = os.path.join(CACHE, "fw", "%s-%s-%s.elf" % (target, "viper" if viper else "noviper", key))
    if os.path.isfile(out):
        return out
    t = TARGETS[target]
    tree = source_tree(log)
    mpy_cross(log)
    with _locked("build-" + target):
        if os.path.isfile(out):
            return out
        os.makedirs(os.path.dirname(out), exist_ok=True)
        man = os.path.join(CACHE, "fw", "manifest-%s.py" % ("viper" if viper else "noviper"))
        with open(man, "w") as f:
            f.write("include(%r%s)\n" % (MANIFEST, ", viper=True" if viper else ""))
        build = "build-%s-%s-%s" % (target, "viper" if viper else "noviper", flags_key(target, viper))
        log("building %s firmware (%s, %s) -> %s" % (target, t["board"], "viper" if viper else "no viper",
                                                      os.path.relpath(out, CACHE)))
        secs = _make(["BOARD=" + t["board"], "BUILD=" + build, "FROZEN_MANIFEST=" + man, HEAP] + t["make_args"](),
                     os.path.join(tree, "ports", "qemu"), log)
        tmp = out + ".tmp"
        shutil.copyfile(os.path.join(tree, "ports", "qemu", build, "firmware.elf"), tmp)
        os.replace(tmp, out)
        log("built %s firmware (%s) in %.0f s" % (target, "viper" if viper else "no viper", secs))
    return out


def build_all(targets, log=say):
    t0 = time.monotonic()
    done = {}
    for target in targets:
        for viper in (True, False):
            done[(target, viper)] = firmware(target, viper, log)
    mpy_cross(log)
    return done, time.monotonic() - t0



# ---- running a firmware under QEMU, its UART on a loopback TCP port for mpremote

def qemu_command(target, elf, port):
    t = TARGETS[target]
    exe = shutil.which(t["qemu"][0])
    if not exe:
        raise McuError("%s not found: apt-get install -y %s" % (t["qemu"][0], " ".join(DEBIAN)))
    return [exe] + t["qemu"][1:] + QEMU_COMMON + [
        "-serial", "tcp:127.0.0.1:%d,server=on,wait=off,nodelay=on" % port, "-kernel", elf]


def _answers(url):
    from mpremote.transport_serial import SerialTransport

    try:
        t = SerialTransport(url, baudrate=115200, timeout=1)
    except Exception:
        return False
    try:
        t.enter_raw_repl(soft_reset=False, timeout_overall=2)
        return t.eval("1+1") == 2
    except Exception:
        return False
    finally:
        try:
            t.exit_raw_repl()
        except Exception:
            pass
        t.close()


class Qemu:
    """One firmware under QEMU; start() waits until its REPL answers over the socket."""

    def __init__(self, target, elf):
        self.target, self.elf, self.proc, self.port = target, elf, None, None

    @property
    def url(self):
        return "socket://127.0.0.1:%d" % self.port

    def start(self, timeout=30.0, detach=False):
        import emu

        for attempt in range(5):  # a free port may be taken before QEMU binds it
            self.port = emu._free_port()
            self.proc = subprocess.Popen(
                qemu_command(self.target, self.elf, self.port), stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=detach,
                preexec_fn=None if detach else emu._set_pdeathsig)
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline and self.proc.poll() is None:
                if _answers(self.url):
                    return self
                time.sleep(0.1)
            code = self.proc.poll()
            self.stop()
            if code is None:
                raise McuError("%s firmware under QEMU: no REPL after %.0f s" % (self.target, timeout))
        raise McuError("%s: QEMU exited with code %s" % (self.target, code))

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(3)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def mpremote(url, *args, timeout=600, stdout=None):
    """`mpremote connect URL ARGS...` (the PyPI mpremote of .venv): (exit code, output);
    code None when it did not finish within `timeout` seconds."""
    cmd = [sys.executable, "-m", "mpremote", "connect", url] + list(args)
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         errors="replace", start_new_session=True)
    lines = []

    def pump():
        for line in p.stdout:
            lines.append(line.rstrip("\r\n"))
            if stdout:
                stdout(lines[-1])

    import threading

    th = threading.Thread(target=pump, daemon=True)
    th.start()
    try:
        code = p.wait(timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        code = None
    th.join(5)
    return code, lines


# ---- install routes: what a route mounts, and which firmware it runs on

def route_firmware(target, route, log=say):
    return firmware(target, route == "frozen", log)


def stage_dir(target, route, dest, log=say):
    """Fill `dest` with what `mpremote mount` gives the board on this route: tests/*.py,
    firmware/, and the library as source (mount) or mpy-cross -march=TARGET .mpy (mpy)."""
    import deploy

    # The test modules, their helpers and firmware/ go as bytecode .mpy from the same
    # mpy-cross (no -march: none has native code): `mpremote mount` reads files at ~3 KB/s
    # from the emulated board, and source is ~2x the size and is compiled there as well.
    # A module that mpy-cross refuses goes as source, for the board to report it.
    exe = mpy_cross(log)
    for d in (TESTS, FIRMWARE):
        for fn in sorted(os.listdir(d)):
            src = os.path.join(d, fn)
            if fn.endswith(".py"):
                try:
                    data = deploy.mpy_compile(src, exe=exe)
                except deploy.DeployError:
                    shutil.copyfile(src, os.path.join(dest, fn))
                    continue
                with open(os.path.join(dest, fn[:-3] + ".mpy"), "wb") as f:
                    f.write(data)
            elif fn.endswith(".txt"):
                shutil.copyfile(src, os.path.join(dest, fn))
    if route in ("mount", "mpy"):
        for fn in sorted(os.listdir(LIB)):
            if not fn.endswith(".py"):
                continue
            src = os.path.join(LIB, fn)
            if route == "mount":
                shutil.copyfile(src, os.path.join(dest, fn))
            else:
                data = deploy.mpy_compile(src, march=TARGETS[target]["march"], exe=exe)
                with open(os.path.join(dest, fn[:-3] + ".mpy"), "wb") as f:
                    f.write(data)


# On the board, before any test: where ticketq and ticketq_viper came from, and the path.
PROBE = """import sys
%s
%s
import ticketq
def _w(n):
    m = sys.modules.get(n)
    return 'blocked' if m is None and n in sys.modules else getattr(m, '__file__', '?') if m else 'absent'
print('ROUTE %%s %%s %%s %%s' %% (ticketq.PATH, _w('ticketq'), _w('ticketq_viper'), sys.implementation._mpy >> 10))
print('WHY %%s' %% getattr(ticketq, 'PATH_WHY', getattr(ticketq, 'WHY', '-')))
del _w
import mcu_stream
print(mcu_stream.line())
import mprun
mprun.run(%r)
mprun.report()
"""


def expected_files(route):
    """Where ticketq must come from on a route: a predicate on its __file__."""
    if route.startswith("frozen"):  # a frozen module's __file__ is its bare name
        return lambda f: f.endswith(".py") and "/" not in f
    return lambda f: f.startswith("/remote")


class Run:
    """One run: a target, route, path, modules; filled from the board's output."""

    def __init__(self, target, route, path, modules):
        self.target, self.route, self.path, self.modules = target, route, path, modules
        self.outcomes = {}  # test label -> PASS/FAIL/SKIP
        self.counts = None  # (passed, failed, skipped) as mprun reports them
        self.stream = None
        self.problems = []  # why this run fails besides FAIL lines
        self.secs = 0.0
        self.route_line = ""

    @property
    def name(self):
        return "%s %s %s" % (self.target, self.route, self.path)

    @property
    def failed(self):
        return bool(self.problems) or any(v == "FAIL" for v in self.outcomes.values())


def run_on_board(run, log=say, timeout=900, verbose=False):
    """Start the route's firmware under QEMU, mount the route's folder, run the probe,
    the op stream and the modules; fill `run`."""
    t0 = time.monotonic()
    elf = route_firmware(run.target, run.route, log)
    block = "sys.modules['ticketq_viper'] = None" if run.path == "bytecode" else ""
    # mounted routes: the folder first on sys.path by its name, so that __file__ says where
    # a module came from (a frozen module's is its bare name)
    mounted = "" if run.route.startswith("frozen") else "sys.path.insert(0, '/remote')"
    code = PROBE % (mounted, block, list(run.modules))
    with tempfile.TemporaryDirectory(prefix="tq-mcu-") as tmp:
        stage_dir(run.target, run.route, tmp, log)
        with Qemu(run.target, elf) as q:
            rc, lines = mpremote(q.url, "mount", tmp, "exec", code, timeout=timeout,
                                 stdout=(lambda l: log("  %6.1f %s" % (time.monotonic() - t0, l))) if verbose else None)
    run.secs = time.monotonic() - t0
    parse(run, lines, rc)
    return run


def parse(run, lines, rc):
    want_file = expected_files(run.route)
    for i, line in enumerate(lines):
        if line.startswith("PASS "):
            run.outcomes[line[5:]] = "PASS"
        elif line.startswith("FAIL "):
            run.outcomes[line[5:].split(":")[0]] = "FAIL"
        elif line.startswith("SKIP "):
            run.outcomes[line[5:].split(":")[0]] = "SKIP"
        elif line.startswith("ROUTE "):
            run.route_line = line
            parts = line.split()
            path, tq, tv = parts[1], parts[2], parts[3]
            if path != run.path:
                why = [l for l in lines[i + 1:i + 2] if l.startswith("WHY ")]
                run.problems.append("ticketq.PATH is %r, not %r (%s)" % (
                    path, run.path, why[0][4:] if why else "no reason given"))
            if not want_file(tq):
                run.problems.append("ticketq came from %s, not the %s route" % (tq, run.route))
            if run.path == "viper" and not want_file(tv):
                run.problems.append("ticketq_viper came from %s, not the %s route" % (tv, run.route))
        elif line.startswith("STREAM "):
            run.stream = line
        else:
            m = re.match(r"(\d+) passed, (\d+) failed, (\d+) skipped$", line)
            if m:
                run.counts = tuple(int(x) for x in m.groups())
    if rc is None:
        run.problems.append("no end within the timeout (board hung or crashed)")
    elif rc != 0 and run.counts is None:
        tail = [l for l in lines if l.strip()][-3:]
        run.problems.append("mpremote exit %s: %s" % (rc, " | ".join(tail)))
    if not run.route_line:
        run.problems.append("no ROUTE line: ticketq did not import")
    if run.counts is None:
        run.problems.append("no 'N passed, N failed, N skipped' line")
    elif run.counts[0] + run.counts[1] == 0:
        run.problems.append("no tests ran")
