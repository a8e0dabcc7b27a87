# ticketq_ticks: MicroPython tick arithmetic on every interpreter, a fake clock for tests,
# and Deadline. Full documentation is in ticketq_ticks.pyi; run-time docstrings are kept
# out because a micro:bit keeps them in RAM, comments cost nothing.
#
# Ticks are opaque values on a ring of 2**30 ms. Never compare them with < or subtract
# them: only ticks_diff, which is meaningful while two ticks are < 2**29 ms apart.
try:
    import utime as time  # micro:bit v1 firmware has only utime
except ImportError:
    import time

try:
    from micropython import const
except ImportError:
    const = lambda x: x

TICKS_PERIOD = 0x40000000  # 2**30: not a small int on a 32-bit port, so hot paths avoid it
TICKS_MAX = const(0x3FFFFFFF)
_HALF = const(0x20000000)  # 2**29: the largest |delta| is _HALF - 1


# The definitions, with every intermediate a small int (-2**30 <= v < 2**30) for any tick
# values and |delta| < 2**29. Adding 2**29 on the ring is XOR with 2**29, which cannot
# overflow. CPython uses these; MicroPython uses the firmware's own functions when their
# period is 2**30, and the tests check that the two agree.
def _add(t, delta):
    if not -_HALF < delta < _HALF:
        raise OverflowError("ticks interval overflow: |delta| must be < 2**29")
    return (((t & TICKS_MAX) - _HALF + delta) & TICKS_MAX) ^ _HALF


def _diff(a, b):
    return (((a & TICKS_MAX) - (b & TICKS_MAX)) & TICKS_MAX ^ _HALF) - _HALF


try:
    _ms = time.ticks_ms
    _fw = time.ticks_add(0, -1) == TICKS_MAX
except AttributeError:  # CPython: a monotonic clock, never the wall clock (time.time)
    _ms = None
    _fw = False

if _fw:
    ticks_ms = _ms
    ticks_add = time.ticks_add
    ticks_diff = time.ticks_diff
    sleep_ms = time.sleep_ms
else:
    ticks_add = _add
    ticks_diff = _diff
    if _ms:  # a MicroPython port with a longer period (64-bit unix): fold it onto 2**30
        sleep_ms = time.sleep_ms

        def ticks_ms():
            return _ms() & TICKS_MAX
    else:
        _mono = time.monotonic_ns

        def ticks_ms():
            return (_mono() // 1000000) & TICKS_MAX

        def sleep_ms(ms):
            if ms > 0:
                time.sleep(ms / 1000)


class FakeClock:
    def __init__(self, start=0):
        self.now = start & TICKS_MAX  # FakeClock(-100): 100 ms before the wrap
        self.sleeps = 0

    def ticks_ms(self):
        return self.now

    def sleep_ms(self, ms):
        self.sleeps += 1
        if ms > 0:
            self.advance(ms)

    def advance(self, ms):
        if ms < 0:
            raise ValueError("FakeClock never goes back")
        # Wrap without leaving the small-int range: now + ms may exceed 2**30.
        ms &= TICKS_MAX
        g = TICKS_MAX - self.now
        self.now = ms - g - 1 if ms > g else self.now + ms


class Deadline:
    # _st: 0 armed (at tick _at), 1 expired, -1 never. Expiry is latched the first time it
    # is seen, so a passed deadline stays passed even after ticks_diff would wrap round.
    def __init__(self, timeout_ms, clock=None):
        self.clock = clock
        self._t = ticks_ms if clock is None else clock.ticks_ms
        self._at = 0
        self._st = -1
        self.rearm(timeout_ms)

    def rearm(self, timeout_ms):
        if timeout_ms is None:
            self._st = -1
            return
        if type(timeout_ms) is not int:
            raise TypeError("timeout_ms must be an int (ms) or None")
        if not -_HALF < timeout_ms < _HALF:
            raise ValueError("timeout_ms must be -2**29 < t < 2**29 ms (6.2 days)")
        # A timeout <= 0 is due now (never "forever"), exactly as Zephyr's K_NO_WAIT.
        self._at = ticks_add(self._t(), timeout_ms if timeout_ms > 0 else 0)
        self._st = 0 if timeout_ms > 0 else 1

    def remaining(self):
        s = self._st
        if s:
            return None if s < 0 else 0
        # Recomputed from the clock on every call (FreeRTOS xTaskCheckForTimeOut, Zephyr
        # sys_timepoint_timeout): an early wake-up can never stretch the total wait.
        r = ticks_diff(self._at, self._t())
        if r > 0:
            return r
        self._st = 1
        return 0

    def expired(self):
        return self.remaining() == 0
