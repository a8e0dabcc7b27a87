#!/usr/bin/env python3
"""ticketq on microcontroller instruction sets: MicroPython's QEMU port built from
../shared/mcu (issue 18), three targets, every install route, driven over mpremote.

    ticketq mcu build [TARGET ...]          # firmware (both freezes) + mpy-cross, cached
    ticketq mcu where                       # the cache, the keys, what is built
    ticketq mcu test [--full]               # the stage of tools/test (see "The stage")
    ticketq mcu test --target armv7m --route mpy --bytecode test_queue_order
    ticketq mcu serve armv7m [--route frozen]   # a firmware under QEMU for mpremote, until Ctrl-C

Targets (the emulated board, its ISA, the real boards whose code generation it proves):

    armv6m   QEMU microbit (nRF51) built as a true Cortex-M0: Thumb-1, like RP2040 (rp2, Pico)
    armv7m   QEMU mps2-an385, Cortex-M3: Thumb-2, like stm32 boards and RP2350 (Pico 2)
    rv32imc  QEMU virt, RV32IMC: like ESP32-C3 (esp32 profile on a C3); Xtensa is not proven
    pico     the Raspberry Pi Pico itself (issue 32): MicroPython 1.28.0's rp2 port for RPI_PICO,
             ticketq's firmware (ticketq firmware rp2), in rp2040js (an RP2040 simulator from npm,
             cycle-counted), its USB CDC on a pty (tools/ticketq_tools/pico.py). Not in the
             default list (`test` and `mainjob` without --target run the QEMU ones): the pico
             stage of tools/test runs it alone, `--target pico`.

Firmware: MicroPython 1c3c201 (../shared/mcu/micropython-1c3c201.tar.xz) ports/qemu, with
the recipe and flags of ../shared/mcu/README.md, Debian's gcc-arm-none-eabi and
gcc-riscv64-unknown-elf, the project's manifest.py frozen (FROZEN_MANIFEST: a one-line
manifest `include("manifest.py", viper=True)`, or without viper). mpy-cross from the same
tree. Everything is cached under $TICKETQ_MCU_CACHE (default ~/.cache/ticketq/mcu), keyed
on a SHA-256 of the tarball, manifest.py, the lib/ files it freezes, the make flags and
the compiler's version: a warm run builds nothing. Builds run `make -j2`.

Install routes (how the library reaches the board):
    frozen        frozen with viper=True (ticketq.viper frozen as native code)
    frozen-c      frozen with viper=True, and ticketq's C core (c/ticketq_core.c, the module
                  _ticketq) compiled into the firmware as a user C module (c/micropython.mk;
                  on pico c/micropython.cmake): `import ticketq` takes the C path there
    frozen-nv     frozen without viper (bytecode only: ticketq.PATH is "bytecode")
    mpy           lib/'s modules (the package ticketq/) compiled by mpy-cross -march=TARGET (deploy.mpy_compile, the
                  route ticketq deploy takes for rp2/esp32/stm32) on a firmware with nothing
                  of ticketq frozen (the frozen-nv one, mounted first on sys.path)
    mount         lib/'s modules as source over `mpremote mount`, compiled on the board
    natmod        the mpy route plus the C core's native .mpy for TARGET (_ticketq.mpy,
                  ticketq firmware natmod: tools/ticketq_tools/ccore.py): ticketq's C path
Paths: "viper" (ticketq's default where ticketq.viper imports) and "bytecode"
(sys.modules["ticketq.viper"] = None first, as tests/mprun.py --bytecode); frozen-nv has the
bytecode path only; natmod and frozen-c the C path ("c") only (frozen-c: ticketq's default
where _ticketq is built in and passes ticketq.ccore's self-check; the run fails if ticketq
took another path, or if _ticketq came from anywhere but the firmware).

The test modules run through tests/mprun.py on the board, from a folder mounted with
`mpremote mount` that holds tests/ (and, by route, the library's .py or .mpy files, and
firmware/); before any test, the route is checked: ticketq and ticketq.viper must come
from where the route says (frozen: their frozen names, ticketq/__init__.py; mounted: `/remote`), and ticketq.PATH must
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

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tools/, this package's parent
ROOT = os.path.dirname(HERE)
TESTS = os.path.join(ROOT, "tests")
LIB = os.path.join(ROOT, "lib")
FIRMWARE = os.path.join(ROOT, "firmware")
MANIFEST = os.path.join(ROOT, "manifest.py")
RECIPE = "1"  # bump when the way a firmware is built changes (part of every key)
sys.path.insert(0, HERE)
from ticketq_tools import libnames  # noqa: E402  (lib/'s module names, read from manifest.py and the profiles)
from ticketq_tools.mpsource import (  # noqa: E402,F401  (the 1c3c201 tree, the cache, make: shared with ccore, unixport)
    CACHE, CDIR, CMAKE, CMOD_FILES, DEBIAN, SHARED, TARBALL, McuError, _file_sha, _locked, _make, _sha,
    _tool_version, mpy_cross, say, source_tree, tarball_sha, user_c_modules)
from ticketq_tools.board import answers as _answers  # noqa: E402  (shared with pico)


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
# MicroPython has on an RP2040 (and less than on an ESP32-C3), so that test_worker_shell's
# whole workload fits as on a board (with 140 KB it raised MemoryError; test_lanes_fair's
# logs need ~0.7 MB and skip below that, saying so). The MICROBIT board's RAM is 256 KB.
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
        # The port turns on Zba and Zcmp opcodes for the emitter that compiles viper code on
        # the board (mpconfigport.h, unconditionally): Debian's QEMU 7.2 has no Zcmp, so
        # any viper function compiled there killed the board (the mount route), and an
        # ESP32-C3 has neither extension. Built off, in a tree of its own (as ../shared/mcu's
        # README turns them off for mpy-cross with a plain -march=rv32imc).
        patch=[("ports/qemu/mpconfigport.h", "#define MICROPY_EMIT_RV32_ZBA       (1)",
                "#define MICROPY_EMIT_RV32_ZBA       (0)"),
               ("ports/qemu/mpconfigport.h", "#define MICROPY_EMIT_RV32_ZCMP      (1)",
                "#define MICROPY_EMIT_RV32_ZCMP      (0)")],
        qemu=["qemu-system-riscv32", "-machine", "virt", "-bios", "none", "-cpu", "rv32"]),
}
# The emulated Raspberry Pi Pico: not QEMU, not built from ../shared/mcu, but the same routes,
# paths and checks. Its firmware: tools/ticketq_tools/rp2.py (frozen: viper=True; frozen-nv
# without viper: both with the worker and boards/rp2-frozen frozen as on a shipped Pico);
# its mpy-cross the 1.28.0 tree's; its emulator tools/ticketq_tools/pico.py.
TARGETS["pico"] = dict(
    board="RPI_PICO", march="armv6m", emulator="rp2040js",
    isa="RP2040, Cortex-M0+, armv6m (Thumb-1), in rp2040js",
    proves="the Raspberry Pi Pico: the rp2 port's own firmware, ticketq frozen as ticketq firmware rp2 ships it",
    # a batch that has not ended after sim_limit emulated seconds is hung (the emulator
    # stops: the batch fails, or runs once more); the host timeout is only a backstop, as
    # a loaded machine slows rp2040js ten times and more (measured: 24 host s per emulated s
    # at load ~14 on 2 cores, against ~2.5 idle)
    sim_limit=600, timeout=7200)
QEMU_TARGETS = [t for t in TARGETS if "emulator" not in TARGETS[t]]
ROUTES = ["frozen", "frozen-nv", "mpy", "mount", "natmod", "frozen-c"]
# The user C module's files (make ports): staged into the cache before each build
QEMU_COMMON = ["-nographic", "-monitor", "null", "-semihosting"]


# ---- building (cached)


def frozen_sources(viper):
    """The files manifest.py freezes (libnames.manifest_files: its module(...) and
    package(...) lines; the viper ones only with viper=True), as repository paths."""
    try:
        return libnames.manifest_files(viper)
    except RuntimeError as e:
        raise McuError("%s: cannot key the build on its sources" % e)


def flags_key(target, viper, cmod=False):
    """(QEMU targets.) Key of what make cannot see change (it does not track flags): the tree, the board,
    the flags, the compiler. Names the build folder, so that a change of flags builds
    afresh while a change of the frozen sources rebuilds only the frozen code."""
    t = TARGETS[target]
    parts = [RECIPE, tarball_sha(), target, t["board"], viper, HEAP, " ".join(t["make_args"]()),
             _tool_version(t["gcc"]), repr(t.get("patch"))]
    if cmod:  # (only then: the keys of the builds without the C core stay what they were)
        parts.append("user C module _ticketq")
    return _sha(*parts)[:12]


def firmware_key(target, viper, cmod=False):
    """Key of a firmware: flags_key, manifest.py and every lib/ file it freezes (and with
    cmod, the C core's files)."""
    parts = [flags_key(target, viper, cmod), _file_sha(MANIFEST)]
    for rel in frozen_sources(viper):
        parts += [rel, _file_sha(os.path.join(ROOT, rel))]
    for name in CMOD_FILES if cmod else ():
        parts += [name, _file_sha(os.path.join(CDIR, name))]
    return _sha(*parts)[:16]


def fw_name(viper, cmod=False):
    return ("viper" if viper else "noviper") + ("-c" if cmod else "")


def target_mpy_cross(target, log=say):
    """The mpy-cross whose .mpy a target's firmware loads: the Pico's is its 1.28.0 tree's."""
    if target == "pico":
        from ticketq_tools import rp2

        return _rp2(rp2.mpy_cross, log)
    return mpy_cross(log)


def _rp2(fn, *args, **kw):
    from ticketq_tools import rp2

    try:
        return fn(*args, **kw)
    except rp2.BuildError as e:
        raise McuError("pico firmware: %s" % e)


def firmware(target, viper, log=say, cmod=False):
    """Path of firmware.elf for a target, with the manifest frozen (viper or not), and with
    cmod the C core compiled in (USER_C_MODULES: c/micropython.mk); built unless the cache
    has it for this key. (pico: the firmware.bin of ticketq firmware rp2, with cmod
    --user-c-module c/micropython.cmake.)"""
    if target == "pico":
        from ticketq_tools import rp2

        return _rp2(rp2.build, "rp2", viper, user_c_modules=(CMAKE,) if cmod else (), log=log)[0]["bin"]
    key = firmware_key(target, viper, cmod)
    out = os.path.join(CACHE, "fw", "%s-%s-%s.elf" % (target, fw_name(viper, cmod), key))
    if os.path.isfile(out):
        return out
    t = TARGETS[target]
    tree = source_tree(log, t.get("patch"))
    mpy_cross(log, tree)
    with _locked("build-" + target):
        if os.path.isfile(out):
            return out
        os.makedirs(os.path.dirname(out), exist_ok=True)
        man = os.path.join(CACHE, "fw", "manifest-%s.py" % ("viper" if viper else "noviper"))
        with open(man, "w") as f:
            f.write("include(%r%s)\n" % (MANIFEST, ", viper=True" if viper else ""))
        build = "build-%s-%s-%s" % (target, fw_name(viper, cmod), flags_key(target, viper, cmod))
        log("building %s firmware (%s, %s%s) -> %s" % (
            target, t["board"], "viper" if viper else "no viper", ", C core" if cmod else "",
            os.path.relpath(out, CACHE)))
        extra = [user_c_modules(build)] if cmod else []
        # The build folder is shared by every checkout on this machine (its C objects are
        # worth keeping), but not its frozen .mpy: makemanifest recompiles a module only when
        # its source is newer than the .mpy, and a clone whose lib/ is older than another
        # checkout's last build froze that checkout's ticketq.py (seen: an ImportError of a
        # module only the other branch had). They are compiled again on every build.
        shutil.rmtree(os.path.join(tree, "ports", "qemu", build, "frozen_mpy"), ignore_errors=True)
        secs = _make(["BOARD=" + t["board"], "BUILD=" + build, "FROZEN_MANIFEST=" + man, HEAP] + t["make_args"]()
                     + extra, os.path.join(tree, "ports", "qemu"), log)
        tmp = out + ".tmp"
        shutil.copyfile(os.path.join(tree, "ports", "qemu", build, "firmware.elf"), tmp)
        os.replace(tmp, out)
        log("built %s firmware (%s%s) in %.0f s" % (target, "viper" if viper else "no viper",
                                                   ", C core" if cmod else "", secs))
    return out


def build_all(targets, log=say):
    t0 = time.monotonic()
    done = {}
    for target in targets:
        for viper, cmod in ((True, False), (False, False), (True, True)):
            done[(target, fw_name(viper, cmod))] = firmware(target, viper, log, cmod)
    mpy_cross(log)
    return done, time.monotonic() - t0


# ---- running a firmware under QEMU, its UART on a pseudo-terminal for mpremote
# (as ../shared/mcu/README.md runs them). Not a loopback TCP port: there every small write
# waits for the other side's delayed ACK, ~50 ms per `mpremote mount` request (a file is
# read 249 B at a time), against ~3 ms over a pty: 0.3 s instead of 7.5 s to import
# ticketq from source.

def qemu_command(target, elf):
    t = TARGETS[target]
    exe = shutil.which(t["qemu"][0])
    if not exe:
        raise McuError("%s not found: apt-get install -y %s" % (t["qemu"][0], " ".join(DEBIAN)))
    return [exe] + t["qemu"][1:] + QEMU_COMMON + ["-serial", "pty", "-kernel", elf]


def emulator(target, fw):
    """The emulated board for a target (not started): Qemu, or the Pico (rp2040js)."""
    if target == "pico":
        from ticketq_tools import pico

        return pico.Pico(fw, sim_limit=TARGETS[target]["sim_limit"])
    return Qemu(target, fw)


class Qemu:
    """One firmware under QEMU; start() waits until its REPL answers on the pty. `url` is
    what `mpremote connect` takes (/dev/pts/N)."""

    def __init__(self, target, elf):
        self.target, self.elf, self.proc, self.url, self.log = target, elf, None, None, None

    def start(self, timeout=30.0, detach=False):
        from ticketq_tools import emu

        fd, self.log = tempfile.mkstemp(prefix="tq-qemu-", suffix=".log")

        def child():
            # The port's idle loop polls the UART: QEMU takes a whole core even while the
            # board waits for the host. Niced, so that mpremote (which must answer each
            # request of `mount` within the board's 1 s) is not starved on a busy machine.
            os.nice(10)
            if not detach:
                emu._set_pdeathsig()

        self.proc = subprocess.Popen(
            qemu_command(self.target, self.elf), stdin=subprocess.DEVNULL, stdout=fd,
            stderr=subprocess.STDOUT, start_new_session=detach, preexec_fn=child)
        os.close(fd)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self.proc.poll() is None:
            if not self.url:
                with open(self.log, errors="replace") as f:
                    m = re.search(r"char device redirected to (/dev/pts/\d+)", f.read())
                self.url = m.group(1) if m else None
            if self.url and _answers(self.url):
                return self
            time.sleep(0.1)
        code = self.proc.poll()
        with open(self.log, errors="replace") as f:
            said = f.read().strip()[-500:]
        self.stop()
        if code is None:
            raise McuError("%s firmware under QEMU: no REPL after %.0f s" % (self.target, timeout))
        raise McuError("%s: QEMU exited with code %s: %s" % (self.target, code, said))

    def stop(self):
        from ticketq_tools import emu

        emu.end(self.proc)
        self.proc = None
        if self.log and os.path.exists(self.log):
            os.remove(self.log)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


# mpremote as its CLI, with one change: the code `mpremote mount` puts on the board waits
# 1 s for each answer from the host (poll_in, begin), and on this 2-core machine shared with
# other work (load 9-11) the host was seen to miss that ("timeout waiting for remote"), after
# which the mount's framing is lost. The wait is made 10 s; nothing else differs.
PATIENT = ("import sys, mpremote.transport_serial as t\n"
           "t.fs_hook_code = t.fs_hook_code.replace('ipoll(1000)', 'ipoll(10000)')"
           ".replace('poll(1000)', 'poll(10000)')\n"
           "from mpremote.main import main\n"
           "sys.exit(main())\n")


def mpremote(url, *args, timeout=600, stdout=None):
    """`mpremote connect URL ARGS...` (the PyPI mpremote of .venv, its mount's wait for the
    host 10 s: PATIENT): (exit code, output); code None when it did not finish within
    `timeout` seconds. A connect that could not open the pty ("failed to access": the
    port's lock still held, seen once on a loaded machine right after the REPL check
    closed it) ran nothing on the board, so it is tried again, three times at most."""
    for _ in range(3):
        code, lines = _mpremote(url, args, timeout, stdout)
        if code == 0 or not any("failed to access" in line for line in lines[:3]):
            break
        time.sleep(1.0)
    return code, lines


def _mpremote(url, args, timeout, stdout):
    cmd = [sys.executable, "-c", PATIENT, "connect", url] + list(args)
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
    return firmware(target, route in ("frozen", "frozen-c"), log, route == "frozen-c")


def stage_dir(target, route, dest, log=say):
    """Fill `dest` with what `mpremote mount` gives the board on this route: tests/*.py,
    firmware/, and the library as source (mount) or mpy-cross -march=TARGET .mpy (mpy)."""
    from ticketq_tools import deploy

    # The test modules, their helpers and firmware/ go as bytecode .mpy from the same
    # mpy-cross (no -march: none has native code): `mpremote mount` reads files at ~3 KB/s
    # from the emulated board, and source is ~2x the size and is compiled there as well.
    # A module that mpy-cross refuses goes as source, for the board to report it.
    exe = target_mpy_cross(target, log)
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
    if route == "natmod":  # the C core's .mpy for this ISA beside the package's .mpy files
        from ticketq_tools import ccore
        try:
            shutil.copyfile(ccore.build(TARGETS[target]["march"], log=log), os.path.join(dest, "_ticketq.mpy"))
        except ccore.NatmodError as e:
            raise McuError("no C core for %s: %s" % (target, e))
    if route in ("mount", "mpy", "natmod"):
        # every module of lib/ at its path under lib/: the package as ticketq/
        for rel in libnames.lib_files():
            src = os.path.join(ROOT, rel)
            out = os.path.join(dest, rel[len("lib/"):])
            os.makedirs(os.path.dirname(out), exist_ok=True)
            if route == "mount":
                shutil.copyfile(src, out)
            else:
                data = deploy.mpy_compile(src, march=TARGETS[target]["march"], exe=exe)
                with open(out[:-3] + ".mpy", "wb") as f:
                    f.write(data)


# Where a viper run may get the bytecode path, with ticketq.WHY saying why, without failing:
# MicroPython 1c3c201 freezes armv6m viper code misaligned (docs/armv6m-frozen-viper.md),
# and ticketq.viper's self-check at import falls back to bytecode there: slower, right. The
# run's tests are then compared with the bytecode runs, and the stage prints the reason.
# Anywhere else a viper run on bytecode fails.
FALLBACK_OK = {("armv6m", "frozen")}

# On the board, before any test: where ticketq and ticketq.viper came from, and the path.
PROBE = """import sys
%s
%s
import ticketq
def _w(n):
    m = sys.modules.get(n)
    return 'blocked' if m is None and n in sys.modules else getattr(m, '__file__', '?') if m else 'absent'
def _c():
    # the C core: a built-in module is not in sys.modules and has no __file__
    if sys.modules.get('_ticketq', 0) is None:
        return 'blocked'
    try:
        import _ticketq
    except ImportError:
        return 'absent'
    return getattr(_ticketq, '__file__', 'builtin')
print('ROUTE %%s %%s %%s %%s %%s' %% (ticketq.PATH, _w('@MAIN@'), _w('@VIPER@'), sys.implementation._mpy >> 10, _c()))
print('WHY %%s' %% getattr(ticketq, 'PATH_WHY', getattr(ticketq, 'WHY', '-')))
del _w, _c
import mcu_stream
print(mcu_stream.line())
import mprun
mprun.run(%r)
mprun.report()
""".replace("'@MAIN@'", repr(libnames.MAIN)).replace("'@VIPER@'", repr(libnames.VIPER))


def expected_files(route):
    """Where ticketq must come from on a route: a predicate on its __file__."""
    if route.startswith("frozen"):  # a frozen module's __file__ is its frozen name
        return lambda f: f.endswith(".py") and not f.startswith("/")  # (ticketq/__init__.py)
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
        self.retried = 0  # batches run again after a transport fault
        self.fallback = None  # ticketq.WHY, where a viper run got the bytecode path (FALLBACK_OK)
        self.sim = None  # seconds of emulated time (the Pico: rp2040js says), else None

    @property
    def group(self):
        """The path its outcomes are compared within: the one ticketq took."""
        return "bytecode" if self.fallback else self.path

    @property
    def name(self):
        return "%s %s %s" % (self.target, self.route, self.path)

    @property
    def failed(self):
        return bool(self.problems) or any(v == "FAIL" for v in self.outcomes.values())


BATCH = 30  # test modules per mpremote call: each call starts on a freshly soft-reset heap


def run_on_board(run, log=say, timeout=None, verbose=False):
    """Start the route's firmware under QEMU, mount the route's folder and run, BATCH
    modules per `mpremote mount DIR exec ...` (each after a soft reset: a fresh heap, as
    fragments left by 30 modules can fail a 1 KB allocation on 192 KB), the probe, the op
    stream and the modules; fill `run`."""
    t0 = time.monotonic()
    # a batch's host seconds (the Pico: a backstop; its emulator stops itself at sim_limit).
    # On the C path CONFORM holds the differential fuzz (test_ccore_fuzz: thousands of
    # operations on the C and the bytecode class): at load ~20 on 2 cores one batch of it took
    # over 180 s under QEMU (niced), so its runs wait 600 s before a batch counts as hung.
    timeout = timeout or TARGETS[run.target].get("timeout", 600 if run.path == "c" else 180)
    elf = route_firmware(run.target, run.route, log)
    block = libnames.block_viper() if run.path == "bytecode" else ""
    # mounted routes: the folder first on sys.path by its name, so that __file__ says where
    # a module came from (a frozen module's is its bare name)
    mounted = "" if run.route.startswith("frozen") else "sys.path.insert(0, '/remote')"
    mods = list(run.modules)
    batches = [mods[i:i + BATCH] for i in range(0, len(mods), BATCH)] or [[]]
    show = (lambda l: log("  %6.1f %s" % (time.monotonic() - t0, l))) if verbose else None
    with tempfile.TemporaryDirectory(prefix="tq-mcu-") as tmp:
        stage_dir(run.target, run.route, tmp, log)
        for batch in batches:
            for attempt in (1, 2):
                with emulator(run.target, elf) as q:
                    rc, lines = mpremote(q.url, "mount", tmp, "exec", PROBE % (mounted, block, batch),
                                         timeout=timeout, stdout=show)
                end = (getattr(q, "summary", None) or "").split()  # the Pico: [pico] end SIM_S ...
                if len(end) >= 3:
                    run.sim = (run.sim or 0.0) + float(end[2])
                if any(l.startswith("[pico] limit") for l in getattr(q, "log", [])):
                    run.problems.append("%s..%s: no end within %g s of emulated time (board hung)" % (
                        batch[0], batch[-1], TARGETS[run.target]["sim_limit"]))
                # `mpremote mount` loses its framing when the host does not answer a request
                # within the board's 1 s (a loaded machine): the board says "timeout waiting
                # for remote" and nothing after it means anything. A transport fault, not a
                # test result: that batch runs once more on a fresh board, and it is said.
                # On a machine loaded far past its cores, a board and mpremote were also seen
                # to wait on each other for good, mpremote idle: the same fault, the same
                # remedy. A batch that hangs again fails (a crashed board hangs every time).
                # mpremote's host side can lose the same framing: its mount handler reads a
                # short reply and dies with "struct.error: unpack requires a buffer of 4
                # bytes" (seen once in 27 runs at load ~8): the same fault, the same remedy.
                lost = any("timeout waiting for remote" in l or "struct.error: unpack requires a buffer" in l
                           for l in lines)
                if attempt == 1 and (lost or rc is None):
                    run.retried += 1
                    log("  (%s: %s; running %s..%s again on a fresh board)" % (
                        run.name, "mpremote mount lost a request" if lost else
                        "no end within %d s" % timeout, batch[0] if batch else "", batch[-1] if batch else ""))
                    continue
                break
            parse(run, lines, rc)
            if rc is None:
                break
    run.secs = time.monotonic() - t0
    return run


def parse(run, lines, rc):
    """Fold one mpremote call's output into `run`."""
    want_file = expected_files(run.route)
    done = False
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
                why = [l[4:] for l in lines[i + 1:i + 2] if l.startswith("WHY ") and l[4:].strip("- ")]
                if run.path == "viper" and path == "bytecode" and why and (run.target, run.route) in FALLBACK_OK:
                    run.fallback = why[0]  # documented: right answers on the slower path
                else:
                    run.problems.append("ticketq.PATH is %r, not %r (%s)" % (
                        path, run.path, why[0] if why else "no reason given"))
            if not want_file(tq):
                run.problems.append("ticketq came from %s, not the %s route" % (tq, run.route))
            if path == "viper" and not want_file(tv):  # (after a fallback it is not loaded)
                run.problems.append("%s came from %s, not the %s route" % (libnames.VIPER, tv, run.route))
            # the C core on frozen-c: built in (a module with no __file__), not a .mpy
            tc = parts[5] if len(parts) > 5 else "?"
            if run.route == "frozen-c" and tc != "builtin":
                run.problems.append("_ticketq came from %s, not the firmware" % tc)
        elif line.startswith("STREAM "):
            if run.stream and run.stream != line:
                run.problems.append("the op stream gave %s, then %s" % (run.stream, line))
            run.stream = line
        else:
            m = re.match(r"(\d+) passed, (\d+) failed, (\d+) skipped$", line)
            if m:
                got = tuple(int(x) for x in m.groups())
                run.counts = tuple(a + b for a, b in zip(run.counts or (0, 0, 0), got))
                done = True
    if rc is None:
        run.problems.append("no end within the timeout (board hung or crashed)")
    elif not done:
        tail = [l for l in lines if l.strip()][-3:]
        run.problems.append("no 'N passed, N failed, N skipped' line (mpremote exit %s: %s)" % (
            rc, " | ".join(tail)))
    if not run.route_line:
        run.problems.append("no ROUTE line: ticketq did not import")
    if done and run.counts[0] + run.counts[1] == 0:
        run.problems.append("no tests ran")


# ---- the stage

# Run on every target, route and path: the heap_lock tests, the queue contract, the digest.
CONFORM = ["test_heaplock", "test_heaplock_all", "test_heaplock_guard", "test_lanes_heaplock",
           "test_lanes_keyed_heaplock",
           "test_deadline_heaplock", "test_wait_heaplock", "test_queue_api", "test_queue_errors",
           "test_queue_badargs", "test_digest", "test_paths", "test_ccore_fuzz"]
# The (route, path) pairs that run every test module (the rest run CONFORM): the frozen
# firmware, as a board ships it, on both paths: one route per target and path. (Every
# module on every route, --full, takes ~3x as long: over the 10 minutes the stage may add.)
FULL_ROUTES = [("frozen", "viper"), ("frozen", "bytecode")]
# The emulated Pico runs ~2.5 host s per emulated s on an idle core (../shared/rp2): the
# whole list (114 modules) does not fit the stage's bound there (measured at load ~12 on 2
# cores: the modules up to test_deploy_options took 5.4 min on the frozen route, then
# test_differential's fuzzing ran over 10 min and was stopped; CONFORM and the op stream
# took 25.8 s of emulated time, frozen, bytecode). Its shipped firmware (frozen, viper) runs CONFORM and
# these, the modules a board's own code exercises (the micro:bit's device list, the worker,
# aging, wraparound, the viper guard); every route and path runs CONFORM. The whole list on
# the Pico: ticketq mcu test --target pico --full (not in tools/test).
PICO_MORE = ["test_boot", "test_queue_order", "test_queue_remove", "test_queue_raise", "test_queue_seq",
             "test_queue_renumber", "test_queue_sift", "test_queue_model_small", "test_queue_edges",
             "test_queue_wrap", "test_aging", "test_ticks", "test_ticks_clock", "test_deadline",
             "test_deadline_arm", "test_wait_board", "test_worker", "test_worker_names", "test_lanes_board",
             "test_viper_guard"]
TARGETS["pico"]["more"] = {("frozen", "viper"): PICO_MORE}


def paths_of(route):
    return ["bytecode"] if route == "frozen-nv" else ["c"] if route in ("natmod", "frozen-c") else ["viper", "bytecode"]


def all_modules():
    return sorted(f[:-3] for f in os.listdir(TESTS) if f.startswith("test_") and f.endswith(".py"))


def host_stream():
    """The op stream's line on CPython (tests/mcu_stream.py): what every run must print."""
    code = ("import sys; sys.path[:0] = [%r, %r]; import mcu_stream; print(mcu_stream.line())"
            % (TESTS, LIB))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip()


# The frozen-c firmware freezes ticketq.viper as the frozen route does: on a FALLBACK_OK
# target its self-check refuses it there too, so the tests that compare the viper class with
# the bytecode one skip on that target's C run and pass on the others. On the C path, that
# (a SKIP there, a PASS elsewhere) is not a difference; a FAIL anywhere still fails the run.
NO_FROZEN_VIPER = {t for t, r in FALLBACK_OK if r == "frozen"}


def compare(runs):
    """{label: {run name: outcome}} of every test whose outcome differs between the runs of
    one path (viper; bytecode, forced or frozen without viper; c) on any target or route."""
    diffs = {}
    target_of = {r.name: r.target for r in runs}
    for path in ("viper", "bytecode", "c"):
        seen = {}
        for r in runs:
            if r.group != path:
                continue
            for label, out in r.outcomes.items():
                seen.setdefault(label, {})[r.name] = out
        for label, outs in seen.items():
            if len(set(outs.values())) > 1:
                if path == "c" and set(outs.values()) == {"PASS", "SKIP"} and all(
                        o == "PASS" or target_of[n] in NO_FROZEN_VIPER for n, o in outs.items()):
                    continue
                diffs[label] = outs
    return diffs


def stage(targets, routes, paths, full=False, modules=None, jobs=2, verbose=False, log=say):
    """Build (cached), run, compare. Returns (exit status, runs)."""
    from concurrent.futures import ThreadPoolExecutor

    t0 = time.monotonic()
    need = sorted({(t, r in ("frozen", "frozen-c"), r == "frozen-c") for t in targets for r in routes})
    for t, v, c in need:
        firmware(t, v, log, c)
    if "mpy" in routes:
        for t in targets:
            target_mpy_cross(t, log)
    caches = [CACHE] if any(t != "pico" for t in targets) else []
    if "pico" in targets:
        from ticketq_tools import rp2

        caches.append(rp2.CACHE)
    log("firmware ready in %.1f s (cache %s)" % (time.monotonic() - t0, ", ".join(caches)))
    want = host_stream()
    runs = []
    for t in targets:
        for r in routes:
            for p in paths_of(r):
                if p not in paths:
                    continue
                more = TARGETS[t].get("more")  # the Pico: CONFORM, and more on one route
                if modules or full or more is None:
                    mods = modules or (all_modules() if full or (r, p) in FULL_ROUTES else CONFORM)
                else:
                    mods = CONFORM + [m for m in more.get((r, p), []) if m not in CONFORM]
                runs.append(Run(t, r, p, mods))

    def one(run):
        try:
            run_on_board(run, log=log, verbose=verbose)
        except Exception as e:  # the run could not even start: a failure of this run
            run.problems.append("%s: %s" % (type(e).__name__, e))
        fails = [l for l, o in sorted(run.outcomes.items()) if o == "FAIL"]
        log("%-30s %3d passed, %d failed, %3d skipped  %5.1f s%s%s%s%s" % (
            run.name, *(run.counts or (0, 0, 0)), run.secs,
            " (%.1f s emulated)" % run.sim if run.sim is not None else "",
            "  (bytecode path: ticketq.WHY %s)" % run.fallback if run.fallback else "",
            "  (%d batch(es) run again after a transport fault)" % run.retried if run.retried else "",
            "" if not (fails or run.problems) else "  FAILED: " + "; ".join(
                sorted(set(run.problems)) + fails[:8] + (["..."] if len(fails) > 8 else []))))
        return run

    t1 = time.monotonic()
    with ThreadPoolExecutor(max(1, jobs)) as pool:
        list(pool.map(one, runs))
    bad = 0
    for run in runs:
        if run.stream != want:
            log("FAIL %s: op stream %r, CPython %r" % (run.name, run.stream, want))
            bad += 1
        if run.failed:
            bad += 1
    diffs = compare(runs)
    for label, outs in sorted(diffs.items()):
        log("DIFFERS %s: %s" % (label, ", ".join("%s %s" % (o, n) for n, o in sorted(outs.items()))))
    tot = [sum((r.counts or (0, 0, 0))[i] for r in runs) for i in range(3)]
    log("-- %d runs (%d targets x routes x paths) in %.0f s (+%.0f s firmware): %d passed, %d failed, "
        "%d skipped; op stream %s %s; %d tests differ between targets/routes; %d runs failed" % (
            len(runs), len(targets), time.monotonic() - t1, t1 - t0, tot[0], tot[1], tot[2],
            "identical on every run and CPython:" if all(r.stream == want for r in runs) else "DIFFERS from CPython's",
            want, len(diffs), sum(1 for r in runs if r.failed or r.stream != want)))
    return (1 if bad or diffs else 0), runs


# ---- the main job on each target, against the VM's

QEMU_NAMES = {"armv6m": "qemu-armv6m", "armv7m": "qemu-armv7m", "rv32imc": "qemu-rv32", "pico": "pico"}


def job_lines(argv, timeout=600):
    """(exit status, the lines of `ticketq run ARGV` that are the job's: every line but
    the "== ..." ones, which name the target, heap and times)."""
    p = subprocess.run([sys.executable, "-m", "ticketq_tools.cli", "run"] + argv, capture_output=True,
                       text=True, timeout=timeout)
    lines = [l for l in p.stdout.splitlines() if not l.startswith("==")]
    return p.returncode, lines, p.stdout + p.stderr


def main_job(targets, log=say):
    """ticketq run --emulate qemu-TARGET against ticketq run (the host VM): the same
    job lines and summary, exit 0. Returns the number of targets that differ or failed."""
    code, want, text = job_lines([])
    if code or not want:
        log("FAIL the main job on the VM: exit %s\n%s" % (code, text[-2000:]))
        return len(targets)
    bad = 0
    for t in targets:
        t0 = time.monotonic()
        code, got, text = job_lines(["--emulate", QEMU_NAMES[t]])
        if code == 0 and got == want:
            log("%-12s main job: %d lines, identical to the VM's (%.1f s)" % (
                QEMU_NAMES[t], len(got), time.monotonic() - t0))
            continue
        bad += 1
        diff = [(i + 1, a, b) for i, (a, b) in enumerate(zip(want, got)) if a != b]
        log("FAIL %s main job: exit %d, %d lines (VM %d), %d differ%s" % (
            QEMU_NAMES[t], code, len(got), len(want), len(diff) + abs(len(got) - len(want)),
            "".join("\n  line %d: VM %r\n  %s %r" % (n, a, " " * (len(QEMU_NAMES[t]) - 2), b)
                    for n, a, b in diff[:3])))
        if code:
            log("\n".join("  " + l for l in text.strip().splitlines()[-6:]))
    return bad


# ---- the C core's size in a firmware (issue 33 item 5)

def elf_size(elf, gcc):
    """(text, data, bss) of an ELF file, by binutils' size beside the target's gcc."""
    exe = gcc[:-len("gcc")] + "size"
    out = subprocess.run([exe, elf], capture_output=True, text=True, check=True).stdout.splitlines()
    return tuple(int(x) for x in out[1].split()[:3])


def sizes(target, log=say):
    """(flash without, flash with, RAM added) in bytes: the frozen (viper) firmware of
    `target` built without and with the C core compiled in (flash: text+data, RAM:
    data+bss), each built unless the cache has it."""
    if target == "pico":
        from ticketq_tools import rp2

        elfs = [_rp2(rp2.build, "rp2", True, user_c_modules=(CMAKE,) if c else (), log=log)[0]["elf"]
                for c in (False, True)]
        gcc = "arm-none-eabi-gcc"
    elif target == "unix":  # the 32-bit unix port of ticketq firmware unix
        from ticketq_tools import unixport

        try:
            elfs = [unixport.build(c, log=log) for c in (False, True)]
        except unixport.UnixError as e:
            raise McuError(str(e))
        gcc = unixport.CC
    else:
        elfs = [firmware(target, True, log, c) for c in (False, True)]
        gcc = TARGETS[target]["gcc"]
    (t0, d0, b0), (t1, d1, b1) = (elf_size(e, gcc) for e in elfs)
    return t0 + d0, t1 + d1, (d1 + b1) - (d0 + b0)


def size_line(target, log=say):
    """One line of `ticketq mcu size`: sizes(target), and the flash the C core adds."""
    f0, f1, ram = sizes(target, log)
    return ("%-8s flash (text+data) %8d B without the C core, %8d B with it: +%d B; RAM (data+bss) %+d B"
            % (target, f0, f1, f1 - f0, ram))


# ---- CLI

def main(argv=None):
    p = argparse.ArgumentParser(description="ticketq on MicroPython's QEMU firmware: armv6m, armv7m, rv32imc.")
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("build", help="build the firmware (both freezes) and mpy-cross; cached")
    s.add_argument("targets", nargs="*", help="armv6m, armv7m, rv32imc, pico (default: the QEMU ones)")
    s = sub.add_parser("where", help="the cache, each firmware's key and whether it is built")
    s = sub.add_parser("test", help="the stage: every target, route and path (see the module's doc)")
    s.add_argument("modules", nargs="*", help="test modules (default: CONFORM, all on FULL_ROUTES)")
    s.add_argument("--target", action="append", choices=list(TARGETS))
    s.add_argument("--route", action="append", choices=ROUTES)
    s.add_argument("--viper", dest="paths", action="append_const", const="viper", help="the viper path only")
    s.add_argument("--bytecode", dest="paths", action="append_const", const="bytecode", help="the bytecode path only")
    s.add_argument("--c", dest="paths", action="append_const", const="c", help="the C path only (routes natmod, frozen-c)")
    s.add_argument("--full", action="store_true", help="every test module on every route")
    s.add_argument("--jobs", "-j", type=int, default=2, help="emulators at a time (default 2)")
    s.add_argument("--verbose", "-v", action="store_true", help="every line the boards print")
    s = sub.add_parser("mainjob", help="ticketq run --emulate qemu-TARGET: the job lines must be the VM's")
    s.add_argument("--target", action="append", choices=list(TARGETS))
    s = sub.add_parser("size", help="the code size the C core adds: each firmware (frozen, viper) without and with it")
    s.add_argument("--target", action="append", choices=list(TARGETS) + ["unix"],
                   help="default: the QEMU targets; pico (ticketq firmware rp2), unix (ticketq firmware unix)")
    s = sub.add_parser("serve", help="one firmware under QEMU until Ctrl-C; prints its mpremote device")
    s.add_argument("target", choices=list(TARGETS))
    s.add_argument("--no-viper", action="store_true", help="the firmware frozen without viper=True")
    a = p.parse_args(argv)
    try:
        if a.cmd == "build":
            for t in a.targets or []:
                if t not in TARGETS:
                    p.error("no target %r (%s)" % (t, ", ".join(TARGETS)))
            done, secs = build_all(a.targets or QEMU_TARGETS)
            for (t, v), path in sorted(done.items()):
                say("%-8s %-10s %s" % (t, v, path))
            say("mpy-cross %s" % mpy_cross())
            say("%.1f s" % secs)
        elif a.cmd == "where":
            say("cache %s (TICKETQ_MCU_CACHE), tarball %s" % (CACHE, TARBALL))
            for t in QEMU_TARGETS:
                for v, c in ((True, False), (False, False), (True, True)):
                    path = os.path.join(CACHE, "fw", "%s-%s-%s.elf" % (t, fw_name(v, c), firmware_key(t, v, c)))
                    say("%-8s %-10s %s %s" % (t, fw_name(v, c), path,
                                              "built" if os.path.isfile(path) else "not built"))
        elif a.cmd == "test":
            if a.target == ["pico"]:
                say("== the emulated Raspberry Pi Pico (rp2040js; MicroPython 1.28.0 rp2 port, ticketq's firmware: "
                    "ticketq firmware rp2): ticketq mcu test --target pico")
            else:
                say("== microcontroller ISAs under QEMU (MicroPython 1c3c201 ports/qemu): ticketq mcu test")
            code, _ = stage(a.target or QEMU_TARGETS, a.route or ROUTES, a.paths or ["viper", "bytecode", "c"],
                            a.full, a.modules, a.jobs, a.verbose)
            return code
        elif a.cmd == "mainjob":
            say("== the main job on each QEMU target against the VM's: ticketq mcu mainjob")
            return 1 if main_job(a.target or QEMU_TARGETS) else 0
        elif a.cmd == "size":
            say("== the code size of ticketq's C core built in (user C module _ticketq): ticketq mcu size")
            for t in a.target or QEMU_TARGETS:
                say(size_line(t))
        elif a.cmd == "serve":
            with emulator(a.target, firmware(a.target, not a.no_viper)) as q:
                say("mpremote connect %s   (Ctrl-C stops it)" % q.url)
                try:
                    while q.proc.poll() is None:
                        time.sleep(1)
                except KeyboardInterrupt:
                    pass
        return 0
    except McuError as e:
        print("mcu: %s" % e, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
