# ticketq.aio: an asyncio pop bounded by a Deadline, on CPython's and MicroPython's
# asyncio. Documentation: the docstrings below (help(), editors; the .pyi stubs carry the
# types). mpy-cross and freezing drop them, ticketq deploy strips them for a board that
# compiles source.
"""ticketq.aio: an asyncio pop bounded by a Deadline (CPython asyncio, MicroPython asyncio).

A separate module because asyncio is not on every board (the micro:bit firmware has none):
importing it there raises ImportError. ::

    import asyncio
    import ticketq.ticks as tt
    from ticketq.aio import AsyncTickets
    from ticketq.ticks import Timeout

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
try:
    import asyncio
except ImportError:
    import uasyncio as asyncio  # MicroPython 1.13 .. 1.20 without the weak link
from ticketq.ticks import Deadline, timeout

try:
    _sleep_ms = asyncio.sleep_ms
except AttributeError:  # CPython

    def _sleep_ms(ms):
        return asyncio.sleep(ms / 1000)


async def _alarm(e, ms):
    try:
        await _sleep_ms(ms)
        e.set()
    except asyncio.CancelledError:
        pass  # the waiter woke first and cancelled its alarm; nothing to report


class AsyncTickets:
    """Wraps a TicketQueue for coroutines that wait on it. Use it within one event loop.

    ``q``: the TicketQueue (read-only attribute). Non-waiting code may still push and pop
    on ``q`` directly; after a direct push call ``wake()`` so waiters notice it at once
    (otherwise they notice at their deadline). On MicroPython, an interrupt handler must
    not touch asyncio: schedule a function (``micropython.schedule``) that pushes and wakes.
    """
    def __init__(self, q):
        self.q = q
        self._w = []  # one Event per waiting coroutine

    def wake(self):
        """Wake every waiting coroutine so it re-checks the queue. Harmless when none waits.
        """
        for e in self._w:
            e.set()

    def push(self, job_id, priority, lane=None):
        # lane: for a ticketq.lanes.LaneQueue (None: its lane 0, or a TicketQueue)
        """``q.push(job_id, priority)`` then ``wake()``; with a ``lane``, for a
        ``ticketq.lanes.LaneQueue``, ``q.push(job_id, priority, lane)``. Returns the sequence
        number; raises what ``q.push`` raises (QueueFull or LaneFull, TypeError,
        ValueError), waking no one; a lane for a TicketQueue: TypeError, nothing pushed.
        """
        if lane is None:
            s = self.q.push(job_id, priority)
        elif hasattr(self.q, "lanes"):
            s = self.q.push(job_id, priority, lane)
        else:  # not the interpreter's arity message, which differs on each path
            raise TypeError("lane: for a LaneQueue only")
        self.wake()
        return s

    async def pop_until(self, deadline):
        """Pop the next ticket's job id, waiting until ``deadline`` for one to arrive.

        deadline: a ``ticketq.ticks.Deadline`` (``Deadline(2000)``: 2000 ms from now;
            ``Deadline(None)``: wait for a push for ever); its ``remaining()`` is in ms.

        With a ticket queued, returns it without suspending (even with a timeout of 0);
        with an empty queue and an expired deadline, raises ``ticketq.ticks.Timeout``
        without suspending. Otherwise suspends until a ``push``/``wake`` or the deadline,
        then checks again, recomputing the time left from the deadline (an early wake-up
        never extends the wait). The alarm sleeps ``remaining()`` ms on the event loop's
        own clock, then checks the deadline again: with the real clock (``clock=None``)
        that ends the wait on time; with a FakeClock the wait ends at the first check after
        the fake clock has passed it.

        Returns the job id (``0 <= id < 2**30``), popped with ``q.pop()`` (the queue's
        order, aging and trace apply; O(log n)). Raises ``ticketq.ticks.Timeout`` (a
        ``ticketq.QueueEmpty``: nothing was taken), or CancelledError if cancelled (no
        ticket lost: see the module doc); TypeError, before anything is popped, when
        ``deadline`` is not a Deadline (a timeout in ms is not one).

        Allocates: one ``asyncio.Event`` per call that suspends, one alarm task per
        suspension with a finite deadline, and the coroutine itself; not for
        ``heap_lock``. Design sources as ``ticketq.ticks.pop_until``'s (FreeRTOS
        ``xQueueReceive`` / ``xTaskCheckForTimeOut``, Zephyr ``sys_timepoint_timeout``),
        waiting on an ``asyncio.Event`` instead of sleeping in slices.
        """
        # Why not wait_for(event.wait(), t): it can swallow a cancellation that races a
        # wake-up (CPython < 3.12, MicroPython), and the cancelled caller would then lose
        # the ticket this returned. Here the only await is on the waiter's own Event, whose
        # cancellation always propagates, and the pop below follows no await.
        if not isinstance(deadline, Deadline):  # before anything is popped (ticketq.ticks)
            raise TypeError("deadline: a Deadline, as Deadline(2000)")
        q = self.q
        e = None
        t = None
        try:
            while 1:
                if len(q):
                    return q.pop()
                r = deadline.remaining()
                if r == 0:
                    raise timeout()
                if e is None:  # made inside the loop: CPython 3.9 binds it to the loop
                    e = asyncio.Event()
                    self._w.append(e)
                e.clear()  # safe: the queue was seen empty since the last await
                if r is not None:
                    t = asyncio.create_task(_alarm(e, r))
                await e.wait()
                if t is not None:
                    t.cancel()
                    t = None
        finally:
            if t is not None:
                t.cancel()
            if e is not None:
                self._w.remove(e)
