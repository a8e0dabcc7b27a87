# ticketq_async: an asyncio pop bounded by a Deadline, on CPython's and MicroPython's
# asyncio. Full documentation is in ticketq_async.pyi.
try:
    import asyncio
except ImportError:
    import uasyncio as asyncio  # MicroPython 1.13 .. 1.20 without the weak link
from ticketq_deadline import Deadline
from ticketq_wait import timeout

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
    def __init__(self, q):
        self.q = q
        self._w = []  # one Event per waiting coroutine

    def wake(self):
        for e in self._w:
            e.set()

    def push(self, job_id, priority, lane=None):
        # lane: for a ticketq_lanes.LaneQueue (None: its lane 0, or a TicketQueue)
        if lane is None:
            s = self.q.push(job_id, priority)
        elif hasattr(self.q, "lanes"):
            s = self.q.push(job_id, priority, lane)
        else:  # not the interpreter's arity message, which differs on each path
            raise TypeError("lane: for a LaneQueue only")
        self.wake()
        return s

    async def pop_until(self, deadline):
        # Why not wait_for(event.wait(), t): it can swallow a cancellation that races a
        # wake-up (CPython < 3.12, MicroPython), and the cancelled caller would then lose
        # the ticket this returned. Here the only await is on the waiter's own Event, whose
        # cancellation always propagates, and the pop below follows no await.
        if not isinstance(deadline, Deadline):  # before anything is popped (ticketq_wait)
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
