# ticketq.ticks: tick-counter time, all of it in one module: MicroPython's tick functions
# (the firmware's where its period is 2**30, else written out here), Deadline, FakeClock,
# and pop_until, the blocking pop bounded by a Deadline. Documentation: the docstrings
# below (help(), editors; ticks.pyi carries the types). mpy-cross and freezing drop them.
#
# Ticks are opaque values on a ring of 2**30 ms. Never compare them with < or subtract
# them: only ticks_diff, which is meaningful while two ticks are < 2**29 ms apart.
"""ticketq.ticks: tick-counter time for ticketq, the same on MicroPython and CPython: the
tick functions, ``Deadline``, ``FakeClock`` and the blocking ``pop_until``.

A *tick* is a millisecond counter value on a ring of ``TICKS_PERIOD`` = 2**30 values,
``0 <= tick <= TICKS_MAX``. Tick values are opaque: they have no epoch, they wrap about every
12.4 days, and they must never be compared with ``<`` or subtracted with ``-``. Only
``ticks_diff`` compares them, and only while they are less than 2**29 ms (6.2 days) apart.
This is MicroPython's documented model (``time.ticks_ms``/``ticks_add``/``ticks_diff``);
the documented idiom is::

    deadline = ticks_add(ticks_ms(), 200)
    while ticks_diff(deadline, ticks_ms()) > 0:
        do_a_little_of_something()

What is here:

* ``ticks_ms()``, ``ticks_add(t, delta)``, ``ticks_diff(a, b)``, ``sleep_ms(ms)``: on
  MicroPython with a 2**30 tick period (every 32-bit port, the micro:bit, the WebAssembly
  VM) the firmware's own (``utime``'s, the very objects); elsewhere the same definitions
  written in Python (``_ticks_add``, ``_ticks_diff``, present everywhere and tested against
  the firmware's): the 64-bit unix port's ``ticks_ms`` folded onto 2**30 (a 2**30 ring
  divides the firmware's), CPython's ``time.monotonic_ns()`` in whole ms folded onto 2**30,
  and ``time.sleep``. The wall clock (``time.time``, ``datetime``) is never read, so setting
  the system clock (NTP, an RTC, a user) cannot shorten or hang a wait.
* ``Deadline(timeout_ms, clock=None)``: one point in tick time, computed once, checked
  with ``expired()``/``remaining()`` and re-armed in place with ``rearm`` (no allocation).
* ``FakeClock(start)``: a clock that moves only when told (``advance``, ``sleep_ms``), for
  tests and simulations; any Deadline takes it as its ``clock``.
* ``pop_until(q, deadline, sleep=None, poll_ms=10)``: the next job id of a queue, waiting
  until the deadline, sleeping at most ``poll_ms`` ms at a time; ``Timeout`` (a subclass of ``ticketq.QueueEmpty``) when it passes. ``ticketq.aio``
  has the same wait for asyncio. A worker loop on a board::

    import ticketq.ticks as tt
    from ticketq.ticks import pop_until, Timeout

    d = tt.Deadline(None)
    while True:
        d.rearm(2000)                   # at most 2 s per wait; no allocation
        try:
            job = pop_until(q, d)       # returns the next job id ...
        except Timeout:                 # ... or raises when the deadline passes
            housekeeping()
            continue
        run(job)

  A job id can be any value 0..2**30-1, including the falsy 0, so no return value is
  reserved for "timed out" (as CPython's ``queue.Queue.get(timeout=...)`` raises
  ``queue.Empty``), and a forgotten check fails loudly instead of running a bogus job.

Units and ranges: every time is in ms; every timeout and delta is an int with
``|v| < 2**29`` (ValueError beyond, never silently shortened; OverflowError from
``ticks_add``, as MicroPython's since 2022); a bool or an int subclass counts as its int
value, anything else is TypeError (the library's one rule, see ``ticketq``). Every integer
the functions and Deadline handle is a small int on a 32-bit port (-2**30 <= v < 2**30):
adding 2**29 on the ring is done as XOR with 2**29, which cannot overflow. ``ticks_add``,
``ticks_diff``, ``Deadline.expired``/``remaining``/``rearm`` are O(1) and allocate nothing
(heap_lock tests); ``pop_until`` is O(log n) for its pop plus one check per sleep, and
allocates nothing given a sleep function that allocates nothing.

Design sources: MicroPython's ``time`` docs (ticks_ms, ticks_add, ticks_diff and the
deadline idiom); FreeRTOS ``vTaskSetTimeOutState``/``xTaskCheckForTimeOut`` and
``xQueueReceive`` (a wait woken early never restarts its timeout) and Zephyr
``sys_timepoint_calc``/``sys_timepoint_timeout`` (keep one explicit deadline, recompute the
time left from the tick counter on every check); CircuitPython's ``adafruit_ticks`` (one
period everywhere: mixing periods caused long stalls).
"""
from ticketq.core import QueueEmpty, _int

try:
    from micropython import const
except ImportError:
    const = lambda x: x

_MAX = const(0x3FFFFFFF)  # 2**30 - 1: the mask onto the ring
_HALF = const(0x20000000)  # 2**29


# The definitions, with every intermediate a small int (-2**30 <= v < 2**30) for any tick
# values and |delta| < 2**29. Adding 2**29 on the ring is XOR with 2**29, which cannot
# overflow. The tests check them against the firmware's own functions on MicroPython.
def _ticks_add(t, delta):
    """``(t + delta) mod 2**30``; OverflowError if ``|delta| >= 2**29``.
    """
    if not -_HALF < delta < _HALF:
        raise OverflowError("ticks interval overflow: |delta| must be < 2**29")
    return (((t & _MAX) - _HALF + delta) & _MAX) ^ _HALF


def _ticks_diff(a, b):
    """The r with ``-2**29 <= r < 2**29`` and ``r == a - b (mod 2**30)``.
    """
    return (((a & _MAX) - (b & _MAX)) & _MAX ^ _HALF) - _HALF


try:
    from utime import ticks_ms, ticks_add, ticks_diff, sleep_ms  # also where it is "time"
except ImportError:  # CPython
    ticks_add = None
if ticks_add is None or ticks_add(0, -1) != _MAX:  # no 2**30-period ticks here
    import time

    ticks_add = _ticks_add
    ticks_diff = _ticks_diff
    try:
        _fw_ms = time.ticks_ms  # MicroPython with a longer period: a 2**30 ring divides it
        sleep_ms = time.sleep_ms

        def ticks_ms():
            return _fw_ms() & _MAX

    except AttributeError:  # CPython
        _mono = time.monotonic_ns

        def ticks_ms():
            return (_mono() // 1000000) & _MAX

        def sleep_ms(ms):
            if ms > 0:
                time.sleep(ms / 1000)


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
      rule, ticketq's docstring, "Integers").

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
            # ints, bools and int subclasses count as their int value (ticketq's docstring, "Integers")
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

TICKS_PERIOD = 0x40000000  # 2**30: not a small int on a 32-bit port, so hot paths avoid it
TICKS_MAX = 0x3FFFFFFF


def _ms(v, s):
    # (Not ticketq.core._int: the tick modules stand without the queue's modules, and on the
    # micro:bit importing ticketq.core for this would cost ~1.5 KB of heap.)
    # The one int rule (ticketq's docstring, "Integers"): an int, bool or int subclass as its plain
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
    ``start`` and ``ms`` follow the "Integers" rule of ticketq's docstring (TypeError ``"ms must be
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


class Timeout(QueueEmpty):
    """Raised by pop_until (and ticketq.aio.AsyncTickets.pop_until) when the deadline
    passes with the queue still empty. Nothing was taken from the queue.

    A fresh instance is raised while the heap can allocate; under ``micropython.heap_lock()``
    one preallocated instance, so raising never allocates there (see ticketq.QueueFull).
    """
    pass


_TIMEOUT = Timeout("deadline passed, queue empty")


def timeout():
    # A fresh instance while the heap allows it (a preallocated one raised again and again
    # grows its traceback on MicroPython); under heap_lock, the preallocated one.
    """The Timeout instance to raise (fresh, or the preallocated one under heap_lock).
    """
    try:
        return Timeout(_TIMEOUT.args[0])
    except MemoryError:
        return _TIMEOUT


def pop_until(q, deadline, sleep=None, poll_ms=10):
    # pop_until(q, 2000), a timeout where the Deadline goes, is the natural slip: say so
    # before anything happens (an int has no .clock, and a ticket would hide it).
    """Pop the next ticket's job id, waiting until ``deadline`` for one to arrive.

    Loop: if the queue has a ticket, pop and return it (so a ticket present when the
    deadline falls, or with a timeout of 0, is returned, not refused); else if
    ``deadline.remaining() == 0`` raise Timeout; else sleep ``min(remaining, poll_ms)`` ms
    and check again. ``Deadline(None)`` waits for ever, polling every ``poll_ms``.

    sleep: called as ``sleep(ms)`` with ``1 <= ms <= poll_ms``; default ``deadline.clock.
        sleep_ms`` (a FakeClock), or ``ticketq.ticks.sleep_ms`` for the real clock. Pass
        ``machine.lightsleep`` to save power, or any function that may return early: a
        sleep that returns early (an interrupt, a spurious wake-up) only costs one more
        check, never extends the total wait, because each slice is recomputed from the
        deadline (a 2000 ms wait woken at 1500 ms still ends at 2000 ms). A ticket pushed
        during a sleep (by an interrupt handler via ``micropython.schedule``, or by the
        sleep function itself) is seen when the sleep returns.
    poll_ms: the longest single sleep, 1 <= poll_ms < 2**29 (an int, bool or int subclass,
        ticketq's docstring, "Integers": TypeError ``"poll_ms must be int"`` otherwise, ValueError
        out of range, before anything is popped or slept): bounds how late a push is
        noticed.

    Returns the job id (0 <= id < 2**30). Raises Timeout (a QueueEmpty); TypeError, with
    the queue untouched, when ``deadline`` is not a Deadline (a timeout in ms is not one:
    ``Deadline(2000)`` is). The pop is
    ``q.pop()``, so the queue's order, aging and trace apply. No allocation while a ticket
    is returned or the deadline passes under ``heap_lock`` (given a sleep function that
    allocates nothing). O(log n) for the pop, plus one loop per slice.
    """
    if not isinstance(deadline, Deadline):
        raise TypeError("deadline: a Deadline, as Deadline(2000)")
    # the one int rule (ticketq's docstring, "Integers"); 0 would spin for ever on a fake clock
    poll_ms = _int(poll_ms, 1, 0x1FFFFFFF, "poll_ms")
    c = deadline.clock
    while 1:
        # The queue first: a ticket present at the deadline (or with timeout 0) is returned.
        if len(q):
            return q.pop()
        r = deadline.remaining()
        if r == 0:
            raise timeout()
        # Each slice comes from remaining(), never from a running sum, so a sleep that
        # returns early (an interrupt, lightsleep) only costs one more loop.
        if r is None or r > poll_ms:
            r = poll_ms
        if sleep is not None:
            sleep(r)
        elif c is not None:
            c.sleep_ms(r)
        else:
            sleep_ms(r)
