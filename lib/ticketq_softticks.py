# ticketq_softticks: MicroPython's tick functions written out in Python, for interpreters
# whose firmware has no 2**30-period time.ticks_*: CPython (driven by a monotonic clock,
# never the wall clock) and the 64-bit unix port (its longer-period ticks_ms folded onto
# 2**30). ticketq_ticks imports it only there, so a board never compiles it. Documentation:
# the docstrings below (help(), editors; the .pyi stubs carry the types). mpy-cross and
# freezing drop them, tools/deploy.py strips them for a board that compiles source.
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
import time

try:
    from micropython import const
except ImportError:
    const = lambda x: x

_MAX = const(0x3FFFFFFF)  # 2**30 - 1: the mask onto the ring
_HALF = const(0x20000000)  # 2**29


# The definitions, with every intermediate a small int (-2**30 <= v < 2**30) for any tick
# values and |delta| < 2**29. Adding 2**29 on the ring is XOR with 2**29, which cannot
# overflow. The tests check them against the firmware's own functions on MicroPython.
def ticks_add(t, delta):
    """``(t + delta) mod 2**30``; OverflowError if ``|delta| >= 2**29``.
    """
    if not -_HALF < delta < _HALF:
        raise OverflowError("ticks interval overflow: |delta| must be < 2**29")
    return (((t & _MAX) - _HALF + delta) & _MAX) ^ _HALF


def ticks_diff(a, b):
    """The r with ``-2**29 <= r < 2**29`` and ``r == a - b (mod 2**30)``.
    """
    return (((a & _MAX) - (b & _MAX)) & _MAX ^ _HALF) - _HALF


try:
    _ms = time.ticks_ms  # MicroPython with a longer period: a 2**30 ring divides it
    sleep_ms = time.sleep_ms

    def ticks_ms():
        return _ms() & _MAX

except AttributeError:  # CPython
    _mono = time.monotonic_ns

    def ticks_ms():
        return (_mono() // 1000000) & _MAX

    def sleep_ms(ms):
        if ms > 0:
            time.sleep(ms / 1000)
