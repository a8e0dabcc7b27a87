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

from typing import Callable, Optional

from ticketq import QueueEmpty, TicketQueue
from ticketq_ticks import Deadline


class Timeout(QueueEmpty):
    """Raised by pop_until (and ticketq_async.AsyncTickets.pop_until) when the deadline
    passes with the queue still empty. Nothing was taken from the queue.

    A fresh instance is raised while the heap can allocate; under ``micropython.heap_lock()``
    one preallocated instance, so raising never allocates there (see ticketq.QueueFull)."""


def timeout() -> Timeout:
    """The Timeout instance to raise (fresh, or the preallocated one under heap_lock)."""


def pop_until(q: TicketQueue, deadline: Deadline,
              sleep: Optional[Callable[[int], object]] = None, poll_ms: int = 10) -> int:
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
