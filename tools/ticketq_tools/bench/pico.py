"""The benchmark on the emulated Raspberry Pi Pico (issue 32): ticketq's RP2040 firmware in
rp2040js, driven by mpremote over a pseudo-terminal, as tools/mcu.py drives the QEMU targets.

What it needs, each found at run time (none of it is in the repository):
  firmware  $TICKETQ_PICO_FIRMWARE (a firmware.bin, or a folder holding one), else
            `ticketq firmware rp2`'s build (ticketq_tools.rp2.build, cached; built if needed)
  rp2040js  $TICKETQ_RP2040JS (the package folder), else tools/pico/node_modules/rp2040js
            (tools/setup installs it)
  bootrom   $TICKETQ_RP2_BOOTROM, else ../shared/rp2/emu/bootrom.mjs beside the checkout
The emulator is tools/bench/pico_emu.mjs: rp2040js with a USB host that NAKs while it has
nothing to send, as a real one does (the file says why and what the stock host costs).

Time on the emulated chip: the firmware's time.ticks_us() is rp2040js's simulated clock,
which advances 8 ns (one cycle at 125 MHz) for every cycle its core model charges an
executed instruction, so cycles = microseconds x 125 (to 125 cycles: the tick is 1 us).
rp2040js's own `core.cycles` also counts 8 cycles for each hardware-divider operation that
the clock does not advance for (the SDK's divider code already waits for the result with
instructions); the figures here are the clock's.
"""
import json
import os
import pty
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import tty

from ticketq_tools.bench.common import HERE, ROOT

EMU = os.path.join(HERE, "pico_emu.mjs")
CYCLES_PER_US = 125  # the RP2040's 125 MHz, the clock rp2040js simulates


class PicoError(RuntimeError):
    pass


C_MODULE = os.path.join(ROOT, "c", "micropython.cmake")  # ticketq's C core as a user C module


def firmware(log=None, cmod=False):
    """(path of firmware.bin, what it is): $TICKETQ_PICO_FIRMWARE, else ticketq firmware rp2's.
    cmod: the firmware with the C core built in ($TICKETQ_PICO_C_FIRMWARE, else ticketq firmware
    rp2 --user-c-module c/micropython.cmake)."""
    var = "TICKETQ_PICO_C_FIRMWARE" if cmod else "TICKETQ_PICO_FIRMWARE"
    env = os.environ.get(var)
    if env:
        path = os.path.join(env, "firmware.bin") if os.path.isdir(env) else env
        if not os.path.isfile(path):
            raise PicoError("%s=%s: no firmware.bin there" % (var, env))
        info = {}
        beside = os.path.join(os.path.dirname(path), "info.json")  # a ticketq firmware rp2 build's
        if os.path.isfile(beside):
            with open(beside) as f:
                info = json.load(f)
        info.update({"from": "$" + var + (" (a ticketq firmware rp2 build)" if info else ""),
                     "sha256_bin": _sha(path)})
        return path, info
    try:
        from ticketq_tools import rp2
    except ImportError:
        raise PicoError("no Pico firmware: set TICKETQ_PICO_FIRMWARE to a firmware.bin built as "
                        "../shared/rp2/README.md says (this checkout has no ticketq firmware rp2)")
    try:
        paths, info, cached = rp2.build("rp2", viper=True, user_c_modules=(C_MODULE,) if cmod else (),
                                        log=log or (lambda m: None))
    except rp2.BuildError as e:
        raise PicoError("ticketq firmware rp2: %s" % e)
    info = dict(info, **{"from": "ticketq firmware rp2" + (" --user-c-module c/micropython.cmake" if cmod else "")
                         + (" (cached)" if cached else "")})
    return paths["bin"], info


def _sha(path):
    import hashlib

    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def rp2040js():
    env = os.environ.get("TICKETQ_RP2040JS")
    path = env or os.path.join(ROOT, "tools", "pico", "node_modules", "rp2040js")
    if not os.path.isfile(os.path.join(path, "package.json")):
        raise PicoError("no rp2040js at %s (tools/setup installs it in tools/pico; or set TICKETQ_RP2040JS "
                        "to the package's folder)" % path)
    return path


def bootrom():
    path = os.environ.get("TICKETQ_RP2_BOOTROM") or os.path.normpath(
        os.path.join(ROOT, "..", "shared", "rp2", "emu", "bootrom.mjs"))
    if not os.path.isfile(path):
        raise PicoError("no RP2040 bootrom at %s (../shared/rp2/emu/bootrom.mjs beside the checkout, or "
                        "$TICKETQ_RP2_BOOTROM)" % path)
    return path


def built_firmware():
    """The firmware.bin to run, without building anything: $TICKETQ_PICO_FIRMWARE, else
    ticketq firmware rp2's build when it is in its cache; None when there is none."""
    env = os.environ.get("TICKETQ_PICO_FIRMWARE")
    if env:
        path = os.path.join(env, "firmware.bin") if os.path.isdir(env) else env
        return path if os.path.isfile(path) else None
    try:
        from ticketq_tools import rp2

        if not os.path.isfile(os.path.join(rp2.CACHE, "src-" + rp2.source_key(), ".ready")):
            return None  # the sources are not even unpacked: nothing built
        key = rp2.firmware_key("rp2", True, (), rp2.epoch())
        path = os.path.join(rp2.out_dir("rp2", True, key), "firmware.bin")
    except Exception:  # no ticketq firmware rp2 here, or one whose cache is laid out otherwise
        return None
    return path if os.path.isfile(path) else None


def available():
    """None when the emulated Pico can run here, else why not (for tests that skip)."""
    try:
        if not shutil.which("node"):
            return "node not found"
        rp2040js()
        bootrom()
        if not os.environ.get("TICKETQ_PICO_FIRMWARE"):
            try:
                from ticketq_tools import rp2  # noqa: F401
            except ImportError:
                return "no Pico firmware (TICKETQ_PICO_FIRMWARE unset, no ticketq firmware rp2)"
    except PicoError as e:
        return str(e)
    return None


class Emulator:
    """One emulated Pico on a pty: `url` for `mpremote connect`; stop() ends it and sets
    `summary` (simulated s, CPU cycles, host s)."""

    def __init__(self, fw, host="quiet"):
        self.fw, self.host = fw, host
        self.proc = self.url = None
        self.log, self.summary = [], None
        self._fds, self._threads = [], []

    def start(self, timeout=90.0):
        from ticketq_tools.mcu import _answers

        if not shutil.which("node"):
            raise PicoError("node not found")
        master, slave = pty.openpty()
        tty.setraw(slave)  # a serial line: no echo, no line discipline
        self._fds = [master, slave]  # the slave stays open here: no EIO between mpremote calls
        self.url = os.ttyname(slave)

        def child():
            # below mpremote, which must answer a mount's requests in time (as tools/mcu.py's
            # QEMU); idle board time passes at host speed here (pico_emu.mjs), busy time as fast
            # as the host runs it: niceness changes how long a run takes, not its figures
            os.nice(5)

        self.proc = subprocess.Popen(["node", EMU, self.fw, "--bootrom=" + bootrom(), "--rp2040js=" + rp2040js(),
                                      "--host=" + self.host],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     bufsize=0, preexec_fn=child)
        for fn in (self._pump, self._stderr):
            th = threading.Thread(target=fn, daemon=True)
            th.start()
            self._threads.append(th)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self.proc.poll() is None:
            if any(line.startswith("[pico] usb") for line in self.log) and _answers(self.url):
                return self
            time.sleep(0.2)
        said = "\n".join(self.log[-8:])
        code = self.proc.poll()
        self.stop()
        raise PicoError("emulated Pico (%s): %s\n%s" % (
            self.fw, "no REPL after %.0f s" % timeout if code is None else "node exited %s" % code, said))

    def _pump(self):
        master, out = self._fds[0], self.proc.stdout.fileno()
        try:
            while self.proc.poll() is None:
                r, _, _ = select.select([master, out], [], [], 0.5)
                if master in r:
                    try:
                        data = os.read(master, 4096)
                    except OSError:
                        data = b""
                    if data:
                        self.proc.stdin.write(data)
                if out in r:
                    data = os.read(out, 4096)
                    if not data:
                        break
                    os.write(master, data)
        except (OSError, ValueError):
            pass  # closed by stop()

    def _stderr(self):
        for raw in self.proc.stderr:
            line = raw.decode(errors="replace").rstrip()
            if line.startswith("[pico] end "):
                self.summary = line
            self.log.append(line)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            try:
                self.proc.stdin.close()  # pico_emu.mjs prints its end line and exits
                self.proc.wait(5)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        for th in self._threads:
            th.join(2)
        self._threads = []
        for fd in self._fds:
            try:
                os.close(fd)
            except OSError:
                pass
        self._fds = []

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def run_pico(phases, timeout, host="quiet", log=None, cmod=False):
    """Run the plan's phases on one emulated Pico, each phase one mpremote command (so each
    starts from a soft reset: a fresh heap): ("exec", code, tag) runs code alone and keeps
    its last printed line under tag; ("steps", steps) runs steps (tools/bench's snippets)
    with tqbench.py and mp_worker.py over `mpremote mount`. [(step, ok, text)], with the
    firmware's description as the step ("x", "", ("fw",)). cmod: on the firmware with the C
    core built in (--interp pico-c)."""
    from ticketq_tools import mcu
    from ticketq_tools.bench.drivers import RunError, frames

    say = log or (lambda m: None)
    try:
        fw, info = firmware(say, cmod)
    except PicoError as e:
        raise RunError(str(e))
    out = [(("x", "", ("fw",)), True, repr(json.dumps(info, sort_keys=True)))]
    t0 = time.time()
    try:
        with Emulator(fw, host) as emu, tempfile.TemporaryDirectory(prefix="tq-bench-pico-") as tmp:
            for fn in ("tqbench.py", "mp_worker.py"):
                shutil.copyfile(os.path.join(HERE, fn), os.path.join(tmp, fn))
            for ph in phases:
                left = timeout - (time.time() - t0)
                if ph[0] == "exec":
                    code, lines = mcu.mpremote(emu.url, "exec", ph[1], timeout=left)
                    text = "\n".join(lines)
                    ok = code == 0 and "Traceback" not in text
                    out.append((("x", ph[1], ph[2]), ok, text))
                    say("   %s: %s" % (ph[2][0], lines[-1][:100] if lines else "(nothing)"))
                else:
                    steps = ph[1]
                    with open(os.path.join(tmp, "steps.json"), "w") as f:
                        json.dump([s[1] for s in steps], f)
                    seen = {"step": 0, "at": time.time()}

                    def progress(line):  # "\x02N" opens step N: a line every 30 s
                        if line.startswith("\x02") and line[1:].isdigit():
                            seen["step"] = int(line[1:])
                            if time.time() - seen["at"] >= 30:
                                seen["at"] = time.time()
                                say("   %d/%d steps, %.0f s" % (seen["step"], len(steps), time.time() - t0))

                    code, lines = mcu.mpremote(emu.url, "mount", tmp, "exec",
                                               "import json, mp_worker\nmp_worker.run(json.load(open('steps.json')))",
                                               timeout=left, stdout=progress)
                    if code != 0:
                        raise RunError("mpremote exited %s: %s" % (code, " | ".join(lines[-3:])))
                    out += frames("\n".join(lines), steps, "the emulated Pico")
            emu.stop()
            if emu.summary:
                out.append((("x", "", ("emu",)), True, repr(emu.summary)))
    except PicoError as e:
        raise RunError(str(e))
    return out
