from typing import Callable, Optional, Protocol

from ticketq import QueueEmpty, TicketQueue

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


# The definitions in Python (CPython's and a 64-bit port's ticks_add/ticks_diff; the tests
# check them against the firmware's): not API.
def _ticks_add(t: int, delta: int) -> int: ...
def _ticks_diff(a: int, b: int) -> int: ...


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

    now: int
    """The current tick, 0..TICKS_MAX. Tests may read it; set it only through advance()."""

    sleeps: int
    """How many times sleep_ms() was called (including calls with ms <= 0)."""

    def __init__(self, start: int = 0) -> None: ...

    def ticks_ms(self) -> int:
        ...

    def sleep_ms(self, ms: int) -> None:
        ...

    def advance(self, ms: int) -> None:
        ...


class Deadline:

    clock: Optional[Clock]

    def __init__(self, timeout_ms: Optional[int], clock: Optional[Clock] = None) -> None: ...

    def remaining(self) -> Optional[int]:
        ...

    def expired(self) -> bool:
        ...

    def rearm(self, timeout_ms: Optional[int]) -> None:
        ...

class Timeout(QueueEmpty):
    ...


def timeout() -> Timeout:
    ...


def pop_until(q: TicketQueue, deadline: Deadline,
              sleep: Optional[Callable[[int], object]] = None, poll_ms: int = 10) -> int:
    ...
