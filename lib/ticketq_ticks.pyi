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

from typing import Optional, Protocol

TICKS_PERIOD: int
"""2**30: the number of distinct tick values. A long int on a 32-bit MicroPython port, so
the library never computes with it on a hot path."""

TICKS_MAX: int
"""2**30 - 1: the largest tick value (and the mask onto the ring)."""


class Clock(Protocol):
    """What Deadline and the waits need from a clock: ``ticks_ms()`` returning a tick value
    (0..TICKS_MAX, on the 2**30 ring, monotonic) and ``sleep_ms(ms)``. A name for type
    checkers only: the module defines no ``Clock`` at run time (import it under
    ``typing.TYPE_CHECKING``); any object with the two methods will do."""

    def ticks_ms(self) -> int: ...
    def sleep_ms(self, ms: int) -> None: ...


def ticks_ms() -> int:
    """The current tick, 0 <= t <= TICKS_MAX, in ms from an arbitrary origin; wraps to 0
    after TICKS_MAX. Monotonic (never the wall clock). O(1), no allocation."""


def ticks_add(t: int, delta: int) -> int:
    """The tick ``delta`` ms after (or before, if negative) tick ``t``:
    ``(t + delta) mod 2**30``, computed without leaving the small-int range.

    Raises OverflowError if ``|delta| >= 2**29`` (on CPython and on MicroPython since 2022;
    older MicroPython firmware, such as the micro:bit's 1.9.2, wraps silently, which is why
    Deadline checks its own range).
    """


def ticks_diff(a: int, b: int) -> int:
    """The signed distance ``a - b`` on the ring: the unique r with
    ``-2**29 <= r <= 2**29 - 1`` and ``r == a - b (mod 2**30)``.

    Positive when ``a`` is after ``b``. Meaningful only while the two ticks are less than
    2**29 ms apart; values exactly 2**29 apart give -2**29 in both orders (as MicroPython).
    """


def sleep_ms(ms: int) -> None:
    """Sleep ``ms`` milliseconds on the real clock (``time.sleep_ms`` on MicroPython); a
    value <= 0 returns at once."""


class FakeClock:
    """A clock a test moves by hand: the tick source for deterministic tests and simulations.

    ``FakeClock(start)`` starts at ``start mod 2**30``, so ``FakeClock(-100)`` is 100 ms
    before the wrap. ``sleep_ms(ms)`` advances the clock by ``ms`` (<= 0: not at all) and
    counts the call in ``sleeps``. Pass it as ``Deadline(..., clock=c)``; the waits then sleep
    through ``c.sleep_ms`` unless given another sleep function. No method allocates.
    ``start`` and ``ms`` follow ticketq.pyi's "Integers" rule (TypeError ``"ms must be
    int"``, raised before the clock moves or counts a sleep).
    """

    now: int
    """The current tick, 0..TICKS_MAX. Tests may read it; set it only through advance()."""

    sleeps: int
    """How many times sleep_ms() was called (including calls with ms <= 0)."""

    def __init__(self, start: int = 0) -> None: ...

    def ticks_ms(self) -> int:
        """The current tick (``now``)."""

    def sleep_ms(self, ms: int) -> None:
        """Count one sleep and advance the clock by ``max(ms, 0)`` ms."""

    def advance(self, ms: int) -> None:
        """Move the clock forward ``ms >= 0`` ms, wrapping at 2**30 (any ms; only
        ``ms mod 2**30`` matters to the tick value). Raises ValueError for ms < 0: a clock
        never goes back."""


class Deadline:
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

    clock: Optional[Clock]

    def __init__(self, timeout_ms: Optional[int], clock: Optional[Clock] = None) -> None: ...

    def remaining(self) -> Optional[int]:
        """Milliseconds left, ``0 <= ms < 2**29``, clamped at 0 once due and at the timeout
        last armed above (a tick counter that steps back, as the micro:bit's did by 66 ms
        under QEMU with its ticker interrupt late, cannot stretch a wait); None for a
        deadline that never expires. Reads the clock once."""

    def expired(self) -> bool:
        """True once the deadline has passed (``remaining() == 0``); always False for None."""

    def rearm(self, timeout_ms: Optional[int]) -> None:
        """Make this deadline ``timeout_ms`` from now, with the same rules as the constructor
        (None = never). Reuses the object: no allocation. On TypeError/ValueError the
        deadline is left unchanged."""
