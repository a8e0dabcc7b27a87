# What ticketq typecheck reports that is not a problem on the board (kind "fp", counted,
# shown with -v) or is a real problem not fixed yet (kind "todo", shown on every run).
# Read with ast.literal_eval: a Python literal, no code.
#
# An entry matches a pyright diagnostic by target ("*" or a list of typecheck/<target>.txt
# names), file (repository path, or "*"), rule, the stripped text of the diagnostic's source
# line (None: any line) and, optionally, a substring of the message. No line numbers: an
# entry follows its line when code moves, and stops matching when the line changes, so the
# new line is checked again. tests/test_typecheck.py checks that every line still exists.
#
# Most false positives are the run-time guards a static checker cannot follow: a try/except
# ImportError or AttributeError that picks the CPython or the MicroPython branch, and a
# branch taken only on one board. The rest come from the stubs themselves.
[
    # --- firmware/shell.py: the heartbeat LED, per board profile, inside try/except Exception
    {"kind": "fp", "targets": ["rp2", "rp2-1.20", "esp32", "esp32-1.20", "host"],
     "file": "firmware/shell.py", "rule": "reportMissingImports",
     "line": "from microbit import display",
     "why": "taken only when the profile's HEARTBEAT is \"microbit\" (boards/microbit), and "
            "guarded by try/except"},
    {"kind": "fp", "targets": ["host"],
     "file": "firmware/shell.py", "rule": "reportMissingImports",
     "line": "import machine",
     "why": "the WebAssembly VM has no machine module; boards/host has HEARTBEAT = None, which "
            "never reaches this line, and it is guarded by try/except"},
    {"kind": "fp", "targets": ["microbit"],
     "file": "firmware/shell.py", "rule": "reportAttributeAccessIssue",
     "line": "return machine.Pin(hb, machine.Pin.OUT).value",
     "why": "the micro:bit's machine has no Pin; its profile's HEARTBEAT \"microbit\" takes the "
            "display branch above (and shell.py is not deployed there)"},
    {"kind": "fp", "targets": "*",
     "file": "firmware/shell.py", "rule": "reportAttributeAccessIssue",
     "line": "w.led = _led(hb)",
     "why": "pyright infers Shell.led as None from __init__ alone when it checks shell.py; "
            "shell.pyi declares led: Optional[Callable[[int], object]]"},
    # --- lib/ticketq/resp.py: TLS (rediss://), MicroPython's tls module or CPython's ssl
    {"kind": "fp", "targets": ["esp32-1.20"],
     "file": "lib/ticketq/resp.py", "rule": "reportMissingImports",
     "line": "import tls  # MicroPython 1.23+ where the port has it (rp2 W, esp32, unix)",
     "why": "tls is MicroPython 1.23+; the import is inside try/except ImportError, and "
            "rediss:// then says 'no tls module in this interpreter' (plain redis:// works)"},
    {"kind": "fp", "targets": ["esp32"],
     "file": "lib/ticketq/resp.py", "rule": "reportAttributeAccessIssue",
     "line": "ctx.verify_mode = tls.CERT_REQUIRED",
     "why": "MicroPython's tls.SSLContext has a settable verify_mode (extmod/modtls_mbedtls.c); "
            "the esp32 stub omits it. Run on the unix port's tls module by test_resp_tls"},
    {"kind": "fp", "targets": ["esp32"],
     "file": "lib/ticketq/resp.py", "rule": "reportAttributeAccessIssue",
     "line": "ctx = ssl.create_default_context(cadata=ca)  # CERT_REQUIRED, the name checked",
     "why": "CPython's branch, taken only where there is no tls module; a board has tls"},
    {"kind": "fp", "targets": ["esp32", "esp32-1.20"],
     "file": "lib/ticketq/resp.py", "rule": "reportCallIssue",
     "line": "line = self._file().readline(m + 2)",
     "why": "a MicroPython stream's readline takes an optional size (py/stream.c, "
            "mp_stream_unbuffered_readline); the stub's socket.readline has none. The bound "
            "is run on the unix port by test_resp_stream"},
    # --- lib/ticketq/aio.py: asyncio or uasyncio, sleep_ms or CPython's sleep
    {"kind": "fp", "targets": "*",
     "file": "lib/ticketq/aio.py", "rule": "reportAssignmentType",
     "line": "_sleep_ms = asyncio.sleep_ms",
     "why": "the name has a second definition in the except AttributeError branch (CPython), "
            "with another signature"},
    {"kind": "fp", "targets": ["rp2-1.20", "esp32-1.20"],
     "file": "lib/ticketq/aio.py", "rule": "reportAttributeAccessIssue",
     "line": "_sleep_ms = asyncio.sleep_ms",
     "why": "the 1.20 stubs' `asyncio` is CPython's (stdlib stubs); MicroPython 1.20 has no "
            "asyncio, so the except ImportError branch imports uasyncio, whose sleep_ms the "
            "stubs have; on CPython the except AttributeError branch takes over"},
    # --- lib/ticketq/ticks.py: the firmware's ticks, or the soft ticks of the same module
    {"kind": "fp", "targets": ["rp2", "esp32"],
     "file": "lib/ticketq/ticks.py", "rule": "reportArgumentType",
     "line": "if ticks_add is None or ticks_add(0, -1) != _MAX:  # no 2**30-period ticks here",
     "message": "_Ticks",
     "why": "the 1.28+ stubs type ticks as opaque classes (_TicksMs) to forbid arithmetic; "
            "ticks are small ints at run time and 0 is a tick value"},
    {"kind": "fp", "targets": ["rp2", "esp32", "host"],
     "file": "lib/ticketq/ticks.py", "rule": "reportAssignmentType",
     "line": "from utime import ticks_ms, ticks_add, ticks_diff, sleep_ms  # also where it is \"time\"",
     "why": "sleep_ms is also bound, in the branch for a firmware without 2**30-period ticks, to "
            "time.sleep_ms or the CPython def; pyright compares the import with that def's "
            "signature, one name per branch at run time"},
    {"kind": "fp", "targets": "*",
     "file": "lib/ticketq/ticks.py", "rule": "reportOptionalCall",
     "line": "t = ticks_add(self._t(), t) if t > 0 else -1",
     "why": "ticks_add is None only on CPython's ImportError branch, and the `if ticks_add is "
            "None` right after it rebinds it to the soft _ticks_add at import"},
    # --- lib/ticketq/ticks.py: never on a board (CPython and the 64-bit unix port)
    {"kind": "fp", "targets": "*",
     "file": "lib/ticketq/ticks.py", "rule": "reportAssignmentType",
     "line": "sleep_ms = time.sleep_ms",
     "why": "second definition in the except AttributeError branch (CPython)"},
    {"kind": "fp", "targets": "*",
     "file": "lib/ticketq/ticks.py", "rule": "reportRedeclaration",
     "line": "def ticks_ms():",
     "why": "one definition per branch of try/except AttributeError"},
    {"kind": "fp", "targets": ["rp2", "esp32"],
     "file": "lib/ticketq/ticks.py", "rule": "reportOperatorIssue",
     "line": "return _fw_ms() & _MAX",
     "why": "opaque _TicksMs (1.28+ stubs); folding a longer-period tick onto 2**30 is this "
            "module's purpose, on the 64-bit unix port only"},
    {"kind": "fp", "targets": "*",
     "file": "lib/ticketq/ticks.py", "rule": "reportAttributeAccessIssue",
     "line": "_mono = time.monotonic_ns",
     "why": "the CPython branch (except AttributeError); no board imports this module"},
    # --- lib/ticketq/fleet.py: a lock where threads exist, getpid where processes fork
    {"kind": "fp", "targets": ["host", "microbit"],
     "file": "lib/ticketq/fleet.py", "rule": "reportMissingImports",
     "line": "from _thread import allocate_lock",
     "why": "the WebAssembly VM and the micro:bit have no _thread; the except ImportError "
            "branch runs without a lock there (no threads to share a queue object)"},
    {"kind": "fp", "targets": ["microbit"],
     "file": "lib/ticketq/fleet.py", "rule": "reportAttributeAccessIssue",
     "line": "from os import getpid",
     "why": "the micro:bit's os has no getpid (and no fork); the except ImportError branch "
            "takes over (and the fleet client is not deployed there)"},
    # --- lib/ticketq/fleet.py
    {"kind": "fp", "targets": "*",
     "file": "lib/ticketq/fleet.py", "rule": "reportIncompatibleMethodOverride",
     "line": "def tickets(self):",
     "why": "by design: a lane queue's tickets carry their lane, (id, class, seq, promoted, "
            "lane) against FleetQueue's 4-tuples, as ticketq.audit.tickets gives a LaneQueue's "
            "a lane a TicketQueue's lack (ticketq/fleet.pyi documents the shape)"},
    {"kind": "fp", "targets": "*",
     "file": "lib/ticketq/fleet.py", "rule": "reportIncompatibleMethodOverride",
     "line": "def _letters(self, r):",
     "why": "by design, as tickets: a lane queue's dead letters carry their lane, (id, class, "
            "seq, deliveries, lane) against FleetQueue's 4-tuples (fleet.pyi: dead)"},
    {"kind": "fp", "targets": "*",
     "file": "lib/ticketq/fleet.py", "rule": "reportIncompatibleMethodOverride",
     "line": "def _revived(self, t):",
     "why": "by design, as tickets: a lane queue's requeued letters carry their lane, (id, "
            "class, seq, lane) against FleetQueue's 3-tuples (fleet.pyi: requeue)"},
    {"kind": "fp", "targets": "*",
     "file": "lib/ticketq/fleet.py", "rule": "reportIncompatibleMethodOverride",
     "line": "def _refusal(self, code, t):",
     "why": "a lane queue's requeue refusal may be LaneFull, LanesFull or LanePaused, a plain "
            "queue's only QueueFull: pyright infers the base's return type from its one "
            "return; requeue returns the refusal as an Exception (fleet.pyi)"},
    # --- the stubs
    {"kind": "fp", "targets": ["microbit"],
     "file": "*", "rule": "reportAbstractUsage", "line": None,
     "message": "Cannot instantiate abstract class \"array\"",
     "why": "micropython-microbit-stubs' array derives from MutableSequence without insert and "
            "__delitem__, so pyright thinks it abstract; array('i', ...) works on the "
            "micro:bit (the device tests run it there)"},
]
