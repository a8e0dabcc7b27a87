# ticketq_softticks: MicroPython's tick functions written out in Python, for interpreters
# whose firmware has no 2**30-period time.ticks_*: CPython (driven by a monotonic clock,
# never the wall clock) and the 64-bit unix port (its longer-period ticks_ms folded onto
# 2**30). ticketq_ticks imports it only there, so a board never compiles it. Full
# documentation is in ticketq_softticks.pyi.
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
    if not -_HALF < delta < _HALF:
        raise OverflowError("ticks interval overflow: |delta| must be < 2**29")
    return (((t & _MAX) - _HALF + delta) & _MAX) ^ _HALF


def ticks_diff(a, b):
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
