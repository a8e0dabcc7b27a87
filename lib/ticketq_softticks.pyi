"""ticketq_softticks: MicroPython's tick functions written out in Python, for interpreters
whose firmware has no 2**30-period ``time.ticks_*``.

``ticketq_ticks`` (through ``ticketq_deadline``) imports it only there: on CPython, where
``ticks_ms`` is ``time.monotonic_ns()`` in whole ms folded onto 2**30 (never the wall
clock) and ``sleep_ms`` is ``time.sleep``; and on MicroPython ports with a longer tick period
(the 64-bit unix port), where it is the firmware's ``ticks_ms`` folded onto 2**30 and its
``sleep_ms``. No board needs this file. The functions behave exactly as documented in
``ticketq_ticks.pyi``, and the tests check ``ticks_add``/``ticks_diff`` against the
firmware's own on MicroPython and against their definition (hypothesis) on CPython.

Every intermediate value is a small int on a 32-bit MicroPython port (-2**30 <= v < 2**30):
adding 2**29 on the ring is done as XOR with 2**29, which cannot overflow.
"""


def ticks_ms() -> int:
    """The current tick, 0 <= t < 2**30, from a monotonic clock."""


def ticks_add(t: int, delta: int) -> int:
    """``(t + delta) mod 2**30``; OverflowError if ``|delta| >= 2**29``."""


def ticks_diff(a: int, b: int) -> int:
    """The r with ``-2**29 <= r < 2**29`` and ``r == a - b (mod 2**30)``."""


def sleep_ms(ms: int) -> None:
    """Sleep ``ms`` ms; ``ms <= 0`` returns at once."""
