"""ticketq_async: an asyncio pop bounded by a Deadline (CPython asyncio, MicroPython asyncio).

A separate module because asyncio is not on every board (the micro:bit firmware has none):
importing it there raises ImportError. ::

    import asyncio
    import ticketq_ticks as tt
    from ticketq_async import AsyncTickets
    from ticketq_wait import Timeout

    tickets = AsyncTickets(q)

    async def worker():
        d = tt.Deadline(None)
        while True:
            d.rearm(2000)
            try:
                job = await tickets.pop_until(d)
            except Timeout:
                continue
            await run(job)

    # elsewhere, in a task:  tickets.push(job_id, ticketq.NORMAL)

Wake-ups: a waiter wakes when ``push`` (or ``wake``) is called or its deadline passes,
whichever is first; it then re-checks the queue and recomputes the time left from the
deadline, so an early or spurious wake-up never extends the wait. Every waiter is woken on
each push; the first to run takes the ticket, the others wait on.

Cancellation: a cancelled waiter loses no ticket. Its only await is on its own
``asyncio.Event`` (plus a private alarm task that sets it), and the pop happens right after
a synchronous ``len(q)`` check with no await in between, so a cancellation is delivered
either before the pop (the ticket stays queued) or not at all. ``asyncio.wait_for`` is
deliberately not used: it can swallow a cancellation that races the wake-up (CPython before
3.12, MicroPython), and the caller that cancelled would then drop the ticket returned.

Design sources: FreeRTOS ``xQueueReceive`` / ``xTaskCheckForTimeOut``, Zephyr
``sys_timepoint_timeout``, MicroPython asyncio (``Event``, ``create_task``, ``sleep_ms``).
"""

from typing import Optional

from ticketq import TicketQueue
from ticketq_ticks import Deadline


class AsyncTickets:
    """Wraps a TicketQueue for coroutines that wait on it. Use it within one event loop.

    ``q``: the TicketQueue (read-only attribute). Non-waiting code may still push and pop
    on ``q`` directly; after a direct push call ``wake()`` so waiters notice it at once
    (otherwise they notice at their deadline). On MicroPython, an interrupt handler must
    not touch asyncio: schedule a function (``micropython.schedule``) that pushes and wakes.
    """

    q: TicketQueue

    def __init__(self, q: TicketQueue) -> None: ...

    def push(self, job_id: int, priority: int, lane: Optional[int] = None) -> int:
        """``q.push(job_id, priority)`` then ``wake()``; with a ``lane``, for a
        ``ticketq_lanes.LaneQueue``, ``q.push(job_id, priority, lane)``. Returns the sequence
        number; raises what ``q.push`` raises (QueueFull or LaneFull, TypeError,
        ValueError), waking no one; a lane for a TicketQueue: TypeError, nothing pushed."""

    def wake(self) -> None:
        """Wake every waiting coroutine so it re-checks the queue. Harmless when none waits."""

    async def pop_until(self, deadline: Deadline) -> int:
        """Pop the next ticket's job id, waiting until ``deadline`` for one to arrive.

        With a ticket queued, returns it without suspending (even with a timeout of 0);
        with an empty queue and an expired deadline, raises ``ticketq_wait.Timeout`` without
        suspending. Otherwise suspends until a push/wake or the deadline, then checks
        again. ``Deadline(None)`` waits for a push for ever.

        The alarm sleeps ``remaining()`` ms on the event loop's own clock, then checks the
        deadline again: with the real clock (``clock=None``) that ends the wait on time; with
        a FakeClock the wait ends at the first check after the fake clock has passed it.

        Allocates (one Event per call, one alarm task per suspension): not for heap_lock.
        Raises Timeout (a ``ticketq.QueueEmpty``), or CancelledError if cancelled;
        TypeError, before anything is popped, when ``deadline`` is not a Deadline.
        """
