# ticketq_deadline: the tick functions and Deadline, which is all a board's firmware needs
# from ticketq_ticks (that module re-exports these and adds FakeClock and TICKS_PERIOD, for
# tests and simulations). Documentation: the docstrings below (help(), editors; the .pyi
# stubs carry the types). mpy-cross and freezing drop them, tools/deploy.py strips them for
# a board that compiles source.
#
# Ticks are opaque values on a ring of 2**30 ms. Never compare them with < or subtract
# them: only ticks_diff, which is meaningful while two ticks are < 2**29 ms apart.
#
# Where the firmware has time.ticks_* with a 2**30 period (every 32-bit MicroPython port,
# the micro:bit's utime, the WebAssembly VM), those are the tick functions. Elsewhere
# (CPython, the 64-bit unix port) they come from ticketq_softticks, the same definitions in
# Python, which a board therefore never compiles nor needs on its filesystem.
"""ticketq_deadline: the tick functions and ``Deadline``, the part of ``ticketq_ticks`` that a
board's firmware imports.

Everything here is re-exported by ``ticketq_ticks`` and documented there (see
``ticketq_ticks.pyi``); import ``ticketq_ticks`` in applications and tests. This module exists
so that a board short of RAM (the BBC micro:bit v1: ~9.8 KB of heap) compiles only what runs:
about 1.2 KB of RAM once imported there, against 1.9 KB with ``FakeClock``.
"""
try:
    from utime import ticks_ms, ticks_add, ticks_diff, sleep_ms  # also where it is "time"
except ImportError:  # CPython
    ticks_add = None
if ticks_add is None or ticks_add(0, -1) != 0x3FFFFFFF:  # no 2**30-period ticks here
    from ticketq_softticks import ticks_ms, ticks_add, ticks_diff, sleep_ms


class Deadline:
    # _at: the due tick while armed; -1 once expired (latched the first time it is seen, so
    # a passed deadline stays passed even after ticks_diff would wrap round); None: never.
    # -1 and None are not tick values: every tick value (0 .. 2**30 - 1) can be a due tick.
    """A point in tick time, computed once from a timeout and checked against the clock.

    ``Deadline(timeout_ms, clock=None)`` is due ``timeout_ms`` ms after now:

    * ``timeout_ms`` > 0: due at ``ticks_add(clock.ticks_ms(), timeout_ms)``. Any tick
      value works as the due tick, including 0 and TICKS_MAX: no value is a sentinel.
    * 0 or negative: expired at once (a negative timeout never means "forever").
    * ``None``: never expires; ``remaining()`` returns None.
    * ``|timeout_ms| >= 2**29`` (6.2 days): ValueError, never silently shortened, since
      ``ticks_diff`` cannot tell a later tick from an earlier one beyond that.
    * not an int (float, str): TypeError. Whole ms only: float arithmetic allocates on
      MicroPython. A bool or an int subclass counts as its int value (the library's one
      rule, ticketq.pyi, "Integers").

    ``clock``: any object with ``ticks_ms()`` and ``sleep_ms(ms)`` (see FakeClock);
    None = the real tick counter. Exposed read-only as ``clock``.

    The time left is recomputed from the clock on every check (FreeRTOS
    ``xTaskCheckForTimeOut``, Zephyr ``sys_timepoint_timeout``): never accumulated, so a wait
    woken early can never extend the total, and a wake-up pattern cannot make it drift.

    Expiry is latched: once remaining() or expired() has seen the deadline pass, the
    deadline stays expired for good (until rearm), even when ``ticks_diff`` would wrap round
    2**29 ms later. Limit (the same as any tick comparison): an armed deadline must be
    checked at least once within 2**29 ms (6.2 days) after it falls due.

    ``remaining()``, ``expired()`` and ``rearm()`` with a valid argument are O(1) and
    allocate nothing on MicroPython (proved under ``micropython.heap_lock()``). An instance
    holds the clock, its bound ``ticks_ms`` (when a clock is given) and the due tick, or -1
    once expired, or None for never: no tick value is used as a marker.
    """
    def __init__(self, timeout_ms, clock=None):
        self.clock = clock
        self._t = ticks_ms if clock is None else clock.ticks_ms
        self._ms = 0  # the timeout last armed (set here: rearm under heap_lock adds no attribute)
        self.rearm(timeout_ms)

    def rearm(self, timeout_ms):
        """Make this deadline ``timeout_ms`` from now, with the same rules as the constructor
        (None = never). Reuses the object: no allocation. On TypeError/ValueError the
        deadline is left unchanged.
        """
        t = timeout_ms
        if t is not None:
            # ints, bools and int subclasses count as their int value (ticketq.pyi, "Integers")
            if not isinstance(t, int) and type(t) is not bool:
                raise TypeError("timeout_ms: int or None")
            t = t + 0  # the plain int: int(t) fails for int subclasses on MicroPython 1.9
            if not -0x20000000 < t < 0x20000000:
                raise ValueError("timeout_ms: |t| < 2**29")
            # A timeout <= 0 is due now (never "forever"), exactly as Zephyr's K_NO_WAIT.
            self._ms = t
            t = ticks_add(self._t(), t) if t > 0 else -1
        self._at = t

    def remaining(self):
        """Milliseconds left, ``0 <= ms < 2**29``, clamped at 0 once due and at the timeout
        last armed above (a tick counter that steps back, as the micro:bit's did by 66 ms
        under QEMU with its ticker interrupt late, cannot stretch a wait); None for a
        deadline that never expires. Reads the clock once.
        """
        a = self._at
        if a is None:
            return None
        if a >= 0:
            # Recomputed from the clock on every call (FreeRTOS xTaskCheckForTimeOut, Zephyr
            # sys_timepoint_timeout): an early wake-up can never stretch the total wait.
            a = ticks_diff(a, self._t())
            if a > 0:
                # Never more than was armed: a tick counter that steps back (the micro:bit's
                # ticks_ms under QEMU did, by 66 ms, its ticker interrupt late) must not
                # stretch a wait beyond its timeout.
                return a if a <= self._ms else self._ms
            self._at = -1
        return 0

    def expired(self):
        """True once the deadline has passed (``remaining() == 0``); always False for None.
        """
        return self.remaining() == 0
