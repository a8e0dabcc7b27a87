# ticketq_deadline: the tick functions and Deadline, which is all a board's firmware needs
# from ticketq_ticks (that module re-exports these and adds FakeClock and TICKS_PERIOD, for
# tests and simulations). Full documentation is in ticketq_ticks.pyi; run-time docstrings
# are kept out because a micro:bit keeps them in RAM, comments cost nothing.
#
# Ticks are opaque values on a ring of 2**30 ms. Never compare them with < or subtract
# them: only ticks_diff, which is meaningful while two ticks are < 2**29 ms apart.
#
# Where the firmware has time.ticks_* with a 2**30 period (every 32-bit MicroPython port,
# the micro:bit's utime, the WebAssembly VM), those are the tick functions. Elsewhere
# (CPython, the 64-bit unix port) they come from ticketq_softticks, the same definitions in
# Python, which a board therefore never compiles nor needs on its filesystem.
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
    def __init__(self, timeout_ms, clock=None):
        self.clock = clock
        self._t = ticks_ms if clock is None else clock.ticks_ms
        self._ms = 0  # the timeout last armed (set here: rearm under heap_lock adds no attribute)
        self.rearm(timeout_ms)

    def rearm(self, timeout_ms):
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
        return self.remaining() == 0
