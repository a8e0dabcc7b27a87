"""The link to a MicroPython board for the host tools (deploy, devtest, run, the gateway,
the benchmarks): an mpremote SerialTransport kept in the raw REPL (mpremote is the board
protocol: exec_raw, fs_writefile, fs_stat, fs_hashfile, fs_listdir, enter_raw_repl), with
what mpremote does not do for the boards here: a command that reached MicroPython 1.9.2
garbled is sent again (garbled()), files are checked after writing with sha256 where the
board has hashlib and os.stat, else an Adler-32 computed on the board in small ints; the
micro:bit's flat filesystem (os.size, no ilistdir) and its chunk budget; a board that stops
answering is brought back (ctrl-C, soft reset) or, emulated, started afresh (restart hook).

    board = open_board("/dev/ttyACM0")        # Board; Unreachable when nothing answers
    board.exec("print(1)"); board.put("x.py", b"...")
"""
import ast
import hashlib
import re
import time
import zlib

MAX_CMD = 1024  # bytes in one raw-REPL command
CHUNK = 256  # bytes of file data per write command (less for binary data)


class DeployError(RuntimeError):
    pass


class Unreachable(DeployError):
    """No board answers there: the port is absent or busy, or nothing on it speaks the raw
    REPL. deploy and devtest exit with exitcodes.UNREACHABLE (4) for it, as tools/run and
    the gateway do (docs/fleet.md, "Exit codes")."""


# ---- the board

def garbled(cmd, err):
    """Whether a raw-REPL command's traceback (text) says the command reached the board
    garbled, so that nothing of it ran past an import: MicroPython 1.9.2 on the micro:bit
    loses bytes that arrive while it is busy (in the emulator too). Garbled: a SyntaxError
    or IndentationError raised in <stdin>, or a NameError/AttributeError there naming
    something the command does not contain (a byte lost inside an identifier)."""
    lines = err.strip().splitlines()
    if not lines or not all('"<stdin>"' in l for l in lines if l.startswith("  File ")):
        return False
    last = lines[-1]
    if last.startswith(("SyntaxError", "IndentationError")):
        return True
    names = re.findall(r"'(\w+)'", last)
    return (last.startswith(("NameError", "AttributeError")) and bool(names)
            and names[-1] not in re.findall(r"[A-Za-z_]\w*", cmd))


_PROBE = (
    "import sys,os,gc\n"
    "i=sys.implementation\n"
    "r={'name':i.name,'version':tuple(i.version[:3]),'mpy':getattr(i,'_mpy',getattr(i,'mpy',None)),"
    "'platform':sys.platform,'stat':hasattr(os,'stat'),'size':hasattr(os,'size'),"
    "'ilistdir':hasattr(os,'ilistdir'),'modules':hasattr(sys,'modules')}\n"
    "try:\n import hashlib\n r['sha256']=hasattr(hashlib,'sha256')\n"
    "except ImportError:\n r['sha256']=False\n"
    "gc.collect()\nr['free']=gc.mem_free()\nprint(repr(r))\ndel i,r\n"
)

# (size, a, b) of Adler-32 over a file, on the board; every value stays a small int.
_ADLER = (
    "def _ck(n):\n"
    " f=open(n,'rb')\n l=0\n a=1\n b=0\n"
    " while 1:\n  d=f.read(64)\n  if not d:break\n  l+=len(d)\n"
    "  for c in d:\n   a=(a+c)%%65521\n   b=(b+a)%%65521\n"
    " f.close()\n return (l,a,b)\n"
    "print(repr(_ck(%r)))\ndel _ck\nimport gc\ngc.collect()\n"
)


def adler(data):
    v = zlib.adler32(data)
    return (len(data), v & 0xFFFF, v >> 16)


def resolve_device(url):
    """mpremote's connect shortcuts: a0/u0/c0 (ttyACM0, ttyUSB0, COM0), port:DEV, id:SERIAL,
    auto (the first USB serial port); anything else is passed to pyserial as it is."""
    import serial.tools.list_ports

    if len(url) >= 2 and url[0] in "auc" and url[1:].isdigit():
        return {"a": "/dev/ttyACM", "u": "/dev/ttyUSB", "c": "COM"}[url[0]] + url[1:]
    if url.startswith("port:"):
        return url[5:]
    ports = sorted(serial.tools.list_ports.comports())
    if url.startswith("id:"):
        for p in ports:
            if p.serial_number == url[3:]:
                return p.device
        raise Unreachable("no device with serial number %s" % url[3:])
    if url == "auto":
        for p in ports:
            if p.vid is not None and p.pid is not None:
                return p.device
        raise Unreachable("no USB serial device found")
    return url


class Board:
    """A MicroPython board over an mpremote SerialTransport, kept in the raw REPL."""

    def __init__(self, url, timeout=10.0, restart=None, soft_reset=True):
        self.url = url
        # False: no soft reset at connect (the unix port standing in for a board ends at one)
        self.reset_at_connect = soft_reset
        self.timeout = timeout
        self.restart_hook = restart  # emulator: start afresh when the board no longer answers
        self.t = None
        self.info = {}
        self.garbled = 0  # commands the board received garbled, and got again
        self.restarts = 0  # times the restart hook started the board afresh
        self.connect()

    def connect(self):
        from ticketq_tools import emu

        self.close()
        # A soft reset first (in the raw REPL: main.py does not run): a board left with
        # little heap by its last session cannot even parse the probe otherwise.
        self.t = emu.connect(resolve_device(self.url), soft_reset=self.reset_at_connect,
                             timeout=self.timeout)  # raw-paste off
        self.info = self.probe()
        # MicroPython learnt raw-paste mode in 1.14; mpremote falls back anyway, but
        # firmware older than that can take the probe for a command.
        self.t.use_raw_paste = tuple(self.info["version"]) >= (1, 14)

    def close(self):
        if self.t is not None:
            try:
                self.t.exit_raw_repl()
            except Exception:
                pass
            try:
                self.t.close()
            except Exception:
                pass
            self.t = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # raw-REPL commands, each small
    def exec(self, cmd, timeout=10, resend=2):
        """Run a command, return its output. A command that comes back garbled (see
        garbled(): nothing of it ran) is sent again (after a gc.collect), up to `resend`
        times."""
        if len(cmd) > MAX_CMD:
            raise DeployError("raw-REPL command of %d bytes (max %d)" % (len(cmd), MAX_CMD))
        from mpremote.transport import TransportExecError

        for attempt in range(resend + 1):
            out, err = self.t.exec_raw(cmd, timeout=timeout)
            if not err:
                return out.decode(errors="replace")
            err = err.decode(errors="replace")
            if attempt == resend or not garbled(cmd, err):
                raise TransportExecError(out, err)
            self.garbled += 1
            self.t.exec_raw("import gc\ngc.collect()")

    def eval(self, cmd):
        return ast.literal_eval(self.exec(cmd).strip())

    def probe(self):
        return ast.literal_eval(self.exec(_PROBE).strip().splitlines()[-1])

    @property
    def is_micropython(self):
        return self.info.get("name") == "micropython"

    def mem_free(self):
        return self.eval("import gc\ngc.collect()\nprint(gc.mem_free())")

    def soft_reset(self):
        """Soft reset into the raw REPL: a fresh heap (and heap_lock undone)."""
        self.t.enter_raw_repl(soft_reset=True, timeout_overall=self.timeout)

    # The emulated micro:bit was seen to stall ~6 s inside sleep() when the host is loaded
    # (3 boots in 9): a quiet spell shorter than that cut the example's last line off.
    BOOT_QUIET = 20.0

    def boot(self, quiet=BOOT_QUIET, timeout=120.0):
        """Soft-reset the board from its friendly REPL, as pressing reset does: main.py runs
        (a soft reset in the raw REPL skips it). Returns what the board printed until its
        REPL prompt came back, or until it said nothing for `quiet` seconds (a main.py that
        runs for ever), `timeout` at most; then back to the raw REPL, without a reset."""
        t = self.t
        t.exit_raw_repl()
        t.read_until(1, b">>> ", timeout=1)  # the banner the exit prints
        t.serial.write(b"\x04")
        data = t.read_until(1, b"\r\n>>> ", timeout=quiet, timeout_overall=timeout)
        text = data.decode(errors="replace").replace("\r\n", "\n")
        # what main.py printed: between "soft reboot" and the firmware's banner
        text = text.split("soft reboot\n", 1)[-1]
        text = re.split(r"^MicroPython v\S+ on .*$", text, 1, flags=re.M)[0]
        try:
            t.enter_raw_repl(soft_reset=False, timeout_overall=self.timeout)
        except Exception:
            self.recover()
        return text

    def recover(self):
        """Back to a responsive raw REPL after a timeout or a garbled exchange: ctrl-C and a
        soft reset; an emulated board that still does not answer is started afresh
        (its files are then gone: the caller's restart hook puts them back)."""
        for attempt in range(2):
            try:
                if attempt:  # a command cut short waits for its ctrl-D: end it, then interrupt
                    self.t.serial.write(b"\x04")
                    time.sleep(1.0)
                    self.t.serial.write(b"\r\x03\r\x03")
                    time.sleep(0.5)
                self.soft_reset()
                if self.exec("print(1+1)").strip() == "2":
                    return False
                raise DeployError("no answer")
            except Exception:
                if attempt and not self.restart_hook:
                    raise
        self.close()
        self.url = self.restart_hook()
        self.restarts += 1
        self.connect()
        return True

    def files(self, dirs=("ticketq",)):
        """{name: size or None} of the regular files in the current folder, and those in
        its subfolders named in `dirs` (the library's package: "ticketq/core.mpy" ...)."""
        if self.info.get("ilistdir"):
            out = {}
            for e in self.t.fs_listdir():
                if not e.st_mode & 0x4000:
                    out[e.name] = e.st_size
                elif e.name in dirs:
                    out.update((e.name + "/" + f.name, f.st_size) for f in self.t.fs_listdir(e.name)
                               if not f.st_mode & 0x4000)
            return out
        if self.info.get("size"):  # the micro:bit: os.size(name)
            return dict(self.eval("import os\nprint(repr([(n,os.size(n)) for n in os.listdir()]))"))
        return {n: None for n in self.eval("import os\nprint(repr(os.listdir()))")}

    def remove(self, name):
        self.exec("import os\nos.remove(%r)" % name)

    def checksum(self, name):
        """What the board has for a file, to compare with expected(data)."""
        if self.info.get("sha256") and self.info.get("stat"):
            size = self.t.fs_stat(name).st_size
            digest = self.t.fs_hashfile(name, "sha256")
            self.exec("del h,buf")
            return (size, digest)
        from mpremote.transport import TransportExecError

        for attempt in range(3):
            try:
                return tuple(self.eval(_ADLER % name))
            except TransportExecError as e:  # a garbled command can fail in any way
                if attempt == 2 or "OSError" in e.error_output:
                    raise
                self.garbled += 1

    def expected(self, data):
        if self.info.get("sha256") and self.info.get("stat"):
            return (len(data), hashlib.sha256(data).digest())
        return adler(data)

    def write(self, name, data):
        chunk = CHUNK
        while chunk > 16 and max(len(repr(data[i:i + chunk])) for i in range(0, max(len(data), 1), chunk)) + 8 > MAX_CMD:
            chunk //= 2
        # Garbage from earlier commands can leave too little heap to receive the next one.
        self.exec("import gc\ngc.collect()")
        try:
            self.t.fs_writefile(name, data, chunk_size=chunk)
        finally:
            try:
                self.exec("try:\n f.close()\nexcept:\n pass\ntry:\n del f,w\nexcept:\n pass")
            except Exception:
                pass

    # The micro:bit's flat filesystem (MicroPython 1.9.2): 120 chunks of 128 bytes, each
    # with 126 bytes of data, the first also holding 2 bytes + the name (measured: 120
    # one-chunk files fit, the 121st does not). Close to full it misbehaves (a write after
    # "no more storage space" truncated other files), so deploy keeps a margin.
    MICROBIT_CHUNKS = 120
    MICROBIT_SPARE = 8

    @staticmethod
    def chunks(name, size):
        return (2 + len(name) + size) // 126 + 1  # an exact fit counted as one more

    def room(self):
        """(chunks used, chunks usable) on a micro:bit, else None."""
        if self.info.get("platform") != "microbit":
            return None
        used = sum(self.chunks(n, s or 0) for n, s in self.files().items())
        return used, self.MICROBIT_CHUNKS - self.MICROBIT_SPARE

    def check_room(self, name, size):
        if self.info.get("platform") != "microbit":
            return
        r = (0, self.MICROBIT_CHUNKS - self.MICROBIT_SPARE)
        files = self.files()
        used = sum(self.chunks(n, s or 0) for n, s in files.items() if n != name)
        need = self.chunks(name, size)
        if used + need > r[1]:
            raise DeployError(
                "%s (%d B) does not fit: the micro:bit filesystem would hold %d of its %d usable "
                "128-byte chunks (%d kept spare); it holds %d B in %d files: %s" % (
                    name, size, used + need, r[1], self.MICROBIT_SPARE,
                    sum(v or 0 for v in files.values()), len(files), ", ".join(sorted(files))))

    def makedirs(self, name):
        """Make the folders of a file's path ("ticketq/core.mpy": ticketq/) where missing
        (mpremote's fs_mkdir). DeployError on a board without folders (the micro:bit's flat
        filesystem)."""
        parts = name.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            d = "/".join(parts[:i])
            if not self.info.get("ilistdir"):
                raise DeployError("%s: this board's filesystem has no folders (MicroPython %s, %s), so "
                                  "the package %s/ cannot go on it; freeze the library into the "
                                  "firmware instead (docs/install.md)" % (
                                      name, ".".join(map(str, self.info.get("version", ()))),
                                      self.info.get("platform"), d))
            if not self.t.fs_exists(d):
                self.t.fs_mkdir(d)

    def put(self, name, data, retries=3, log=None):
        """Write a file and check it on the board; write again on failure, up to `retries`
        more times. Returns the number of writes it took; raises DeployError. A path in a
        folder ("ticketq/core.mpy") gets its folder made first (makedirs)."""
        import errno
        from mpremote.transport import TransportError

        if "/" in name:
            self.makedirs(name)
        self.check_room(name, len(data))
        want = self.expected(data)
        err = None
        for attempt in range(1, retries + 2):
            try:
                self.write(name, data)
                got = self.checksum(name)
                if got == want:
                    return attempt
                err = "read back %s, expected %s" % (_show(got), _show(want))
            except (ValueError, SyntaxError) as e:
                # the check's answer came back unreadable (seen once on the emulated board
                # under a heavy host load: empty): a failed try, as a wrong checksum is
                err = "the board's check came back unreadable (%s)" % type(e).__name__
            except (OSError, TransportError) as e:  # TransportExecError is a TransportError
                text = str(getattr(e, "error_output", "") or "")
                if getattr(e, "errno", None) == errno.ENOSPC or "no more storage space" in text \
                        or "ENOSPC" in text or "OSError: 28" in text:
                    # The partial file is left alone: on the micro:bit (1.9.2, in QEMU at
                    # least) removing a file whose write ran out of space, then writing
                    # again, was seen to truncate other files.
                    try:
                        held = self.files()
                        held = "; it holds %d B in %d files: %s" % (
                            sum(v or 0 for v in held.values()), len(held), ", ".join(sorted(held)))
                    except Exception:
                        held = ""
                    raise DeployError("%s (%d B): the board's filesystem is full%s" % (name, len(data), held))
                err = "%s: %s" % (type(e).__name__, (str(e).strip().splitlines() or [""])[-1])
                if isinstance(e, TransportError):
                    # the exchange went wrong (garbled, timed out): back to a fresh raw REPL
                    try:
                        restarted = self.recover()
                    except Exception as e2:
                        raise DeployError("%s: the board stopped answering (%s)" % (name, e2))
                    if restarted:
                        raise DeployError("%s: the board stopped answering and was restarted" % name)
            if log and attempt <= retries:
                log("    %s: try %d failed (%s); writing it again" % (name, attempt, err))
        raise DeployError("%s: still wrong after %d writes (%s)" % (name, retries + 1, err))


def _show(v):
    return "(%d B, %s)" % (v[0], v[1].hex()[:12] if isinstance(v[1], bytes) else "adler %04x%04x" % (v[2], v[1])) if len(v) >= 2 else repr(v)


def boot_report(board, quiet=Board.BOOT_QUIET):
    """(what main.py printed at a soft reset, the heap free after it, from the raw REPL
    with the application's objects still there; "?" when that command cannot be parsed)."""
    out = board.boot(quiet)
    try:
        free = board.mem_free()
    except Exception as e:
        free = "? (%s)" % (str(e).strip().splitlines() or [type(e).__name__])[-1]
    return out, free


def open_board(url, timeout=10.0, restart=None):
    from mpremote.transport import TransportError
    import serial

    try:
        return Board(url, timeout, restart)
    except (TransportError, serial.SerialException, OSError) as e:
        raise Unreachable("cannot reach a MicroPython REPL at %s: %s" % (url, e))


def answers(url):
    """True when a MicroPython REPL answers 1+1 over the serial link `url` (a pty of an
    emulated board) within ~2 s, else False; never raises (mpremote's SerialTransport)."""
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
