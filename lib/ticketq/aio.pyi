from typing import Optional

from ticketq import TicketQueue
from ticketq.ticks import Deadline


class AsyncTickets:

    q: TicketQueue

    def __init__(self, q: TicketQueue) -> None: ...

    def push(self, job_id: int, priority: int, lane: Optional[int] = None) -> int:
        ...

    def wake(self) -> None:
        ...

    async def pop_until(self, deadline: Deadline) -> int:
        """Pop the next ticket's job id, waiting until ``deadline`` for one to arrive.

        With a ticket queued, returns it without suspending (even with a timeout of 0);
        with an empty queue and an expired deadline, raises ``ticketq.ticks.Timeout`` without
        suspending. Otherwise suspends until a push/wake or the deadline, then checks
        again. ``Deadline(None)`` waits for a push for ever.

        The alarm sleeps ``remaining()`` ms on the event loop's own clock, then checks the
        deadline again: with the real clock (``clock=None``) that ends the wait on time; with
        a FakeClock the wait ends at the first check after the fake clock has passed it.

        Allocates (one Event per call, one alarm task per suspension): not for heap_lock.
        Raises Timeout (a ``ticketq.QueueEmpty``), or CancelledError if cancelled;
        TypeError, before anything is popped, when ``deadline`` is not a Deadline.
        """
