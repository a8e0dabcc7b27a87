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
        ...
