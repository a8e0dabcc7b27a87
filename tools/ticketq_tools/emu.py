#!/usr/bin/env python3
"""An emulated BBC micro:bit v1 running MicroPython, for the host side of the tests.

QEMU (Debian package qemu-system-arm, machine "microbit") runs the MicroPython firmware
that Debian ships (package firmware-microbit-micropython, MicroPython 1.9.2). The board's
UART is put on a loopback TCP port, and mpremote drives it with
`mpremote connect socket://127.0.0.1:PORT ...` (over a pty it loses bytes).

    ticketq emu start [--port N]   # start one in the background, print its URL
    ticketq emu status             # list the ones started that way
    ticketq emu stop [--port N]    # stop one, or all of them
    ticketq emu run -- mpremote connect {url} exec "print(1)"
                                            # fresh board for one command, then stop it

From Python:

    from ticketq_tools.emu import microbit, connect, put_file
    with microbit() as url:                 # "socket://127.0.0.1:PORT"; QEMU killed on exit
        t = connect(url)                    # mpremote SerialTransport, in the raw REPL
        put_file(t, "mod.py", source)       # written, then size + byte sum checked on the board
        print(t.exec("import mod"))
        t.close()

A board boots in well under a second, so start a fresh one for a fresh heap (9792 B free).
"""

import argparse
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

QEMU_PKG = "qemu-system-arm"
FIRMWARE_PKG = "firmware-microbit-micropython"
FIRMWARE_DEFAULT = "/usr/share/firmware-microbit-micropython/firmware.hex"
FIRMWARE_ENV = "TICKETQ_MICROBIT_HEX"  # overrides the firmware file
HOST = "127.0.0.1"
STATE_DIR = os.environ.get("TICKETQ_EMU_DIR") or os.path.join(
    tempfile.gettempdir(), "ticketq-emu-%d" % os.getuid()
)


class EmuError(RuntimeError):
    pass


def end(proc, grace=3.0):
    """Stop an emulator's process (None or already gone: nothing): SIGTERM, then SIGKILL
    after `grace` seconds; reaped either way."""
    if proc and proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def find_qemu():
    path = shutil.which("qemu-system-arm")
    if not path:
        raise EmuError(
            "qemu-system-arm not found: install the Debian package %s "
            "(apt-get update && apt-get install -y %s)" % (QEMU_PKG, QEMU_PKG)
        )
    return path


def find_firmware():
    """Path of the MicroPython .hex for the micro:bit v1 (from the Debian package)."""
    env = os.environ.get(FIRMWARE_ENV)
    if env:
        if not os.path.isfile(env):
            raise EmuError("%s=%s: no such file" % (FIRMWARE_ENV, env))
        return env
    candidates = []
    try:
        out = subprocess.run(
            ["dpkg", "-L", FIRMWARE_PKG], capture_output=True, text=True, check=False
        ).stdout
        candidates = [l.strip() for l in out.splitlines() if l.strip().endswith(".hex")]
    except OSError:  # no dpkg on this system
        pass
    candidates.sort(key=lambda p: not p.endswith("/firmware.hex"))
    for path in candidates + [FIRMWARE_DEFAULT]:
        if os.path.isfile(path):
            return path
    raise EmuError(
        "MicroPython firmware for the micro:bit not found: install the Debian package %s "
        "(apt-get update && apt-get install -y %s), or set %s to a .hex file"
        % (FIRMWARE_PKG, FIRMWARE_PKG, FIRMWARE_ENV)
    )


def qemu_command(port, firmware=None, qemu=None):
    return [
        qemu or find_qemu(),
        "-M", "microbit",
        "-display", "none",
        "-monitor", "none",
        "-serial", "tcp:%s:%d,server=on,wait=off" % (HOST, port),
        "-device", "loader,file=%s" % (firmware or find_firmware()),
    ]


def url_for(port):
    return "socket://%s:%d" % (HOST, port)


def _free_port(port=0):
    """A loopback TCP port that nothing listens on (`port`, checked, or any)."""
    with socket.socket() as s:
        try:
            s.bind((HOST, port))
        except OSError:
            raise EmuError("%s:%d is in use" % (HOST, port))
        return s.getsockname()[1]


# Over the loopback socket nothing paces the host as a UART's baud rate would, and the
# emulated board takes in only about 1.5 KB/s: measured with QEMU 7.2.22 (Debian
# 1:7.2+dfsg-7+deb12u18), a 100-byte raw-REPL command sent at once lost 6 bytes, and 64-byte
# bursts 20 ms apart lost one in 400; 16-byte bursts 12 ms apart (~1.3 KB/s) lost none
# in 20,000. mpremote writes 256 bytes every 10 ms, so the socket's writes are paced here.
PACE_BYTES = 16
PACE_SECONDS = 0.012


def _pace(ser):
    write = ser.write

    def paced(data):
        data = bytes(data)
        for i in range(0, len(data), PACE_BYTES):
            write(data[i:i + PACE_BYTES])
            time.sleep(PACE_SECONDS)
        return len(data)

    ser.write = paced


def connect(url, soft_reset=False, timeout=10):
    """An mpremote SerialTransport on `url`, already in the raw REPL. Close it when done:
    the emulator serves one connection at a time. `timeout` also bounds the serial reads
    that mpremote would otherwise wait on forever (the "OK" after each command)."""
    from mpremote.transport_serial import SerialTransport

    t = SerialTransport(url, baudrate=115200, timeout=timeout)
    t.use_raw_paste = False  # MicroPython 1.9.2 predates raw-paste mode
    if url.startswith("socket://"):
        _pace(t.serial)
    try:
        t.enter_raw_repl(soft_reset=soft_reset, timeout_overall=timeout)
    except BaseException:
        t.close()
        raise
    return t


def _probe(url):
    """True if the REPL at url answers."""
    try:
        import serial  # pyserial, which mpremote depends on
        from mpremote.transport import TransportError
    except ImportError:
        raise EmuError("mpremote is not installed: pip install mpremote")
    try:
        t = connect(url, timeout=1)
    except (TransportError, serial.SerialException, OSError):
        return False
    try:
        return t.eval("1+1") == 2
    except Exception:
        return False
    finally:
        try:
            t.exit_raw_repl()
            t.close()
        except Exception:
            pass


def _set_pdeathsig():
    # Linux: have QEMU killed if the process that started it dies without cleaning up.
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except Exception:
        pass


class Emulator:
    """One QEMU process. start() waits until the MicroPython REPL answers."""

    def __init__(self, port=None, firmware=None, log=None):
        self.port = port
        self.firmware = firmware or find_firmware()
        self.qemu = find_qemu()
        self.log = log  # file path for QEMU's own output; None: discard
        self.proc = None

    @property
    def url(self):
        return url_for(self.port)

    def start(self, timeout=30.0, detach=False):  # 0.5 s idle; ~11 s seen on a loaded host
        tries = 1 if self.port else 5  # a port picked here may be taken before QEMU binds it
        for attempt in range(tries):
            port = _free_port(self.port or 0)
            out = open(self.log, "ab") if self.log else subprocess.DEVNULL
            try:
                self.proc = subprocess.Popen(
                    qemu_command(port, self.firmware, self.qemu),
                    stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                    start_new_session=detach,
                    preexec_fn=None if detach else _set_pdeathsig,
                )
            finally:
                if out is not subprocess.DEVNULL:
                    out.close()
            self.port = port
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    break
                if _probe(self.url) and self.proc.poll() is None:
                    return self
                time.sleep(0.05)
            code = self.proc.poll()
            self.stop()
            if code is None:
                raise EmuError("micro:bit emulator on port %d: no REPL after %.0f s" % (port, timeout))
            if attempt + 1 < tries:
                self.port = None
                continue
            raise EmuError(
                "qemu-system-arm exited with code %s (port %d in use?)%s"
                % (code, port, "; see " + self.log if self.log else "")
            )
        return self

    def stop(self):
        end(self.proc)
        self.proc = None


@contextlib.contextmanager
def microbit(port=None, firmware=None, timeout=30.0):
    """Start an emulated micro:bit; yield its mpremote connect string
    ("socket://127.0.0.1:PORT"); kill QEMU on exit, whatever happens."""
    emu = Emulator(port, firmware)
    try:
        emu.start(timeout)
        yield emu.url
    finally:
        emu.stop()


# Files on the board. The firmware has a flat ~15 KB filesystem without os.stat or
# hashlib, and no raw-paste mode; mpremote's fs_writefile (256-byte chunks through the
# raw REPL) is reliable, so check what landed with a size and byte sum made on the board.

_CHECK = (
    "def _ck(n):\n"
    " f=open(n,'rb')\n l=s=0\n"
    " while 1:\n  b=f.read(64)\n  if not b:break\n  l+=len(b)\n  for c in b:s+=c\n"
    " f.close()\n return (l,s)\n"
    "print(repr(_ck(%r)))\ndel _ck\n"
)


def board_checksum(t, name):
    """(size, sum of bytes) of a file on the board, computed there."""
    import ast

    return tuple(ast.literal_eval(t.exec(_CHECK % name).decode().strip()))


def put_file(t, name, data, chunk_size=256):
    """Write bytes `data` as file `name` on the board through transport `t` (from
    connect()), then check size and byte sum on the board. Raises EmuError on mismatch."""
    if isinstance(data, str):
        data = data.encode()
    # Garbage left by earlier commands can leave too little heap to receive a command,
    # and then the firmware hangs for good: collect first.
    t.exec("__import__('gc').collect()")
    t.fs_writefile(name, data, chunk_size=chunk_size)
    t.exec("del f,w")
    got = board_checksum(t, name)
    if got != (len(data), sum(data)):
        raise EmuError("%s: wrote %d bytes (sum %d), board has %r" % (name, len(data), sum(data), got))


# ---- CLI: emulators that outlive the command, recorded as STATE_DIR/PORT.pid

def _pidfile(port):
    return os.path.join(STATE_DIR, "%d.pid" % port)


def _recorded():
    """{port: pid} of recorded emulators that are still running QEMU on that port."""
    found = {}
    if not os.path.isdir(STATE_DIR):
        return found
    for fn in os.listdir(STATE_DIR):
        if not fn.endswith(".pid"):
            continue
        port = int(fn[:-4])
        try:
            pid = int(open(os.path.join(STATE_DIR, fn)).read())
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                cmd = f.read().split(b"\0")
        except (OSError, ValueError):
            cmd, pid = [], None
        if any(b"qemu-system-arm" in c for c in cmd) and any(
            (":%d," % port).encode() in c for c in cmd
        ):
            found[port] = pid
        else:  # stale record
            os.remove(os.path.join(STATE_DIR, fn))
    return found


def cmd_start(args):
    os.makedirs(STATE_DIR, exist_ok=True)
    emu = Emulator(args.port, log=os.path.join(STATE_DIR, "qemu.log"))
    emu.start(args.timeout, detach=True)
    with open(_pidfile(emu.port), "w") as f:
        f.write("%d\n" % emu.proc.pid)
    print(emu.url)


def cmd_stop(args):
    running = _recorded()
    ports = [args.port] if args.port else sorted(running)
    if args.port and args.port not in running:
        print("no emulator recorded on port %d" % args.port, file=sys.stderr)
        return 1
    for port in ports:
        pid = running[port]
        os.kill(pid, signal.SIGTERM)
        for _ in range(60):
            if not os.path.exists("/proc/%d" % pid):
                break
            time.sleep(0.05)
        else:
            os.kill(pid, signal.SIGKILL)
        os.remove(_pidfile(port))
        print("stopped %s (pid %d)" % (url_for(port), pid))
    return 0


def cmd_status(args):
    lines = ["%s pid %d" % (url_for(port), pid) for port, pid in sorted(_recorded().items())]
    if lines:
        print("\n".join(lines))


def cmd_run(args):
    cmd = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not cmd:
        print("run: give a command, e.g. run -- mpremote connect {url} eval 1", file=sys.stderr)
        return 2
    with microbit(args.port, timeout=args.timeout) as url:
        env = dict(os.environ, MICROBIT_URL=url)
        return subprocess.call([c.replace("{url}", url) for c in cmd], env=env)


def main(argv=None):
    p = argparse.ArgumentParser(description="Emulated BBC micro:bit v1 (QEMU + MicroPython 1.9.2)")
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("start", help="start an emulator in the background; print its mpremote URL")
    s.add_argument("--port", type=int, help="loopback TCP port (default: a free one)")
    s.add_argument("--timeout", type=float, default=10.0)
    s.set_defaults(func=cmd_start)
    s = sub.add_parser("stop", help="stop the emulator on --port, or all started with 'start'")
    s.add_argument("--port", type=int)
    s.set_defaults(func=cmd_stop)
    s = sub.add_parser("status", help="list emulators started with 'start'")
    s.set_defaults(func=cmd_status)
    s = sub.add_parser("run", help="start a fresh emulator, run a command ({url} and "
                       "$MICROBIT_URL give its URL), stop it; exit with the command's code")
    s.add_argument("--port", type=int)
    s.add_argument("--timeout", type=float, default=10.0)
    s.add_argument("command", nargs=argparse.REMAINDER)
    s.set_defaults(func=cmd_run)
    args = p.parse_args(argv)
    try:
        return args.func(args) or 0
    except EmuError as e:
        print("emu: %s" % e, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
