#!/usr/bin/env python3
"""The emulated Raspberry Pi Pico (issue 32): ticketq's RP2040 firmware (ticketq firmware rp2)
in rp2040js (npm, pinned in tools/pico/package-lock.json, installed by tools/setup), its USB
CDC on a pseudo-terminal that `mpremote connect /dev/pts/N` (and ticketq deploy, tools/run)
talk to as to a real Pico's /dev/ttyACM0.

    ticketq mcu serve pico [--no-viper]     # one emulated Pico until Ctrl-C; prints its pty
    ticketq pico [--firmware firmware.bin] [--link PATH]   # the same
    ticketq pico --deploy-check             # ticketq deploy rp2 over the emulated Pico, checked

The bridge moves bytes and nothing else: the pty's to the emulator's stdin, its stdout to
the pty (tools/pico/run.mjs: the USB CDC as raw bytes; from ../shared/rp2/emu). The REPL,
raw REPL and mount protocols are the firmware's and mpremote's. The emulator's stderr
says when USB is up and each change of GPIO 25 (the Pico's LED): `edges` counts them, so
a test can check that the worker's heartbeat toggles.

rp2040js runs the RP2040 at ~2.5 host s per simulated s on one core of this machine
(../shared/rp2/README.md); times from `time.ticks_us()` on the board are the emulated chip's
(125 MHz). The RP2040 B1 bootrom is read at run time from ../shared/rp2/emu/bootrom.mjs
($TICKETQ_RP2_BOOTROM): its floating-point library is licensed for RP2040 devices only, so
the repository does not carry it.
"""
import os
import pty
import re
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
import tty

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tools/
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
RUN_MJS = os.path.join(HERE, "pico", "run.mjs")
RP2040JS = os.environ.get("TICKETQ_RP2040JS") or os.path.join(HERE, "pico", "node_modules", "rp2040js")
BOOTROM = os.environ.get("TICKETQ_RP2_BOOTROM") or os.path.normpath(
    os.path.join(ROOT, "..", "shared", "rp2", "emu", "bootrom.mjs"))


class PicoError(RuntimeError):
    pass


def check_setup():
    if not shutil.which("node"):
        raise PicoError("node not found: Node.js 18 or later (tools/setup)")
    if not os.path.isdir(RP2040JS):
        raise PicoError("no %s: run tools/setup (npm ci in tools/pico), or set $TICKETQ_RP2040JS to the "
                        "package's folder" % RP2040JS)
    if not os.path.isfile(BOOTROM):
        raise PicoError("no RP2040 bootrom at %s (../shared/rp2/emu/bootrom.mjs beside the checkout, "
                        "or $TICKETQ_RP2_BOOTROM)" % BOOTROM)


class Pico:
    """One emulated Pico running `firmware` (a firmware.bin: the flash image from offset 0).
    start() waits until its REPL answers on the pty; `url` is what `mpremote connect` takes
    (/dev/pts/N; with link=PATH also a symlink PATH to it). `edges`: GPIO 25's changes so
    far; `log`: the emulator's stderr lines. stop() ends it (and `summary` is its last
    line: simulated seconds, CPU cycles, host seconds, edges). host: run.mjs's emulated USB
    host, "stock" (rp2040js's) or "quiet" (NAKs while it has nothing to send, as a real
    host does; the benchmark's: run.mjs says why)."""

    def __init__(self, firmware, link=None, sim_limit=None, host="stock"):
        # sim_limit: emulated seconds after which the emulator stops (a hung board, told
        # apart from a slow host: the limit does not depend on the machine's load)
        self.firmware, self.link, self.sim_limit, self.host = firmware, link, sim_limit, host
        self.proc = self.url = None
        self.edges = 0
        self.log = []
        self.summary = None
        self._fds = []
        self._threads = []

    def start(self, timeout=60.0, nice=0):
        from ticketq_tools import emu
        from ticketq_tools.board import answers as _answers

        check_setup()
        master, slave = pty.openpty()
        tty.setraw(slave)  # no echo, no line discipline: a serial line
        self._fds = [master, slave]  # the slave stays open here: no EIO between mpremote calls
        self.url = os.ttyname(slave)
        if self.link:
            if os.path.lexists(self.link):
                os.unlink(self.link)
            os.symlink(self.url, self.link)

        def child():
            # not niced by default (QEMU is, ticketq mcu): the board times its waits for the
            # host in simulated time, which a starved emulator slows down with it; nice: the
            # increment (the benchmark's 5: idle board time is paced to the host's there)
            if nice:
                os.nice(nice)
            emu._set_pdeathsig()

        cmd = ["node", RUN_MJS, self.firmware, "--bootrom=" + BOOTROM, "--host=" + self.host]
        if os.environ.get("TICKETQ_RP2040JS"):
            cmd.append("--rp2040js=" + RP2040JS)
        if self.sim_limit:
            cmd.append("--sim-limit=%g" % self.sim_limit)
        self.proc = subprocess.Popen(cmd,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     bufsize=0, preexec_fn=child)
        for fn in (self._pump, self._stderr):
            th = threading.Thread(target=fn, daemon=True)
            th.start()
            self._threads.append(th)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self.proc.poll() is None:
            # (mpremote prints what a failed try read, b'': as for QEMU, left alone; swapping
            # sys.stdout here, which is process-wide, lost ticketq mcu's output when two
            # Picos started at once in its threads)
            if any(l.startswith("[pico] usb") for l in self.log) and _answers(self.url):
                return self
            time.sleep(0.2)
        code = self.proc.poll()
        said = "\n".join(self.log[-8:])
        self.stop()
        if code is None:
            raise PicoError("emulated Pico (%s): no REPL after %.0f s host time\n%s" % (self.firmware, timeout, said))
        raise PicoError("emulated Pico: node exited with code %s: %s" % (code, said))

    def _pump(self):
        # bytes both ways until the emulator exits or the pty is closed (stop())
        master = self._fds[0]
        out = self.proc.stdout.fileno()
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
            m = re.match(r"\[pico\] gpio25 (\d+) ", line)
            if m:
                self.edges = int(m.group(1))
                continue  # one per toggle: counted, not kept
            if line.startswith("[pico] end "):
                self.summary = line
            self.log.append(line)

    def stop(self):
        from ticketq_tools import emu

        if self.proc and self.proc.poll() is None:
            try:
                self.proc.stdin.close()  # run.mjs prints its end line and exits
                self.proc.wait(3)
            except (OSError, subprocess.TimeoutExpired):
                pass
        emu.end(self.proc)
        for th in self._threads:
            th.join(2)
        self._threads = []
        for fd in self._fds:
            try:
                os.close(fd)
            except OSError:
                pass
        self._fds = []
        if self.link and os.path.islink(self.link):
            os.unlink(self.link)

    def __enter__(self):
        return self if self.proc else self.start()  # `with Pico(...).start(timeout, nice)` too

    def __exit__(self, *exc):
        self.stop()


# What deploy_check runs on the Pico after ticketq deploy: where ticketq, its viper module,
# the profile and the worker came from (the deployed .mpy files in the board's folder, first
# on sys.path, not the firmware's frozen .py), the path taken, and a push/pop.
DEPLOYED = """import sys
for n in [k for k in sys.modules if k.startswith('ticketq')]:
    del sys.modules[n]
import ticketq, board, worker
q = ticketq.TicketQueue(8)
for i, c in ((5, 0), (6, 2), (7, 1)):
    q.push(i, c)
print('DEPLOYED', ticketq.__file__, sys.modules['ticketq.viper'].__file__, ticketq.PATH, board.NAME,
      worker.__file__, [q.pop() for _ in range(3)])
"""


def deploy_check(log=print):
    """ticketq deploy works against the emulated Pico as against a real one: start it as a
    user would (`ticketq mcu serve pico`: the bridge on a pty, in its own process), run
    `ticketq deploy rp2 --connect PTY` (the rp2 profile: the library as .mpy built for
    armv6m, the worker, board.py, each file read back and checked), then with mpremote:
    the deployed ticketq (its .mpy files, not the frozen ones) imports, takes its viper path and
    pops in order; a second deploy writes nothing (every file already the same). Returns
    0 when all of that holds, else 1, saying what failed."""
    py = sys.executable
    serve = subprocess.Popen([py, "-m", "ticketq_tools.cli", "mcu", "serve", "pico"], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, start_new_session=True)
    bad = []
    try:
        url = None
        for line in serve.stdout:  # "mpremote connect /dev/pts/N   (Ctrl-C stops it)"
            log("  serve: " + line.rstrip())
            m = re.match(r"mpremote connect (\S+)", line)
            if m:
                url = m.group(1)
                break
        if not url:
            log("FAIL ticketq mcu serve pico gave no pty")
            return 1
        t0 = time.monotonic()
        r = subprocess.run([py, "-m", "ticketq_tools.cli", "deploy", "rp2", "--connect", url],
                           capture_output=True, text=True, timeout=900)
        log("  ticketq deploy rp2 --connect %s: exit %d in %.1f s; %s" % (
            url, r.returncode, time.monotonic() - t0, (r.stdout + r.stderr).strip().splitlines()[-1:]))
        if r.returncode:
            bad.append("ticketq deploy rp2 exit %d: %s" % (r.returncode, (r.stdout + r.stderr)[-1500:]))
        r2 = subprocess.run([py, "-m", "mpremote", "connect", url, "exec", DEPLOYED],
                            capture_output=True, text=True, timeout=300)
        got = [l for l in r2.stdout.splitlines() if l.startswith("DEPLOYED ")]
        log("  on the board: %s" % (got[0] if got else (r2.stdout + r2.stderr)[-800:]))
        want = "DEPLOYED ticketq/__init__.mpy ticketq/viper.mpy viper rp2 worker.mpy [6, 7, 5]"
        if not got or got[0] != want:
            bad.append("the deployed library: %r, not %r" % (got[0] if got else None, want))
        t0 = time.monotonic()
        r3 = subprocess.run([py, "-m", "ticketq_tools.cli", "deploy", "rp2", "--connect", url],
                            capture_output=True, text=True, timeout=900)
        out3 = r3.stdout + r3.stderr
        log("  deployed again: exit %d in %.1f s; %s" % (r3.returncode, time.monotonic() - t0,
                                                        out3.strip().splitlines()[-1:]))
        if r3.returncode:
            bad.append("the second deploy: exit %d: %s" % (r3.returncode, out3[-800:]))
    finally:
        os.killpg(serve.pid, signal.SIGINT)  # serve stops its emulator on Ctrl-C
        try:
            serve.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(serve.pid, signal.SIGKILL)
            serve.wait()
    for b in bad:
        log("FAIL " + b)
    if not bad:
        log("ticketq deploy rp2 over the emulated Pico's pty: deployed, verified, its .mpy files imported on the "
            "viper path, deployed again")
    return 1 if bad else 0


def main(argv=None):
    import argparse

    p = argparse.ArgumentParser(prog="ticketq pico", description="One emulated Raspberry Pi Pico (rp2040js) on a pty, until Ctrl-C.")
    p.add_argument("--firmware", help="a firmware.bin (default: ticketq firmware rp2's, built if needed)")
    p.add_argument("--no-viper", action="store_true", help="the default firmware frozen without viper")
    p.add_argument("--link", help="also make this path a symlink to the pty")
    p.add_argument("--deploy-check", action="store_true",
                   help="instead: ticketq deploy rp2 against an emulated Pico (ticketq mcu serve pico), checked")
    a = p.parse_args(argv)
    if a.deploy_check:
        return deploy_check()
    try:
        fw = a.firmware
        if not fw:
            from ticketq_tools import rp2

            fw = rp2.build("rp2", viper=not a.no_viper)[0]["bin"]
        with Pico(fw, a.link) as pico:
            print("mpremote connect %s   (Ctrl-C stops it)" % (a.link or pico.url), flush=True)
            try:
                while pico.proc.poll() is None:
                    time.sleep(1)
            except KeyboardInterrupt:
                pass
            print("GPIO 25 (LED) changed %d times" % pico.edges)
    except PicoError as e:
        print("pico: %s" % e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
