# ticketq_ticks: tick-counter time for ticketq, the same on MicroPython and CPython: the
# tick functions, Deadline, and a fake clock for tests and simulations. Full documentation
# is in ticketq_ticks.pyi; run-time docstrings are kept out because a micro:bit keeps them
# in RAM, comments cost nothing.
#
# The tick functions and Deadline live in ticketq_deadline, which is all a board's firmware
# imports (the worker does): FakeClock costs ~0.7 KB of RAM that a micro:bit cannot spare
# beside the worker, and is only needed by tests.
from ticketq_deadline import ticks_ms, ticks_add, ticks_diff, sleep_ms, Deadline

TICKS_PERIOD = 0x40000000  # 2**30: not a small int on a 32-bit port, so hot paths avoid it
TICKS_MAX = 0x3FFFFFFF


def _ms(v, s):
    # (Not ticketq_heap._int: the tick modules stand without the queue's modules, and on the
    # micro:bit importing ticketq_heap for this would cost ~1.5 KB of heap.)
    # The one int rule (ticketq.pyi, "Integers"): an int, bool or int subclass as its plain
    # int (v + 0: int(v) fails for an int subclass on MicroPython 1.9), else TypeError.
    if not isinstance(v, int) and type(v) is not bool:
        raise TypeError(s + " must be int")
    return v + 0


class FakeClock:
    def __init__(self, start=0):
        self.now = _ms(start, "start") & TICKS_MAX  # FakeClock(-100): 100 ms before the wrap
        self.sleeps = 0

    def ticks_ms(self):
        return self.now

    def sleep_ms(self, ms):
        ms = _ms(ms, "ms")  # a bad ms raises here, before anything is counted
        if ms > 0:
            self.advance(ms)
        self.sleeps += 1

    def advance(self, ms):
        ms = _ms(ms, "ms")
        if ms < 0:
            raise ValueError("FakeClock never goes back")
        # now - 2**30 + (ms mod 2**30) lies in [-2**30, 2**30): a small int, no allocation.
        self.now = (self.now - TICKS_MAX - 1 + (ms & TICKS_MAX)) & TICKS_MAX
