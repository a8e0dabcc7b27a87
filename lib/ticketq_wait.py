# ticketq_wait: a blocking pop bounded by a Deadline, for plain loops (no asyncio needed).
# Documentation: the docstrings below (help(), editors; the .pyi stubs carry the types).
# mpy-cross and freezing drop them, tools/deploy.py strips them for a board that compiles
# source.
"""ticketq_wait: a blocking pop bounded by a Deadline, for plain loops (no asyncio needed).

A worker loop on a board::

    import ticketq_ticks as tt
    from ticketq_wait import pop_until, Timeout

    d = tt.Deadline(None)
    while True:
        d.rearm(2000)                   # at most 2 s per wait; no allocation
        try:
            job = pop_until(q, d)       # returns the next job id ...
        except Timeout:                 # ... or raises when the deadline passes
            housekeeping()
            continue
        run(job)

Timeout signal: the ``Timeout`` exception, a subclass of ``ticketq.QueueEmpty`` (as
CPython's ``queue.Queue.get(timeout=...)`` raises ``queue.Empty``): a job id can be any
value 0..2**30-1, including the falsy 0, so no return value is reserved for "timed out",
and a forgotten check fails loudly instead of running a bogus job.

Design sources: FreeRTOS ``xQueueReceive`` with ``xTaskCheckForTimeOut`` (a wait woken early
never restarts its timeout), Zephyr ``sys_timepoint_timeout`` (the time left is recomputed
from one fixed deadline), MicroPython's ``ticks_diff`` deadline idiom.
"""
from ticketq_core import QueueEmpty, _int
from ticketq_deadline import sleep_ms, Deadline


class Timeout(QueueEmpty):
    """Raised by pop_until (and ticketq_async.AsyncTickets.pop_until) when the deadline
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
        sleep_ms`` (a FakeClock), or ``ticketq_ticks.sleep_ms`` for the real clock. Pass
        ``machine.lightsleep`` to save power, or any function that may return early: a
        sleep that returns early (an interrupt, a spurious wake-up) only costs one more
        check, never extends the total wait, because each slice is recomputed from the
        deadline (a 2000 ms wait woken at 1500 ms still ends at 2000 ms). A ticket pushed
        during a sleep (by an interrupt handler via ``micropython.schedule``, or by the
        sleep function itself) is seen when the sleep returns.
    poll_ms: the longest single sleep, 1 <= poll_ms < 2**29 (an int, bool or int subclass,
        ticketq.pyi "Integers": TypeError ``"poll_ms must be int"`` otherwise, ValueError
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
    # the one int rule (ticketq.pyi, "Integers"); 0 would spin for ever on a fake clock
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
