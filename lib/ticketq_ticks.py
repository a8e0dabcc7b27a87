# ticketq_ticks: tick-counter time for ticketq, the same on MicroPython and CPython: the
# tick functions, Deadline, and a fake clock for tests and simulations. Documentation: the
# docstrings below (help(), editors; the .pyi stubs carry the types). mpy-cross and freezing
# drop them, tools/deploy.py strips them for a board that compiles source.
#
# The tick functions and Deadline live in ticketq_deadline, which is all a board's firmware
# imports (the worker does): FakeClock costs ~0.7 KB of RAM that a micro:bit cannot spare
# beside the worker, and is only needed by tests.
"""ticketq_ticks: tick-counter time for ticketq, the same on MicroPython and CPython.

A *tick* is a millisecond counter value on a ring of ``TICKS_PERIOD`` = 2**30 values,
``0 <= tick <= TICKS_MAX``. Tick values are opaque: they have no epoch, they wrap about every
12.4 days, and they must never be compared with ``<`` or subtracted with ``-``. Only
``ticks_diff`` compares them, and only while they are less than 2**29 ms (6.2 days) apart.
This is MicroPython's documented model (``time.ticks_ms``/``ticks_add``/``ticks_diff``);
the documented idiom is::

    deadline = ticks_add(ticks_ms(), 200)
    while ticks_diff(deadline, ticks_ms()) > 0:
        do_a_little_of_something()

Where the functions come from:

* MicroPython with a 2**30 tick period (every 32-bit port, the micro:bit, the WebAssembly
  VM): ``utime.ticks_ms``, ``ticks_add``, ``ticks_diff``, ``sleep_ms`` themselves (the same
  objects; ``utime`` is also the name ``time`` answers to on current ports).
* Elsewhere, from ``ticketq_softticks``, the same definitions written in Python:
  MicroPython with a longer period (the 64-bit unix port) gets its ``ticks_ms`` folded onto
  2**30 (a 2**30 ring divides the firmware's); CPython gets ``time.monotonic_ns()`` in whole
  ms folded onto 2**30. The wall clock (``time.time``, ``datetime``) is never read, so
  setting the system clock (NTP, an RTC, a user) cannot shorten or hang a wait.

Modules: the tick functions and ``Deadline`` live in ``ticketq_deadline``, which this module
re-exports; ``FakeClock``, ``TICKS_PERIOD`` and ``TICKS_MAX`` are defined here. A board's
firmware imports ``ticketq_deadline`` only (the worker does): on a BBC micro:bit v1 it costs
about 1.2 KB of RAM, and ``FakeClock`` another 0.7 KB that only tests need.
``ticketq_softticks`` is imported only where the firmware lacks 2**30-period ticks, so no
board compiles it or needs it on its filesystem.

Every integer the functions handle is a small int on a 32-bit MicroPython port
(-2**30 <= v < 2**30): none of them allocates.

Design sources: MicroPython ``time`` docs (ticks_ms, ticks_add, ticks_diff; since 2022
``ticks_add`` raises OverflowError for |delta| >= 2**29); FreeRTOS ``vTaskSetTimeOutState``
/ ``xTaskCheckForTimeOut`` and Zephyr ``sys_timepoint_calc`` / ``sys_timepoint_timeout``
(keep one explicit deadline, recompute the time left from the tick counter on every check);
CircuitPython ``adafruit_ticks`` (one period everywhere: mixing periods caused long stalls).
"""
from ticketq_deadline import ticks_ms, ticks_add, ticks_diff, sleep_ms, Deadline

TICKS_PERIOD = 0x40000000  # 2**30: not a small int on a 32-bit port, so hot paths avoid it
TICKS_MAX = 0x3FFFFFFF


def _ms(v, s):
    # (Not ticketq_core._int: the tick modules stand without the queue's modules, and on the
    # micro:bit importing ticketq_core for this would cost ~1.5 KB of heap.)
    # The one int rule (ticketq.pyi, "Integers"): an int, bool or int subclass as its plain
    # int (v + 0: int(v) fails for an int subclass on MicroPython 1.9), else TypeError.
    if not isinstance(v, int) and type(v) is not bool:
        raise TypeError(s + " must be int")
    return v + 0


class FakeClock:
    """A clock a test moves by hand: the tick source for deterministic tests and simulations.

    ``FakeClock(start)`` starts at ``start mod 2**30``, so ``FakeClock(-100)`` is 100 ms
    before the wrap. ``sleep_ms(ms)`` advances the clock by ``ms`` (<= 0: not at all) and
    counts the call in ``sleeps``. Pass it as ``Deadline(..., clock=c)``; the waits then sleep
    through ``c.sleep_ms`` unless given another sleep function. No method allocates.
    ``start`` and ``ms`` follow ticketq.pyi's "Integers" rule (TypeError ``"ms must be
    int"``, raised before the clock moves or counts a sleep).
    """
    def __init__(self, start=0):
        self.now = _ms(start, "start") & TICKS_MAX  # FakeClock(-100): 100 ms before the wrap
        self.sleeps = 0

    def ticks_ms(self):
        """The current tick (``now``).
        """
        return self.now

    def sleep_ms(self, ms):
        """Count one sleep and advance the clock by ``max(ms, 0)`` ms.
        """
        ms = _ms(ms, "ms")  # a bad ms raises here, before anything is counted
        if ms > 0:
            self.advance(ms)
        self.sleeps += 1

    def advance(self, ms):
        """Move the clock forward ``ms >= 0`` ms, wrapping at 2**30 (any ms; only
        ``ms mod 2**30`` matters to the tick value). Raises ValueError for ms < 0: a clock
        never goes back.
        """
        ms = _ms(ms, "ms")
        if ms < 0:
            raise ValueError("FakeClock never goes back")
        # now - 2**30 + (ms mod 2**30) lies in [-2**30, 2**30): a small int, no allocation.
        self.now = (self.now - TICKS_MAX - 1 + (ms & TICKS_MAX)) & TICKS_MAX
